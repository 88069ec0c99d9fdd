#!/bin/sh
# The emulated host's script for 'make run': start a guest with a shell on
# this console.  Leaving the guest's shell powers the guest off; the host
# powers off after it.
echo "host: starting the guest: ./lkvm run -k Image -i guest.cpio.gz -m 256 -c 2"
echo "host: 'exit' or 'poweroff' in the guest shell powers everything off"
./lkvm run -k Image -i guest.cpio.gz -m 256 -c 2
