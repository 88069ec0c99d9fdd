#!/bin/sh
# Guest side: read a command (poweroff, reboot or halt) from the console and
# run it as a user would: busybox then signals init, which shuts down.
echo "guest-shutdown-ready"
read -r cmd
echo "guest-shutdown: $cmd"
$cmd
sleep 60
echo "guest-shutdown: still running after '$cmd'"
