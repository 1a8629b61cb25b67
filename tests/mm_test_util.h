/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Helpers shared by mprotect_batch.c and mprotect_stress.c: sysfs/procfs
 * knob save/restore, THP/mTHP configuration, /proc/self/pagemap and
 * /proc/kpageflags readers, smaps parsing, fault counting and probing of
 * access permissions with SIGSEGV recovery.
 *
 * Everything here reads kernel state; nothing asserts on what the test
 * itself wrote.
 */
#ifndef MM_TEST_UTIL_H
#define MM_TEST_UTIL_H

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/types.h>

#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#ifndef MADV_COLD
#define MADV_COLD	20
#endif
#ifndef MADV_FREE
#define MADV_FREE	8
#endif
#ifndef MREMAP_FIXED
#define MREMAP_FIXED	2
#endif

#define PM_PFN_MASK		((1ULL << 55) - 1)
#define PM_SOFT_DIRTY		(1ULL << 55)
#define PM_MMAP_EXCLUSIVE	(1ULL << 56)
#define PM_UFFD_WP		(1ULL << 57)
#define PM_FILE			(1ULL << 61)
#define PM_SWAP			(1ULL << 62)
#define PM_PRESENT		(1ULL << 63)

#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define KPF_THP			22

#define THP_DIR "/sys/kernel/mm/transparent_hugepage"

static size_t pagesize;
static size_t pmdsize;

/* ------------------------------------------------------------------ */
/* Knob save/restore: restored by the process that saved them, at exit. */

#define MAX_KNOBS 64

struct knob {
	char path[160];
	char val[128];
};

static struct knob saved_knobs[MAX_KNOBS];
static int nr_saved_knobs;
static pid_t knob_owner;

static inline int read_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd;

	fd = open(path, O_RDONLY);
	if (fd < 0)
		return -errno;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -errno;
	buf[n] = '\0';
	return 0;
}

static inline int write_file(const char *path, const char *val)
{
	ssize_t n;
	int fd;

	fd = open(path, O_WRONLY);
	if (fd < 0)
		return -errno;
	n = write(fd, val, strlen(val));
	close(fd);
	if (n < 0)
		return -errno;
	return 0;
}

/* "always [madvise] never" -> "madvise"; plain "42\n" -> "42" */
static inline void knob_current(const char *raw, char *out, size_t len)
{
	const char *l = strchr(raw, '['), *r;

	if (l) {
		r = strchr(l, ']');
		if (r && (size_t)(r - l - 1) < len) {
			memcpy(out, l + 1, r - l - 1);
			out[r - l - 1] = '\0';
			return;
		}
	}
	snprintf(out, len, "%.100s", raw);
	out[strcspn(out, "\n")] = '\0';
}

static inline void knob_save(const char *path)
{
	char raw[256];
	int i;

	for (i = 0; i < nr_saved_knobs; i++)
		if (!strcmp(saved_knobs[i].path, path))
			return;
	if (nr_saved_knobs >= MAX_KNOBS || read_file(path, raw, sizeof(raw)))
		return;
	snprintf(saved_knobs[nr_saved_knobs].path,
		 sizeof(saved_knobs[0].path), "%s", path);
	knob_current(raw, saved_knobs[nr_saved_knobs].val,
		     sizeof(saved_knobs[0].val));
	nr_saved_knobs++;
}

static inline void knobs_restore(void)
{
	int i;

	if (getpid() != knob_owner)
		return;
	for (i = nr_saved_knobs - 1; i >= 0; i--)
		write_file(saved_knobs[i].path, saved_knobs[i].val);
}

/* Sizes (kB) of the hugepages-<N>kB directories this kernel offers. */
static int thp_sizes_kb[32];
static int nr_thp_sizes;

static inline void knobs_save_all(void)
{
	static const char * const fixed[] = {
		THP_DIR "/enabled",
		THP_DIR "/shmem_enabled",
		THP_DIR "/defrag",
		THP_DIR "/khugepaged/defrag",
		"/proc/sys/kernel/numa_balancing",
		"/proc/sys/vm/compaction_proactiveness",
		"/sys/kernel/debug/sched/numa_balancing/scan_delay_ms",
		"/sys/kernel/debug/sched/numa_balancing/scan_period_min_ms",
		"/sys/kernel/debug/sched/numa_balancing/scan_period_max_ms",
		"/sys/kernel/debug/sched/numa_balancing/scan_size_mb",
		"/proc/sys/kernel/numa_balancing_scan_delay_ms",
		"/proc/sys/kernel/numa_balancing_scan_period_min_ms",
		"/proc/sys/kernel/numa_balancing_scan_period_max_ms",
		"/proc/sys/kernel/numa_balancing_scan_size_mb",
	};
	char path[160];
	unsigned int i;
	int kb;

	knob_owner = getpid();
	for (i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++)
		knob_save(fixed[i]);
	nr_thp_sizes = 0;
	for (kb = 8; kb <= 2048 * 1024 && nr_thp_sizes < 32; kb *= 2) {
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%dkB", kb);
		if (access(path, F_OK))
			continue;
		thp_sizes_kb[nr_thp_sizes++] = kb;
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%dkB/enabled",
			 kb);
		knob_save(path);
		snprintf(path, sizeof(path),
			 THP_DIR "/hugepages-%dkB/shmem_enabled", kb);
		knob_save(path);
	}
	atexit(knobs_restore);
}

/*
 * Entries of a page table, where no hpage_pmd_size tells (THP off): 256 on
 * s390 (1 MiB per table); on powerpc Book3S-64 with 64K pages 32 under the
 * radix MMU (2 MiB) and 256 under hash (16 MiB), as /proc/cpuinfo's "MMU"
 * line tells; a page of 8-byte entries elsewhere.
 */
static inline size_t ptrs_per_pte(void)
{
#if defined(__s390x__)
	return 256;
#elif defined(__powerpc64__)
	char line[128];
	bool radix = false;
	FILE *f = fopen("/proc/cpuinfo", "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "MMU", 3) && strstr(line, "Radix"))
			radix = true;
	if (f)
		fclose(f);
	if (pagesize == 65536)
		return radix ? 32 : 256;
	return 512;
#else
	return pagesize / 8;
#endif
}

/*
 * Pages in a contiguous-PTE block, the unit in which arm64 maps a large
 * folio (contpte): its entries share one TLB entry, and ptep_get() of any of
 * them reports the accessed and dirty bits of the whole block. Elsewhere,
 * a block of 16 pages stands for "more than one PTE".
 */
static inline size_t cont_pages(void)
{
#ifdef __aarch64__
	return pagesize == 4096 ? 16 : pagesize == 16384 ? 128 : 32;
#else
	return 16;
#endif
}

/*
 * Does the CPU set the dirty bit of a writable PTE itself, so that a write
 * to a clean writable page takes no fault? x86 always; arm64 with
 * FEAT_HAFDBS and CONFIG_ARM64_HW_AFDBM, which every distribution kernel
 * has and the test VMs provide (neoverse-n1); a test asserts it. s390
 * tracks dirtiness in software, and other arches are not asserted here.
 */
static inline bool hw_dirty_expected(void)
{
#if defined(__x86_64__) || defined(__aarch64__)
	return true;
#else
	return false;
#endif
}

/* Bytes of one contpte block (a 16-page stand-in elsewhere). */
static inline size_t cont_size(void)
{
	return cont_pages() * pagesize;
}

/* Does hugepages-<kb>kB have @knob ("enabled": anon, "shmem_enabled")? */
static inline bool thp_size_has(unsigned long kb, const char *knob)
{
	char path[160];

	snprintf(path, sizeof(path), THP_DIR "/hugepages-%lukB/%s", kb, knob);
	return !access(path, F_OK);
}

/*
 * Largest page-cache folio: the largest size with a shmem_enabled knob
 * (6.12 gives file orders 1..MAX_PAGECACHE_ORDER one; 64K pages: 128M,
 * below the 512M PMD). 0 without THP.
 */
static inline size_t max_file_folio(void)
{
	size_t best = 0;
	int i;

	for (i = 0; i < nr_thp_sizes; i++)
		if (thp_size_has(thp_sizes_kb[i], "shmem_enabled") &&
		    (size_t)thp_sizes_kb[i] * 1024 > best)
			best = (size_t)thp_sizes_kb[i] * 1024;
	return best;
}

/* RAM of the machine (bytes), for budgets that must fit a 2 GiB guest. */
static inline size_t mem_total(void)
{
	return (size_t)sysconf(_SC_PHYS_PAGES) * pagesize;
}

static inline void util_init(void)
{
	char buf[64];

	pagesize = getpagesize();
	pmdsize = 0;
	if (!read_file(THP_DIR "/hpage_pmd_size", buf, sizeof(buf)))
		pmdsize = strtoul(buf, NULL, 10);
	if (!pmdsize)
		pmdsize = ptrs_per_pte() * pagesize;
}

/* Set the knobs of every mTHP size, anon and shmem, to "never". */
static inline void thp_sizes_never(void)
{
	char path[160];
	int i;

	for (i = 0; i < nr_thp_sizes; i++) {
		snprintf(path, sizeof(path), THP_DIR "/hugepages-%dkB/enabled",
			 thp_sizes_kb[i]);
		if (!access(path, F_OK))
			write_file(path, "never");
		snprintf(path, sizeof(path),
			 THP_DIR "/hugepages-%dkB/shmem_enabled",
			 thp_sizes_kb[i]);
		if (!access(path, F_OK))
			write_file(path, "never");
	}
}

/*
 * Configure THP so that anon (or anon shmem) faults allocate exactly
 * folios of @kb kB (kb == pagesize/1024: no large folios at all).
 * Returns 0 or a negative errno; *why describes the failure.
 */
static inline int thp_configure(unsigned long kb, bool shmem, const char **why)
{
	unsigned long pmd_kb = pmdsize / 1024;
	char path[160];
	int ret;

	*why = NULL;
	if (kb * 1024 < pagesize) {
		*why = "folio smaller than the base page";
		return -EINVAL;
	}
	/* Keep unrelated machinery from moving our pages around. */
	write_file("/proc/sys/kernel/numa_balancing", "0");
	write_file("/proc/sys/vm/compaction_proactiveness", "0");
	write_file(THP_DIR "/defrag", "madvise");

	thp_sizes_never();
	/* The top level only matters via "inherit"; keep it out of the way. */
	if (access(THP_DIR "/enabled", F_OK)) {
		if (kb * 1024 == pagesize)
			return 0;
		*why = "no THP support (" THP_DIR " missing)";
		return -ENOENT;
	}
	write_file(THP_DIR "/enabled", kb == pmd_kb && !shmem ? "always" :
		   "madvise");
	write_file(THP_DIR "/shmem_enabled", "never");
	if (kb * 1024 == pagesize)
		return 0;

	if (shmem) {
		snprintf(path, sizeof(path),
			 THP_DIR "/hugepages-%lukB/shmem_enabled", kb);
		ret = write_file(path, "always");
		if (ret && kb == pmd_kb &&
		    !thp_size_has(kb, "enabled")) {
			/*
			 * Older layout (no hugepages-<pmd>kB at all): PMD-size
			 * shmem via the top level. With the directory but no
			 * shmem_enabled, the PMD order exceeds the page cache's
			 * (64K pages: 13 > 11) and no knob gives such folios.
			 */
			ret = write_file(THP_DIR "/shmem_enabled", "always");
		}
		if (ret) {
			*why = thp_size_has(kb, "enabled") ?
			       "no shmem folios of this size (above the page cache's largest order)" :
			       "cannot enable this shmem folio size";
			return ret;
		}
		return 0;
	}
	snprintf(path, sizeof(path), THP_DIR "/hugepages-%lukB/enabled", kb);
	ret = write_file(path, "always");
	if (ret && kb != pmd_kb) {
		*why = thp_size_has(kb, "shmem_enabled") ?
		       "no anon folios of this order (order 1)" :
		       "cannot enable this mTHP size";
		return ret;
	}
	return 0;
}

/*
 * Allow no new large folio of any size, anonymous or shmem. This also stops
 * khugepaged. Folios already allocated keep their size.
 */
static inline void thp_all_never(void)
{
	thp_sizes_never();
	if (!access(THP_DIR "/enabled", F_OK)) {
		write_file(THP_DIR "/enabled", "never");
		write_file(THP_DIR "/shmem_enabled", "never");
	}
}

/* ------------------------------------------------------------------ */
/* pagemap / kpageflags */

static int pagemap_fd = -1;
static int kpageflags_fd = -1;

static inline int pagemap_open(void)
{
	if (pagemap_fd < 0)
		pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	if (kpageflags_fd < 0)
		kpageflags_fd = open("/proc/kpageflags", O_RDONLY);
	return pagemap_fd < 0 ? -errno : 0;
}

/* Read pagemap entries for @n pages starting at @addr into @out. */
static inline int pagemap_read(const void *addr, size_t n, uint64_t *out)
{
	off_t off = (uintptr_t)addr / pagesize * sizeof(uint64_t);
	size_t want = n * sizeof(uint64_t), done = 0;
	ssize_t r;

	while (done < want) {
		r = pread(pagemap_fd, (char *)out + done, want - done,
			  off + done);
		if (r <= 0)
			return r < 0 ? -errno : -EIO;
		done += r;
	}
	return 0;
}

static inline uint64_t pagemap_one(const void *addr)
{
	uint64_t e = 0;

	if (pagemap_read(addr, 1, &e))
		return 0;
	return e;
}

static inline uint64_t kpageflags_get(uint64_t pfn)
{
	uint64_t f = 0;

	if (kpageflags_fd < 0 ||
	    pread(kpageflags_fd, &f, sizeof(f), pfn * sizeof(f)) != sizeof(f))
		return 0;
	return f;
}

/*
 * Check that [mem, mem+size) is populated by folios of exactly
 * @folio bytes, naturally aligned in physical memory. Uses the PFNs from
 * pagemap and the compound head/tail bits from /proc/kpageflags.
 * Returns 0 when it matches; otherwise writes a reason into @why.
 */
static inline int check_folio_shape(const char *mem, size_t size, size_t folio,
			     char *why, size_t whylen)
{
	size_t npages = size / pagesize, fpages = folio / pagesize;
	uint64_t *pm, head_pfn = 0, kf;
	size_t i;
	int ret = 0;

	pm = calloc(npages, sizeof(*pm));
	if (!pm || pagemap_read(mem, npages, pm)) {
		snprintf(why, whylen, "cannot read pagemap");
		free(pm);
		return -1;
	}
	if (kpageflags_fd < 0) {
		snprintf(why, whylen, "/proc/kpageflags not readable");
		free(pm);
		return -1;
	}
	for (i = 0; i < npages && !ret; i++) {
		uint64_t pfn = pm[i] & PM_PFN_MASK;

		if (!(pm[i] & PM_PRESENT) || !pfn) {
			snprintf(why, whylen, "page %zu not present (%#llx)",
				 i, (unsigned long long)pm[i]);
			ret = -1;
			break;
		}
		kf = kpageflags_get(pfn);
		if (fpages == 1) {
			if (kf & ((1ULL << KPF_COMPOUND_HEAD) |
				  (1ULL << KPF_COMPOUND_TAIL))) {
				snprintf(why, whylen,
					 "page %zu is part of a large folio",
					 i);
				ret = -1;
			}
			continue;
		}
		if (i % fpages == 0) {
			head_pfn = pfn;
			if (pfn % fpages || !(kf & (1ULL << KPF_COMPOUND_HEAD))) {
				snprintf(why, whylen,
					 "page %zu (pfn %#llx) is no aligned folio head",
					 i, (unsigned long long)pfn);
				ret = -1;
			}
		} else if (pfn != head_pfn + i % fpages ||
			   !(kf & (1ULL << KPF_COMPOUND_TAIL))) {
			snprintf(why, whylen,
				 "page %zu (pfn %#llx) is not a tail of the folio at pfn %#llx",
				 i, (unsigned long long)pfn,
				 (unsigned long long)head_pfn);
			ret = -1;
		}
	}
	/* The folio must not be larger: the page after each folio is a head. */
	for (i = fpages; fpages > 1 && !ret && i < npages; i += fpages) {
		kf = kpageflags_get(pm[i] & PM_PFN_MASK);
		if (!(kf & (1ULL << KPF_COMPOUND_HEAD))) {
			snprintf(why, whylen, "folio larger than %zu kB",
				 folio / 1024);
			ret = -1;
		}
	}
	free(pm);
	return ret;
}

/* ------------------------------------------------------------------ */
/* smaps: value (kB) of @field for the VMA containing @addr, -1 if none */

static inline long smaps_field(const void *addr, const char *field)
{
	unsigned long start, end, a = (uintptr_t)addr;
	size_t flen = strlen(field);
	bool in = false;
	char line[512];
	long val = -1;
	FILE *f;

	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    strchr(line, '-') < strchr(line, ' ')) {
			if (in)
				break;
			in = a >= start && a < end;
			continue;
		}
		if (in && !strncmp(line, field, flen) && line[flen] == ':') {
			val = strtol(line + flen + 1, NULL, 10);
			break;
		}
	}
	fclose(f);
	return val;
}

/* Number of VMAs intersecting [addr, addr+len) according to /proc/self/maps */
static inline int count_vmas(const void *addr, size_t len)
{
	unsigned long start, end, a = (uintptr_t)addr;
	char line[512];
	int n = 0;
	FILE *f;

	f = fopen("/proc/self/maps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &start, &end) != 2)
			continue;
		if (start < a + len && end > a)
			n++;
	}
	fclose(f);
	return n;
}

/* ------------------------------------------------------------------ */
/* /proc/vmstat */

static inline long long vmstat_get(const char *name)
{
	size_t len = strlen(name);
	char line[256];
	long long v = -1;
	FILE *f;

	f = fopen("/proc/vmstat", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, name, len) && line[len] == ' ') {
			v = atoll(line + len + 1);
			break;
		}
	}
	fclose(f);
	return v;
}

/* ------------------------------------------------------------------ */
/* fault counting and access probing */

#ifndef RUSAGE_THREAD
#define RUSAGE_THREAD 1
#endif

/* Minor faults of the calling thread (other threads' faults don't count). */
static inline long minflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		return -1;
	return ru.ru_minflt;
}

/* Per thread: a probe's SIGSEGV is delivered to the thread that probes. */
static __thread sigjmp_buf probe_env;
static __thread volatile sig_atomic_t probing;

static inline void probe_sigsegv(int sig)
{
	if (probing) {
		probing = 0;
		siglongjmp(probe_env, 1);
	}
	signal(sig, SIG_DFL);
	raise(sig);
}

static inline int probe_install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = probe_sigsegv;
	sa.sa_flags = SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	if (sigaction(SIGSEGV, &sa, NULL))
		return -errno;
	if (sigaction(SIGBUS, &sa, NULL))
		return -errno;
	return 0;
}

/* true if reading *p works */
static inline bool probe_read(const volatile char *p)
{
	if (sigsetjmp(probe_env, 1))
		return false;
	probing = 1;
	(void)*p;
	probing = 0;
	return true;
}

/* true if writing @v to *p works */
static inline bool probe_write(volatile char *p, char v)
{
	if (sigsetjmp(probe_env, 1))
		return false;
	probing = 1;
	*p = v;
	probing = 0;
	return true;
}

/* ------------------------------------------------------------------ */
/* page patterns: every 8-byte word encodes (tag, page index, word) */

static inline uint64_t pattern_word(uint32_t tag, size_t page, size_t w)
{
	return ((uint64_t)tag << 40) ^ ((uint64_t)page << 12) ^ w ^
	       0x5a5a000000000000ULL;
}

static inline void fill_page(char *p, uint32_t tag, size_t page)
{
	uint64_t *q = (uint64_t *)p;
	size_t w;

	for (w = 0; w < pagesize / 8; w++)
		q[w] = pattern_word(tag, page, w);
}

/* returns the index of the first bad word or -1 */
static inline long check_page(const char *p, uint32_t tag, size_t page)
{
	const volatile uint64_t *q = (const volatile uint64_t *)p;
	size_t w;

	for (w = 0; w < pagesize / 8; w++)
		if (q[w] != pattern_word(tag, page, w))
			return w;
	return -1;
}

static inline bool page_is_zero(const char *p)
{
	const volatile uint64_t *q = (const volatile uint64_t *)p;
	size_t w;

	for (w = 0; w < pagesize / 8; w++)
		if (q[w])
			return false;
	return true;
}

/* number of online NUMA nodes with memory */
static inline int numa_nodes_with_memory(void)
{
	char buf[256], *p;
	int n = 0, a, b;

	if (read_file("/sys/devices/system/node/has_memory", buf, sizeof(buf)))
		return 1;
	p = buf;
	while (*p && *p != '\n') {
		if (sscanf(p, "%d-%d", &a, &b) == 2)
			n += b - a + 1;
		else if (sscanf(p, "%d", &a) == 1)
			n++;
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return n;
}

#endif /* MM_TEST_UTIL_H */
