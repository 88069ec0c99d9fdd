#!/bin/sh
# Guest side: announce, wait for the host's go-ahead, then reboot.
echo "guest-ready-to-reboot"
read -r go
echo "guest-rebooting ($go)"
# echo returns once the line is in the tty's buffer; the UART sends it
# from its interrupt, which reboot -f does not wait for: let it out first.
sleep 0.5
reboot -f
