/* SPDX-License-Identifier: GPL-2.0 */
/*
 * virtio-blk (virtio 1.2 §5.2): device ID 2, one request queue of
 * VIRTIO_BLK_QUEUE_SIZE entries.
 *
 * Offers SEG_MAX (queue size - 2, so header + data + status fit the
 * virtqueue's chain bound), BLK_SIZE (512), FLUSH, RO for a read-only
 * disk, and DISCARD / WRITE_ZEROES when the backend implements them.
 * capacity is the disk size / 512, rounded down: a trailing partial sector
 * of the image is never visible to the guest.
 *
 * Requests (header {le32 type, le32 reserved, le64 sector}, data, status):
 *  - the status byte is the last device-writable byte of the chain; a
 *    chain without one is returned untouched (used len 0, nothing done);
 *    a chain whose readable part is shorter than the header gets IOERR;
 *  - IN reads writable_len - 1 bytes, OUT writes the readable bytes after
 *    the header; both must be a multiple of 512 and lie inside the disk
 *    (sector * 512 + len, overflow-checked), else IOERR and nothing is
 *    transferred;
 *  - a read-only disk fails OUT, DISCARD and WRITE_ZEROES with IOERR
 *    without touching the backend;
 *  - FLUSH calls the backend's flush; GET_ID writes min(data, 20) bytes of
 *    the disk's NUL-padded id; other types get UNSUPP;
 *  - DISCARD and WRITE_ZEROES take exactly one 16-byte segment
 *    (max_*_seg = 1; none or more is IOERR), bounds-checked like IN/OUT
 *    and at most max_*_sectors long (else IOERR); unknown flags, or unmap
 *    on a discard, get UNSUPP (§5.2.6.2);
 *  - a failing or short backend call gives IOERR (logged once);
 *  - the used length is the number of bytes written into the chain: the
 *    data (IN, GET_ID) plus the status byte.
 * If the driver did not negotiate FLUSH, every completed write is made
 * stable first (write-through, §5.2.6.2): the backend's flush runs after
 * each successful OUT, DISCARD and WRITE_ZEROES.
 *
 * I/O is synchronous in the notify callback.  virtio_blk_handle() is the
 * pure request decoder: it only needs a chain, a disk and a bounce buffer,
 * so it can run on an I/O thread as well.
 *
 * The transport is embedded: register virtio_mmio_ops with opaque &blk->vm
 * at blk->vm.res.base / blk->vm.res.size.
 */
#ifndef RVKVM_VIRTIO_BLK_H
#define RVKVM_VIRTIO_BLK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "virtio/mmio.h"

#ifndef VIRTIO_ID_BLOCK
#define VIRTIO_ID_BLOCK 2
#endif

/* Feature bits (§5.2.3). */
#define VIRTIO_BLK_F_SEG_MAX 2
#define VIRTIO_BLK_F_RO 5
#define VIRTIO_BLK_F_BLK_SIZE 6
#define VIRTIO_BLK_F_FLUSH 9
#define VIRTIO_BLK_F_DISCARD 13
#define VIRTIO_BLK_F_WRITE_ZEROES 14

/* Request types and status values (§5.2.6). */
#define VIRTIO_BLK_T_IN 0
#define VIRTIO_BLK_T_OUT 1
#define VIRTIO_BLK_T_FLUSH 4
#define VIRTIO_BLK_T_GET_ID 8
#define VIRTIO_BLK_T_DISCARD 11
#define VIRTIO_BLK_T_WRITE_ZEROES 13
#define VIRTIO_BLK_S_OK 0
#define VIRTIO_BLK_S_IOERR 1
#define VIRTIO_BLK_S_UNSUPP 2

#define VIRTIO_BLK_SECTOR 512
#define VIRTIO_BLK_REQ_HDR_SIZE 16
#define VIRTIO_BLK_DWZ_SEG_SIZE 16 /* {le64 sector, le32 num, le32 flags} */
#define VIRTIO_BLK_DWZ_F_UNMAP 1
#define VIRTIO_BLK_ID_BYTES 20

/* Configuration space offsets (§5.2.4, struct virtio_blk_config). */
#define VIRTIO_BLK_CFG_CAPACITY 0 /* le64 */
#define VIRTIO_BLK_CFG_SIZE_MAX 8
#define VIRTIO_BLK_CFG_SEG_MAX 12
#define VIRTIO_BLK_CFG_GEOMETRY 16 /* 4 bytes */
#define VIRTIO_BLK_CFG_BLK_SIZE 20
#define VIRTIO_BLK_CFG_TOPOLOGY 24 /* 8 bytes */
#define VIRTIO_BLK_CFG_WRITEBACK 32 /* u8, then unused0 u8, num_queues le16 */
#define VIRTIO_BLK_CFG_MAX_DISCARD_SECTORS 36
#define VIRTIO_BLK_CFG_MAX_DISCARD_SEG 40
#define VIRTIO_BLK_CFG_DISCARD_ALIGN 44
#define VIRTIO_BLK_CFG_MAX_WZ_SECTORS 48
#define VIRTIO_BLK_CFG_MAX_WZ_SEG 52
#define VIRTIO_BLK_CFG_WZ_MAY_UNMAP 56 /* u8, then unused1[3] */
#define VIRTIO_BLK_CONFIG_SIZE 60

/* What this device advertises. */
#define VIRTIO_BLK_QUEUE_SIZE 256
#define VIRTIO_BLK_SEG_MAX (VIRTIO_BLK_QUEUE_SIZE - 2)
#define VIRTIO_BLK_BLK_SIZE 512
#define VIRTIO_BLK_MAX_DISCARD_SECTORS (1u << 22) /* 2 GiB */
#define VIRTIO_BLK_MAX_WZ_SECTORS (1u << 16) /* 32 MiB: bounds a fallback */
#define VIRTIO_BLK_MAX_DWZ_SEG 1
#define VIRTIO_BLK_DISCARD_ALIGN 8 /* sectors: 4 KiB host blocks */

/*
 * The bounce buffer between guest buffers and the backend.  Every backend
 * read/write gets a buffer aligned to VIRTIO_BLK_BOUNCE_ALIGN, a length
 * that is a multiple of 512 and at most VIRTIO_BLK_BOUNCE_SIZE, and an
 * offset that is a multiple of 512 (what O_DIRECT needs on 512-byte
 * logical-block storage).
 */
#define VIRTIO_BLK_BOUNCE_SIZE (64 * 1024)
#define VIRTIO_BLK_BOUNCE_ALIGN 4096

/*
 * The disk backend.  Offsets and lengths are in bytes and always inside
 * the disk (the device checks them first).  read/write return the bytes
 * transferred (anything but len is treated as an I/O error) or -errno;
 * the others return 0 or -errno.  flush may be NULL (nothing to flush);
 * discard and write_zeroes may be NULL: the feature is then not offered.
 * write is not called for a read-only disk and may then be NULL.
 * write_zeroes must leave the range reading back as zeroes.
 */
struct virtio_blk_disk_ops {
	ssize_t (*read)(void *opaque, void *buf, size_t len, uint64_t offset);
	ssize_t (*write)(void *opaque, const void *buf, size_t len,
			 uint64_t offset);
	int (*flush)(void *opaque);
	int (*discard)(void *opaque, uint64_t offset, uint64_t len);
	int (*write_zeroes)(void *opaque, uint64_t offset, uint64_t len);
};

struct virtio_blk_disk {
	const struct virtio_blk_disk_ops *ops;
	void *opaque;
	uint64_t size; /* bytes */
	bool read_only;
	char id[VIRTIO_BLK_ID_BYTES]; /* GET_ID: NUL-padded, no terminator */
};

/* Set disk->id from s: its first 20 bytes, NUL-padded (s may be NULL). */
void virtio_blk_disk_set_id(struct virtio_blk_disk *disk, const char *s);

/* The outcome of one request. */
struct virtio_blk_result {
	int status; /* VIRTIO_BLK_S_*, or -1: no status byte to write */
	uint32_t used_len; /* for virtq_push() */
};

/*
 * Decode and perform the request in chain against disk, write the data
 * and the status byte into the chain (see the rules at the top).  bounce:
 * VIRTIO_BLK_BOUNCE_SIZE bytes aligned to VIRTIO_BLK_BOUNCE_ALIGN, owned
 * by the caller for the duration of the call.  writethrough: flush after
 * every successful write (the driver did not negotiate FLUSH).  Touches
 * only the chain's buffers, the bounce buffer and the backend.
 */
struct virtio_blk_result virtio_blk_handle(const struct virtio_blk_disk *disk,
					   const struct virtq_chain *chain,
					   uint8_t *bounce, bool writethrough);

struct virtio_blk {
	struct virtio_mmio vm;
	struct virtio_blk_disk disk;
	uint8_t config[VIRTIO_BLK_CONFIG_SIZE]; /* little-endian, fixed */
	uint8_t *bounce; /* VIRTIO_BLK_BOUNCE_SIZE, used under vm.lock */
	bool writethrough; /* FLUSH not negotiated; set at FEATURES_OK */
	struct virtq_chain chain; /* scratch, used under vm.lock */
};

/*
 * The disk description is copied; disk->ops and disk->opaque must outlive
 * the device.  -EINVAL for a missing res, no ops, no read (or no write on a
 * writable disk), -ENOMEM, or -errno.
 */
int virtio_blk_init(struct virtio_blk *blk, const struct dev_res *res,
		    const struct guest_mem *mem, const struct irq_line *irq,
		    const struct virtio_blk_disk *disk);
void virtio_blk_destroy(struct virtio_blk *blk);

/*
 * The production backend: a raw image file or a block device.
 *
 * Opened O_RDWR (O_RDONLY when read_only), O_CLOEXEC, and O_DIRECT when
 * direct is set: the device's bounce buffer satisfies O_DIRECT's alignment
 * on storage with 512-byte logical blocks (on 4 KiB-logical-block devices
 * unaligned guest I/O then fails with IOERR).  The size comes from fstat
 * (files) or BLKGETSIZE64 (block devices); other file types are refused.
 * A writable opener takes an exclusive OFD lock on the whole file, a
 * read-only one a shared lock, held until close: a conflicting opener (in
 * this or another process) gets -EBUSY and a clear error.  A writable
 * block device is also opened O_EXCL (-EBUSY while mounted).
 *
 * read/write loop over short transfers and EINTR; flush is fdatasync();
 * discard punches a hole (a no-op where that is not supported: discard
 * is advisory); write_zeroes uses FALLOC_FL_ZERO_RANGE and falls back to
 * writing zeroes where that is not supported.
 */
struct virtio_blk_file {
	int fd;
	uint64_t size;
	bool read_only, direct, is_blkdev;
	bool no_zero_range; /* ZERO_RANGE unsupported: write zeroes instead */
	bool no_punch_hole; /* PUNCH_HOLE unsupported: discard is a no-op */
	uint8_t *zeroes; /* VIRTIO_BLK_BOUNCE_SIZE aligned zero bytes */
};

extern const struct virtio_blk_disk_ops virtio_blk_file_ops;

/* 0 or -errno (logged with the path); -EBUSY when locked by another. */
int virtio_blk_file_open(struct virtio_blk_file *f, const char *path,
			 bool read_only, bool direct);
/* Closes the file (dropping the lock); a no-op after a failed open. */
void virtio_blk_file_close(struct virtio_blk_file *f);

/* A disk description for f (ops, opaque, size, read_only, id). */
void virtio_blk_file_disk(struct virtio_blk_file *f, const char *id,
			  struct virtio_blk_disk *disk);

#endif
