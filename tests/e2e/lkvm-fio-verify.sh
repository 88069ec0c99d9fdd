#!/bin/sh
# Runs in the emulated host: fio with --verify=crc32c over the whole of a
# 48 MiB disk, 2 vCPUs and 2 request queues (tests/e2e/guest/fio-verify.sh).
# Every block written at queue depth 16 through io_uring reads back with
# its checksum; both queues carried requests (lkvm --debug counts them),
# and busy polling took some of them.
. ./lib.sh

rm -f /tmp/fio.img
dd if=/dev/zero of=/tmp/fio.img bs=1M count=48 2>/dev/null
# --io-poll: busy polling, which is off by default with as many vCPUs as
# host CPUs; the requests it takes must verify like the others.
LKVM_TIMEOUT=240 lkvm /tmp/f.log --debug -k Image -i guest-fio-verify.cpio.gz \
	-m 256 -c 2 -d /tmp/fio.img --io-poll 2000
t fio-verify-status [ $rc -eq 0 ]
t fio-verify-2-queues has "guest-vda-queues: 2" /tmp/f.log
t fio-verify-io_uring has "virtio-blk I/O engine: io_uring" /tmp/f.log
t fio-verify-ok has "guest-fio-verify: ok" /tmp/f.log
t fio-verify-wrote-whole-disk has "guest-fio-written-KiB: 49152" /tmp/f.log
t fio-verify-read-back-whole-disk has "guest-fio-read-KiB: 49152" /tmp/f.log
# Both queues were used: "requests per queue: A B" with A and B non-zero.
both_queues() {
	tr -d '\r' </tmp/f.log |
		sed -n 's/.*virtio-blk requests per queue: \([0-9]*\) \([0-9]*\)$/\1 \2/p' |
		awk '$1 > 0 && $2 > 0 { ok = 1 } END { exit !ok }'
}
t fio-verify-both-queues-used both_queues
t fio-verify-polling-on has "busy polling up to 2000 us" /tmp/f.log
# Busy polling took requests without a notification.
polled() {
	tr -d '\r' </tmp/f.log |
		sed -n 's/.*requests taken while busy polling: \([0-9]*\)$/\1/p' |
		awk '$1 > 0 { ok = 1 } END { exit !ok }'
}
t fio-verify-requests-taken-polling polled
# Two vCPUs on two host CPUs: notifications go to the vCPU at depth 1
# (the boot's reads) and to the I/O thread at depth 16, every block
# verifying across the moves.
t fio-verify-vcpu-route has "notifications served in the vCPU's exit" /tmp/f.log
rerouted() {
	tr -d '\r' </tmp/f.log |
		sed -n 's/.*requests taken in vCPU exits: \([0-9]*\), notification route changes: \([0-9]*\)$/\1 \2/p' |
		awk '$1 > 0 && $2 >= 2 { ok = 1 } END { exit !ok }'
}
t fio-verify-rerouted rerouted
exit $fail
