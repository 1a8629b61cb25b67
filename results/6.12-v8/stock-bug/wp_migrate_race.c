// SPDX-License-Identifier: GPL-2.0
/*
 * wp_migrate_race: PAGEMAP_SCAN write-protects (async uffd-wp) a written
 * region while another thread migrates its pages between two NUMA nodes
 * with move_pages(), so that the scan meets migration entries. Prints how
 * many rounds ran; the console tells whether the kernel warned.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#define NPAGES 64
static char *mem;
static long psize;
static volatile int stop;

static void *migrator(void *arg)
{
	void *pages[NPAGES];
	int nodes[NPAGES], status[NPAGES], i, round = 0;

	(void)arg;
	for (i = 0; i < NPAGES; i++)
		pages[i] = mem + i * psize;
	while (!stop) {
		for (i = 0; i < NPAGES; i++)
			nodes[i] = round & 1;
		if (syscall(__NR_move_pages, 0, NPAGES, pages, nodes, status, 0) < 0) {
			perror("move_pages");
			exit(1);
		}
		round++;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct page_region vec[NPAGES];
	struct pm_scan_arg arg;
	int rounds = argc > 1 ? atoi(argv[1]) : 20000, uffd, pm, r, i;
	pthread_t t;

	psize = sysconf(_SC_PAGESIZE);
	mem = mmap(NULL, NPAGES * psize, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || madvise(mem, NPAGES * psize, MADV_NOHUGEPAGE))
		return perror("mmap/madvise"), 1;
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	api.features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED;
	if (uffd < 0 || ioctl(uffd, UFFDIO_API, &api))
		return perror("userfaultfd"), 1;
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)mem;
	reg.range.len = NPAGES * psize;
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		return perror("UFFDIO_REGISTER"), 1;
	pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0)
		return perror("pagemap"), 1;
	memset(mem, 1, NPAGES * psize);
	if (pthread_create(&t, NULL, migrator, NULL))
		return 1;
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < NPAGES; i++)
			mem[i * psize] = r;	/* writable again (async wp) */
		memset(&arg, 0, sizeof(arg));
		arg.size = sizeof(arg);
		arg.flags = PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC;
		arg.start = (uintptr_t)mem;
		arg.end = (uintptr_t)mem + NPAGES * psize;
		arg.vec = (uintptr_t)vec;
		arg.vec_len = NPAGES;
		arg.category_mask = PAGE_IS_WRITTEN;
		arg.return_mask = PAGE_IS_WRITTEN;
		if (ioctl(pm, PAGEMAP_SCAN, &arg) < 0)
			return perror("PAGEMAP_SCAN"), 1;
	}
	stop = 1;
	pthread_join(t, NULL);
	printf("ok 1 %d rounds of PAGEMAP_SCAN write-protect against move_pages\n", rounds);
	return 0;
}
