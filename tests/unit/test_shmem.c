// SPDX-License-Identifier: GPL-2.0
/*
 * Shareable guest RAM (vmm/host/shmem.c): the size, the seals (no grow,
 * no shrink, no more seals), close-on-exec, holes still punched (a
 * reboot's zeroing), and a second mapping of the fd (the daemon's view)
 * seeing lkvm's writes.
 */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "vmm/host/shmem.h"

#define SIZE (4u << 20)

static void test_shmem(void **state)
{
	int fd = shmem_ram_fd(SIZE);
	struct stat st;
	uint8_t *a, *b;

	assert_true(fd >= 0);
	assert_int_equal(fstat(fd, &st), 0);
	assert_int_equal(st.st_size, SIZE);
	assert_true(fcntl(fd, F_GETFD) & FD_CLOEXEC);
	assert_int_equal(fcntl(fd, F_GET_SEALS),
			 F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL);
	assert_int_equal(ftruncate(fd, SIZE / 2), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(ftruncate(fd, SIZE * 2), -1);
	assert_int_equal(fcntl(fd, F_ADD_SEALS, F_SEAL_WRITE), -1);
	a = mmap(NULL, SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	b = mmap(NULL, SIZE, PROT_READ, MAP_SHARED, fd, 0);
	assert_true(a != MAP_FAILED && b != MAP_FAILED);
	a[SIZE - 1] = 0x5a;
	assert_int_equal(b[SIZE - 1], 0x5a);
	assert_int_equal(fallocate(fd,
				   FALLOC_FL_PUNCH_HOLE | FALLOC_FL_KEEP_SIZE,
				   0, SIZE),
			 0);
	assert_int_equal(a[SIZE - 1], 0);
	munmap(a, SIZE);
	munmap(b, SIZE);
	close(fd);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_shmem),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
