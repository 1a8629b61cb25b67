// SPDX-License-Identifier: GPL-2.0
/*
 * smoke: assert that the booted kernel really has what the tests and the
 * benchmarks rely on, by using each feature and reading back kernel state.
 *
 * Usage: smoke [--nodes N] [--swap] [--xfs] [--no-thp] [--no-uffd-wp]
 *
 * --no-thp and --no-uffd-wp say that this VM cannot have THP (s390x under
 * TCG: no EDAT-1) or uffd-wp (not in the arch): then their absence is
 * asserted instead, so that a change either way is seen.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/magic.h>
#include <linux/userfaultfd.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "kselftest.h"
#include "vm_util.h"

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"


static int set_knob(const char *path, const char *val)
{
	int fd = open(path, O_WRONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, val, strlen(val));
	close(fd);
	return n == (ssize_t)strlen(val) ? 0 : -1;
}

static long read_knob(const char *path)
{
	char buf[64];
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -1;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = 0;
	return strtol(buf, NULL, 0);
}

/* The pagemap entry of @addr, through vm_util's reader. */
static uint64_t pagemap_entry(void *addr)
{
	static int fd = -1;

	if (fd < 0)
		fd = open("/proc/self/pagemap", O_RDONLY);
	if (fd < 0)
		ksft_exit_fail_msg("open(/proc/self/pagemap): %s\n",
				   strerror(errno));
	return pagemap_get_entry(fd, addr);
}

/* mmap len bytes aligned to align. */
static char *map_aligned(size_t len, size_t align, int flags)
{
	char *p = mmap(NULL, len + align, PROT_READ | PROT_WRITE, flags, -1, 0);
	char *q;

	if (p == MAP_FAILED)
		return NULL;
	q = (char *)(((uintptr_t)p + align - 1) & ~(align - 1));
	if (q > p)
		munmap(p, q - p);
	munmap(q + len, p + align - q);
	return q;
}

/* Fault in one folio of size kb under hugepages-<kb>kB=always. */
static void test_mthp(int kb, const char *knob, const char *stat, int flags)
{
	char path[128], sp[160];
	long before, after;
	size_t len = (size_t)kb << 10;
	char *mem;

	snprintf(path, sizeof(path), THP_DIR "/hugepages-%dkB/%s", kb, knob);
	snprintf(sp, sizeof(sp), THP_DIR "/hugepages-%dkB/stats/%s", kb, stat);
	if (set_knob(path, "always")) {
		ksft_test_result_fail("%dK %s: cannot set %s: %s\n", kb, stat,
				      path, strerror(errno));
		return;
	}
	before = read_knob(sp);
	mem = map_aligned(len, len, flags);
	if (!mem) {
		ksft_test_result_fail("%dK %s: mmap: %s\n", kb, stat,
				      strerror(errno));
		return;
	}
	memset(mem, 1, len);
	after = read_knob(sp);
	munmap(mem, len);
	set_knob(path, "never");
	ksft_test_result(before >= 0 && after == before + 1,
			 "%dK folio allocated (%s %ld -> %ld)\n", kb, stat,
			 before, after);
}

/* Pages per contpte block (arm64), 16 elsewhere, as the tests count them */
static int cont_kb(void)
{
#ifdef __aarch64__
	long n = psize() == 4096 ? 16 : psize() == 16384 ? 128 : 32;
#else
	long n = 16;
#endif
	return n * psize() / 1024;
}

static void test_pmd_thp(void)
{
	long pmd = read_knob(THP_DIR "/hpage_pmd_size");
	size_t len = pmd > 0 ? (size_t)pmd : 2UL << 20;
	size_t ram = (size_t)sysconf(_SC_PHYS_PAGES) * psize();
	uint64_t ent;
	char *mem;

	/*
	 * 512 MiB with 64K pages: an order-13 block, which a 2 GiB guest
	 * with its watermarks does not have free (seen on stock).
	 */
	if (len > ram / 8) {
		ksft_test_result_skip("PMD THP of %zu MiB: more than 1/8 of the RAM\n",
				      len >> 20);
		return;
	}
	set_knob(THP_DIR "/enabled", "madvise");
	mem = map_aligned(len, len, MAP_PRIVATE | MAP_ANONYMOUS);
	if (!mem || madvise(mem, len, MADV_HUGEPAGE)) {
		ksft_test_result_fail("PMD THP: mmap/madvise: %s\n",
				      strerror(errno));
		return;
	}
	memset(mem, 1, len);
	/* kpageflags bit 22 = THP, read for the PFN pagemap reports. */
	ent = pagemap_entry(mem + psize());
	if (ent & (1ULL << 63)) {
		uint64_t pfn = ent & ((1ULL << 55) - 1), flags = 0;
		int fd = open("/proc/kpageflags", O_RDONLY);

		if (fd >= 0 && pread(fd, &flags, 8, pfn * 8) == 8)
			ent = flags;
		else
			ent = 0;
		if (fd >= 0)
			close(fd);
		ksft_test_result(ent & (1ULL << 22),
				 "PMD THP allocated (kpageflags 0x%llx)\n",
				 (unsigned long long)ent);
	} else {
		ksft_test_result_fail("PMD THP: page not present\n");
	}
	munmap(mem, len);
}

static void test_uffd_wp(void)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP };
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);

	if (fd < 0) {
		ksft_test_result_fail("userfaultfd: %s\n", strerror(errno));
		return;
	}
	ksft_test_result(!ioctl(fd, UFFDIO_API, &api),
			 "userfaultfd with WP feature\n");
	close(fd);
}

/*
 * 0 if userfaultfd works but refuses the WP feature (EINVAL), as on an arch
 * without uffd-wp; -1 otherwise.
 */
static int test_uffd_wp_absent(void)
{
	struct uffdio_api api = { .api = UFFD_API,
				  .features = UFFD_FEATURE_PAGEFAULT_FLAG_WP };
	int fd = syscall(__NR_userfaultfd, O_CLOEXEC | UFFD_USER_MODE_ONLY);
	int ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, UFFDIO_API, &api) && errno == EINVAL ? 0 : -1;
	close(fd);
	return ret;
}

static void test_soft_dirty(void)
{
#if defined(__x86_64__) || defined(__s390x__) || defined(__powerpc64__)
	char *mem = map_aligned(psize(), psize(), MAP_PRIVATE | MAP_ANONYMOUS);

	if (!mem) {
		ksft_test_result_fail("soft-dirty: mmap\n");
		return;
	}
	mem[0] = 1;
	if (set_knob("/proc/self/clear_refs", "4")) {
		ksft_test_result_fail("soft-dirty: clear_refs: %s\n",
				      strerror(errno));
		return;
	}
	if (pagemap_entry(mem) & PM_SOFT_DIRTY) {
		ksft_test_result_fail("soft-dirty still set after clear\n");
		return;
	}
	mem[0] = 2;
	ksft_test_result(pagemap_entry(mem) & PM_SOFT_DIRTY,
			 "soft-dirty set by a write after clear_refs\n");
	munmap(mem, psize());
#else
	ksft_test_result_skip("soft-dirty: not on this arch\n");
#endif
}

static void test_nodes(int want)
{
	char path[64];
	int n = 0;

	for (;;) {
		snprintf(path, sizeof(path), "/sys/devices/system/node/node%d",
			 n);
		if (access(path, F_OK))
			break;
		n++;
	}
	ksft_test_result(n == want && !access("/proc/sys/kernel/numa_balancing",
					      F_OK),
			 "%d NUMA node(s) (want %d), numa_balancing sysctl\n",
			 n, want);
}

static void test_swap(void)
{
	char buf[256] = "";
	int fd = open("/proc/swaps", O_RDONLY);
	ssize_t n = fd >= 0 ? read(fd, buf, sizeof(buf) - 1) : -1;

	if (fd >= 0)
		close(fd);
	/* /dev/vda or /dev/vdb: arm64's virtio-mmio numbers disks in reverse */
	ksft_test_result(n > 0 && strstr(buf, "/dev/vd"),
			 "swap active on a virtio disk\n");
}

/* The XFS file system /init mounts for the write-notify test. */
static void test_xfs(void)
{
	struct statfs sfs;

	ksft_test_result(!statfs("/mnt/xfs", &sfs) && sfs.f_type == XFS_SUPER_MAGIC,
			 "XFS mounted on /mnt/xfs\n");
}

int main(int argc, char **argv)
{
	int nodes = 1, swap = 0, xfs = 0, thp = 1, uffd_wp = 1, i;

	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--nodes") && i + 1 < argc)
			nodes = atoi(argv[++i]);
		else if (!strcmp(argv[i], "--swap"))
			swap = 1;
		else if (!strcmp(argv[i], "--xfs"))
			xfs = 1;
		else if (!strcmp(argv[i], "--no-thp"))
			thp = 0;
		else if (!strcmp(argv[i], "--no-uffd-wp"))
			uffd_wp = 0;
		else
			ksft_exit_fail_msg("usage: smoke [--nodes N] [--swap] [--xfs] [--no-thp] [--no-uffd-wp]\n");
	}
	ksft_print_header();
	ksft_set_plan(4 + 4 * thp + swap + xfs);
	if (thp) {
		/* contpte-sized (64K on 4K pages, 2M on 64K) and 4 pages */
		int ckb = cont_kb(), skb = 4 * psize() / 1024;
		char a[96], b[96];

		snprintf(a, sizeof(a), THP_DIR "/hugepages-%dkB/enabled", ckb);
		snprintf(b, sizeof(b), THP_DIR "/hugepages-%dkB/shmem_enabled",
			 ckb);
		ksft_test_result(!access(a, W_OK) && !access(b, W_OK),
				 "mTHP sysfs knobs present (%dkB)\n", ckb);
		test_mthp(ckb, "enabled", "anon_fault_alloc",
			  MAP_PRIVATE | MAP_ANONYMOUS);
		test_mthp(skb, "enabled", "anon_fault_alloc",
			  MAP_PRIVATE | MAP_ANONYMOUS);
		test_mthp(ckb, "shmem_enabled", "shmem_alloc",
			  MAP_SHARED | MAP_ANONYMOUS);
		test_pmd_thp();
	} else {
		ksft_test_result(access(THP_DIR, F_OK) && errno == ENOENT,
				 "no THP on this VM, as expected (%s absent)\n",
				 THP_DIR);
	}
	if (uffd_wp)
		test_uffd_wp();
	else
		ksft_test_result(!test_uffd_wp_absent(),
				 "no uffd-wp on this arch, as expected\n");
	test_soft_dirty();
	test_nodes(nodes);
	if (swap)
		test_swap();
	if (xfs)
		test_xfs();
	ksft_finished();
}
