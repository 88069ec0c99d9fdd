#!/bin/sh
# Guest side: announce, wait for the host's go-ahead, then reboot.
echo "guest-ready-to-reboot"
read -r go
echo "guest-rebooting ($go)"
reboot -f
