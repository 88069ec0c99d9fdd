// SPDX-License-Identifier: GPL-2.0
/* Shareable guest RAM; see shmem.h. */
#include <errno.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include "vmm/host/shmem.h"

int shmem_ram_fd(uint64_t size)
{
	int fd = memfd_create("lkvm-ram", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	int err;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, (off_t)size) < 0 ||
	    fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL) <
		    0) {
		err = -errno;
		close(fd);
		return err;
	}
	return fd;
}
