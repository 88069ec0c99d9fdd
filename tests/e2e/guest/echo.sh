#!/bin/sh
# Guest side: echo one line of console input back.
read -r line
echo "guest-got: $line"
