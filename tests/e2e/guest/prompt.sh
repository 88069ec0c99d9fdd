#!/bin/sh
# Guest side: prompt, then echo one line of console input back.
echo "guest-waiting-for-input"
read -r line
echo "guest-got: $line"
