// SPDX-License-Identifier: GPL-2.0
/*
 * uffd_wp_migration: a bug of stock 6.12 that the series does not change
 * (docs/stock-uffd-wp-migration-entry.md). PAGEMAP_SCAN write-protects
 * (async uffd-wp) a written region while another thread moves its pages
 * between two NUMA nodes with move_pages(), so that the scan meets
 * migration entries. make_uffd_wp_pte() then sets the uffd-wp bit on a
 * writable migration entry, and page_table_check warns (a uffd-wp entry
 * must not grant write).
 *
 * The warning is the kernel's, on the console; this program finds it in
 * /dev/kmsg and reports it as its failed test, which tests/skips/ARCH.list
 * names as an expected failure where the bug shows. The console check
 * leaves that one report out, inside this program's run and only when the
 * program failed (scripts/console-check.sh), so it is counted once.
 *
 * Usage: uffd_wp_migration [ROUNDS] (default 20000; it stops at the warning)
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

#include "kselftest.h"

#define NPAGES 64
#define TEST "PAGEMAP_SCAN write-protect against move_pages"

static char *mem;
static long psize;
static volatile int stop;
static long migrations;

static void *migrator(void *arg)
{
	void *pages[NPAGES];
	int nodes[NPAGES], status[NPAGES], i;

	(void)arg;
	for (i = 0; i < NPAGES; i++)
		pages[i] = mem + i * psize;
	while (!stop) {
		for (i = 0; i < NPAGES; i++)
			nodes[i] = migrations & 1;
		if (syscall(__NR_move_pages, 0, NPAGES, pages, nodes, status, 0) < 0)
			ksft_exit_fail_msg("move_pages: %s\n", strerror(errno));
		migrations++;
	}
	return NULL;
}

/* Two NUMA nodes online ("0-1"), or the pages have nowhere to go. */
static int two_nodes(void)
{
	char buf[64] = "";
	FILE *f = fopen("/sys/devices/system/node/online", "r");

	if (!f)
		return 0;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return strncmp(buf, "0-1", 3) == 0;
}

/*
 * The kernel's page_table_check warning from make_uffd_wp_pte(), among the
 * /dev/kmsg records logged since KMSG was opened at its end: a record
 * "WARNING: ... page_table_check.c ..." and, in the call trace that
 * follows it, make_uffd_wp_pte. Reads what has been logged so far (a
 * report may be read in two calls). Prints the WARNING line as a
 * diagnostic. Returns 1 if found, 0 if not (yet).
 */
static int kmsg_warned(int kmsg)
{
	static char warn[2048];
	static int in_report;
	char rec[2048];
	ssize_t n;

	for (;;) {
		n = read(kmsg, rec, sizeof(rec) - 1);
		if (n < 0 && errno == EPIPE)	/* overwritten records: go on */
			continue;
		if (n <= 0)
			break;
		rec[n] = 0;
		if (strstr(rec, "WARNING:")) {
			in_report = strstr(rec, "page_table_check") != NULL;
			/* The function that warned: the record's last word. */
			if (in_report) {
				rec[strcspn(rec, "\n")] = 0;
				snprintf(warn, sizeof(warn), "%s", strrchr(rec, ' ') ? strrchr(rec, ' ') + 1 : rec);
			}
		} else if (in_report && strstr(rec, "make_uffd_wp_pte")) {
			/*
			 * Not the WARNING line itself: the console check
			 * must not take this program's output for a report.
			 */
			ksft_print_msg("kernel warning in %s, called from make_uffd_wp_pte\n", warn);
			return 1;
		} else if (strstr(rec, "---[ end trace")) {
			in_report = 0;
		}
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct page_region vec[NPAGES];
	struct pm_scan_arg arg;
	int rounds = argc > 1 ? atoi(argv[1]) : 20000, uffd, pm, kmsg, r, i;
	int warned = 0;
	pthread_t t;

	ksft_print_header();
	ksft_set_plan(1);
	if (rounds <= 0)
		ksft_exit_fail_msg("usage: %s [ROUNDS] (ROUNDS > 0)\n", argv[0]);
	psize = sysconf(_SC_PAGESIZE);
	/* Order-0 pages: move_pages() then migrates one PTE at a time. */
	mem = mmap(NULL, NPAGES * psize, PROT_READ | PROT_WRITE,
		   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
	if (madvise(mem, NPAGES * psize, MADV_NOHUGEPAGE))
		ksft_exit_fail_msg("MADV_NOHUGEPAGE: %s\n", strerror(errno));
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0) {
		ksft_test_result_skip("userfaultfd: %s\n", strerror(errno));
		ksft_finished();
	}
	api.features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED;
	if (ioctl(uffd, UFFDIO_API, &api)) {
		ksft_test_result_skip("UFFDIO_API(WP_ASYNC): %s\n", strerror(errno));
		ksft_finished();
	}
	if (!two_nodes()) {
		ksft_test_result_skip("one NUMA node: nowhere to migrate to\n");
		ksft_finished();
	}
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)mem;
	reg.range.len = NPAGES * psize;
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		ksft_exit_fail_msg("UFFDIO_REGISTER(WP): %s\n", strerror(errno));
	pm = open("/proc/self/pagemap", O_RDONLY);
	if (pm < 0)
		ksft_exit_fail_msg("/proc/self/pagemap: %s\n", strerror(errno));
	/* Only what the kernel logs from now on. */
	kmsg = open("/dev/kmsg", O_RDONLY | O_NONBLOCK);
	if (kmsg < 0 || lseek(kmsg, 0, SEEK_END) < 0)
		ksft_exit_fail_msg("/dev/kmsg: %s\n", strerror(errno));

	memset(mem, 1, NPAGES * psize);
	if (pthread_create(&t, NULL, migrator, NULL))
		ksft_exit_fail_msg("pthread_create failed\n");
	/*
	 * Where the bug is, the race shows it within the first rounds; the
	 * kernel warns once per boot, so there is nothing more to see.
	 */
	for (r = 0; r < rounds && !warned; r++) {
		if (r % 256 == 255)
			warned = kmsg_warned(kmsg);
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
		if (ioctl(pm, PAGEMAP_SCAN, &arg) < 0) {
			if (r == 0 && (errno == EINVAL || errno == ENOTTY)) {
				stop = 1;
				pthread_join(t, NULL);
				ksft_test_result_skip("PAGEMAP_SCAN: %s\n", strerror(errno));
				ksft_finished();
			}
			ksft_exit_fail_msg("PAGEMAP_SCAN: %s\n", strerror(errno));
		}
	}
	stop = 1;
	pthread_join(t, NULL);
	ksft_print_msg("%d rounds of PAGEMAP_SCAN write-protect, %ld rounds of move_pages\n",
		       r, migrations);
	if (warned || kmsg_warned(kmsg)) {
		ksft_print_msg("uffd-wp set on a writable migration entry (page_table_check in make_uffd_wp_pte)\n");
		ksft_test_result_fail(TEST "\n");
	} else {
		ksft_test_result_pass(TEST "\n");
	}
	ksft_finished();
}
