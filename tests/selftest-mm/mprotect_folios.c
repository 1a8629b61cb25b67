// SPDX-License-Identifier: GPL-2.0-only
/*
 * mprotect() on large folios.
 *
 * mprotect() may change the PTEs that map one large folio together, yet
 * every PTE keeps state of its own: its page may be exclusive or COW-shared
 * with a child, dirty or clean, soft-dirty, uffd-wp protected, and in a
 * shared file mapping it may or may not have been notified of a write yet.
 * Each test builds one such mix of per-page state inside large folios,
 * changes the protection of whole folios or of ranges that start and end
 * inside them, and then checks per page what the kernel reports: presence
 * and PFN in pagemap, protection (probed), write faults, the exclusive,
 * soft-dirty and uffd-wp bits, and the contents.
 *
 * The memory shapes are base pages, every anonymous and shmem mTHP size
 * the kernel supports, PMD-sized THPs mapped by a PMD and by PTEs, memfd
 * pages and, given a directory on XFS as argument, page cache folios of a
 * file. Needs root: PFNs, /proc/kpageflags and the THP settings.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <stdbool.h>
#include <stdint.h>
#include <unistd.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <signal.h>
#include <time.h>
#include <linux/fs.h>
#include <linux/kernel-page-flags.h>
#include <linux/magic.h>
#include <linux/memfd.h>
#include <linux/mempolicy.h>
#include <linux/mman.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "../kselftest.h"
#include "vm_util.h"
#include "thp_settings.h"

static size_t pagesize;
static size_t pmdsize;
static bool have_thp;
static unsigned int pmd_order;
static unsigned long anon_orders, shmem_orders;
static int pagemap_fd, kpageflags_fd;
static const char *file_dir;
static pid_t main_pid;
static char test_desc[192];
static const char *skip_reason;
static int nr_logged;

enum backing { ANON, SHMEM, MEMFD_SHARED, MEMFD_PRIVATE, FILE_SHARED };

#define ON(b)		(1U << (b))
#define ON_PRIVATE	(ON(ANON) | ON(MEMFD_PRIVATE))
#define ON_MEMORY	(ON_PRIVATE | ON(SHMEM) | ON(MEMFD_SHARED))

/* Which folios a test case applies to */
#define FOLIO_BASE	0x1	/* order-0 pages */
#define FOLIO_PTE	0x2	/* large folios mapped by PTEs */
#define FOLIO_PMD	0x4	/* THPs mapped by a PMD */
#define FOLIO_ANY	(FOLIO_BASE | FOLIO_PTE | FOLIO_PMD)

struct shape {
	enum backing backing;
	unsigned int order;	/* folio order; 0 for a file: mixed sizes */
	bool pmd_mapped;
	bool madv_huge;		/* order-0 pages in a MADV_HUGEPAGE VMA */
};

struct region {
	const struct shape *shape;
	char *resv, *mem;
	size_t resv_size, size, npages, fpages;
	int fd;
	bool private;		/* COW semantics */
	bool may_unmap;		/* splitting a shmem PMD zaps its PTEs */
	int thp_pushed;		/* THP settings to pop */
	unsigned long *pfn;	/* expected PFN per page */
	unsigned int *tag;	/* expected contents per page */
	int *prot;		/* expected protection per page */
	long *faults;		/* faults of the page's last write, or -1 */
	size_t *start;		/* first page of the page's folio (files) */
	unsigned char *mark[4];	/* per-page scratch maps for the tests */
};

typedef int (*test_fn)(struct region *r);

#define SKIPPED		(-1)

static int skip(const char *why)
{
	skip_reason = why;
	return SKIPPED;
}

static int setup_skip(const char *why)
{
	skip_reason = why;
	return KSFT_SKIP;
}

/* Log a failed check (the first few per test), count it. */
static __printf(1, 2) int fail_msg(const char *fmt, ...)
{
	char msg[256];
	va_list ap;

	if (nr_logged++ >= 8)
		return 1;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	ksft_print_msg("%s", msg);
	return 1;
}

/* Setting up the region failed at @step, whose errno is still set */
static int setup_fail(const char *step)
{
	fail_msg("setting up the memory failed: %s: %s\n", step,
		 strerror(errno));
	return KSFT_FAIL;
}

static char *page_addr(struct region *r, size_t i)
{
	return r->mem + i * pagesize;
}

/*
 * The minor faults of the calling thread. Every call copies out to the
 * same struct: once a call has written it, the next one takes no fault on
 * it (try_fill_counted()).
 */
static long minflt(void)
{
	static struct rusage ru;

	if (getrusage(RUSAGE_THREAD, &ru))
		ksft_exit_fail_perror("getrusage");
	return ru.ru_minflt;
}

/* The first value of @path's lines that @fmt reads ("Name: %ld kB"), or -1 */
static long proc_kb(const char *path, const char *fmt)
{
	char line[128];
	long kb = -1;
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, fmt, &kb) == 1)
			break;
	if (f)
		fclose(f);
	return kb;
}

/* VmPTE of this process: its page tables, in kB */
static long vm_pte_kb(void)
{
	long kb = proc_kb("/proc/self/status", "VmPTE: %ld kB");

	if (kb < 0)
		ksft_exit_fail_msg("no VmPTE in /proc/self/status\n");
	return kb;
}

#define PTE_PROBE_SPANS 8

/* Read-fault the page at @off of each of the spans at @base */
static void populate_spans(char *base, size_t span, size_t off)
{
	int i;

	for (i = 0; i < PTE_PROBE_SPANS; i++)
		if (madvise(base + i * span + off, pagesize, MADV_POPULATE_READ))
			ksft_exit_fail_perror("MADV_POPULATE_READ");
}

/*
 * PTEs in a page table, without THP's PMD size (no THP built in, or none
 * the MMU can map): not always a page of them (s390 and powerpc's hash MMU
 * with 64K pages hold 256, radix with 64K pages 32). Count the pages past
 * an aligned page that take another page table: fault page n = 1, 2, 4, ...
 * until VmPTE grows. VmPTE counts kB; a step faults eight spans, and eight
 * of the smallest tables (256 bytes) make one. VmPTE counts the whole mm:
 * this runs before any thread.
 */
static size_t ptes_per_table(void)
{
	size_t max = pagesize / sizeof(uint64_t), span = max * pagesize, n;
	size_t len = (PTE_PROBE_SPANS + 1) * span;
	char *p = MAP_FAILED, *base;
	long kb;

	if (span / pagesize == max && len / span == PTE_PROBE_SPANS + 1)
		p = mmap(NULL, len, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS,
			 -1, 0);
	if (p == MAP_FAILED) {
		ksft_print_msg("no room to count PTEs per table: taking %zu\n",
			       max);
		return max;
	}
	base = (char *)(((uintptr_t)p + span - 1) & ~(span - 1));
	populate_spans(base, span, 0);
	/* A first read: stdio's buffer must not take a page table later. */
	vm_pte_kb();
	kb = vm_pte_kb();
	for (n = 1; n < max; n *= 2) {
		populate_spans(base, span, n * pagesize);
		if (vm_pte_kb() != kb)
			break;
	}
	munmap(p, len);
	return n;
}

/*
 * Pages of a contpte block on arm64, a stand-in for "several PTEs" else.
 * Mirrors arm64's CONT_PTES: 16, 128 and 32 with 4K, 16K and 64K pages.
 */
static size_t cont_pages(void)
{
#ifdef __aarch64__
	return pagesize == 4096 ? 16 : pagesize == 16384 ? 128 : 32;
#else
	return 16;
#endif
}

/* Contents: every word of a page encodes (tag, page index, word index). */
static uint64_t pattern(unsigned int tag, size_t page, size_t word)
{
	return ((uint64_t)tag << 40) ^ ((uint64_t)page << 12) ^ word ^
	       0x5a5a000000000000ULL;
}

static void fill_page(char *p, unsigned int tag, size_t page)
{
	uint64_t *q = (uint64_t *)p;
	size_t w;

	for (w = 0; w < pagesize / sizeof(*q); w++)
		q[w] = pattern(tag, page, w);
}

static bool page_has(const char *p, unsigned int tag, size_t page)
{
	const uint64_t *q = (const uint64_t *)p;
	size_t w;

	for (w = 0; w < pagesize / sizeof(*q); w++)
		if (q[w] != pattern(tag, page, w))
			return false;
	return true;
}

static bool page_is_zero(const char *p)
{
	const uint64_t *q = (const uint64_t *)p;
	size_t w;

	for (w = 0; w < pagesize / sizeof(*q); w++)
		if (q[w])
			return false;
	return true;
}

/* Accesses that may raise SIGSEGV: probe_handler() jumps back here. */
static sigjmp_buf probe_env;
static int probing;

static void set_probing(int on)
{
	__atomic_store_n(&probing, on, __ATOMIC_SEQ_CST);
}

static void probe_handler(int sig)
{
	if (!__atomic_load_n(&probing, __ATOMIC_SEQ_CST)) {
		signal(sig, SIG_DFL);
		raise(sig);
		return;
	}
	set_probing(0);
	siglongjmp(probe_env, 1);
}

static bool try_read(const char *p)
{
	if (sigsetjmp(probe_env, 1))
		return false;
	set_probing(1);
	(void)__atomic_load_n(p, __ATOMIC_RELAXED);
	set_probing(0);
	return true;
}

static bool try_write(char *p, char c)
{
	if (sigsetjmp(probe_env, 1))
		return false;
	set_probing(1);
	__atomic_store_n(p, c, __ATOMIC_RELAXED);
	set_probing(0);
	return true;
}

/*
 * Store the first @words words of @page's pattern for @tag at @p; false on
 * SIGSEGV. *@faults gets the minor faults of these stores alone, for the
 * checks that expect none: after fork() or clear_refs, our own data may be
 * write-protected too, and a fault on it inside the window would count
 * against the page. So sigsetjmp() and set_probing() write the probe's
 * state (.bss) before the first count, and a minflt() before that writes
 * the one struct that every getrusage() copies out to: the kernel takes
 * its count before the copy-out. One source the window cannot close: a
 * preemption inside it makes the kernel write the thread's rseq area (in
 * its TLS) on the way back, which may be write-protected too: a fault
 * there would be counted against the page. That is rare, and most checks
 * that a write must fault have a second witness.
 */
static bool try_fill_counted(char *p, unsigned int tag, size_t page,
			     size_t words, long *faults)
{
	uint64_t *q = (uint64_t *)p;
	size_t w;
	long f;

	minflt();
	if (sigsetjmp(probe_env, 1))
		return false;
	set_probing(1);
	f = minflt();
	for (w = 0; w < words; w++)
		q[w] = pattern(tag, page, w);
	*faults = minflt() - f;
	set_probing(0);
	return true;
}

static uint64_t kpageflags_get(unsigned long pfn)
{
	uint64_t flags;

	if (pread(kpageflags_fd, &flags, sizeof(flags),
		  pfn * sizeof(flags)) != sizeof(flags))
		return 0;
	return flags;
}

/*
 * Group the pages of @r into folios by their PFNs and compound flags:
 * start[i] is the index of the first page of page i's folio. Returns the
 * number of large folios, or -1 if a page is not present.
 */
static int folio_starts(struct region *r)
{
	size_t i, j;
	int large = 0;

	for (i = 0; i < r->npages; i = j) {
		if (r->pfn[i] == -1UL)
			return -1;
		r->start[i] = i;
		for (j = i + 1; j < r->npages; j++) {
			if (r->pfn[j] != r->pfn[i] + (j - i) ||
			    !(kpageflags_get(r->pfn[j]) & BIT_ULL(KPF_COMPOUND_TAIL)))
				break;
			r->start[j] = i;
		}
		large += j - i > 1;
	}
	return large;
}

static void refresh_pfns(struct region *r)
{
	size_t i;

	for (i = 0; i < r->npages; i++)
		r->pfn[i] = pagemap_get_pfn(pagemap_fd, page_addr(r, i));
}

/* Every folio is naturally aligned and exactly r->fpages pages large. */
static const char *check_folios(struct region *r)
{
	size_t f = r->fpages, i;
	bool head, large = f > 1;
	uint64_t kpf;

	refresh_pfns(r);
	if (folio_starts(r) < 0)
		return "a page is not present";
	for (i = 0; i < r->npages; i++) {
		if (r->start[i] != i - i % f)
			return "did not get folios of this size";
		if (i % f)
			continue;
		kpf = kpageflags_get(r->pfn[i]);
		head = kpf & BIT_ULL(KPF_COMPOUND_HEAD);
		if (r->pfn[i] % f || kpf & BIT_ULL(KPF_COMPOUND_TAIL) || head != large)
			return "did not get aligned folios of this size";
	}
	return NULL;
}

/* The PMD mappings are all there (PMD-mapped THP) or none. */
static bool pmd_mappings_ok(struct region *r)
{
	int nr = r->shape->pmd_mapped ? r->size / pmdsize : 0;

	if (!have_thp)
		return true;
	if (r->shape->backing == FILE_SHARED)
		return check_huge_file(r->mem, nr, pmdsize);
	if (r->shape->backing == SHMEM || r->shape->backing == MEMFD_SHARED)
		return check_huge_shmem(r->mem, nr, pmdsize);
	return check_huge_anon(r->mem, nr, pmdsize);
}

static int check_pmd_mappings(struct region *r)
{
	return pmd_mappings_ok(r) ? 0 : fail_msg("smaps: the PMD mappings changed\n");
}

static int set_prot(struct region *r, size_t lo, size_t hi, int prot)
{
	size_t i;

	if (mprotect(page_addr(r, lo), (hi - lo) * pagesize, prot))
		return fail_msg("mprotect([%zu, %zu), %d): %s\n", lo, hi, prot,
				strerror(errno));
	for (i = lo; i < hi; i++)
		r->prot[i] = prot;
	return 0;
}

/* Write @tag to page @i if it is writable, counting the faults taken. */
static int write_page(struct region *r, size_t i, unsigned int tag)
{
	bool ok;

	r->faults[i] = -1;
	if (!(r->prot[i] & PROT_WRITE))
		return 0;
	ok = try_fill_counted(page_addr(r, i), tag, i,
			      pagesize / sizeof(uint64_t), &r->faults[i]);
	r->tag[i] = tag;
	return ok ? 0 : fail_msg("page %zu: write raised SIGSEGV\n", i);
}

static int write_pages(struct region *r, size_t lo, size_t hi,
		       unsigned int tag)
{
	int errs = 0;
	size_t i;

	for (i = lo; i < hi; i++)
		errs += write_page(r, i, tag);
	return errs;
}

/* Write @tag to the pages in @marks; the others get no fault count. */
static int write_marked(struct region *r, const unsigned char *marks,
			unsigned int tag)
{
	int errs = 0;
	size_t i;

	for (i = 0; i < r->npages; i++) {
		r->faults[i] = -1;
		if (marks[i])
			errs += write_page(r, i, tag);
	}
	return errs;
}

/* Every page in [lo, hi) written last took a fault (or none did). */
static int check_faults(struct region *r, size_t lo, size_t hi, bool fault)
{
	int errs = 0;
	bool faulted;
	size_t i;

	for (i = lo; i < hi; i++) {
		faulted = r->faults[i] > 0;
		if (r->faults[i] >= 0 && faulted != fault)
			errs += fail_msg("page %zu: write took %ld faults, expected %s\n",
					 i, r->faults[i], fault ? "some" : "none");
	}
	return errs;
}

#define CHK_PFN		0x1	/* present pages keep their PFN */
#define CHK_PROT	0x2	/* probe read and write permission */
#define CHK_DATA	0x4	/* readable pages hold their tag */
#define CHK_ALL		(CHK_PFN | CHK_PROT | CHK_DATA)

static int check_prot(struct region *r, size_t i)
{
	uint64_t word = pattern(r->tag[i], i, 0);
	char *p = page_addr(r, i), c;
	bool rd, wr;

	memcpy(&c, &word, 1);
	rd = try_read(p);
	wr = try_write(p, c);
	if (rd == !!(r->prot[i] & PROT_READ) &&
	    wr == !!(r->prot[i] & PROT_WRITE))
		return 0;
	return fail_msg("page %zu: protection %d, but read %d write %d\n", i,
			r->prot[i], rd, wr);
}

static int check_page(struct region *r, size_t i, unsigned int what)
{
	bool touched = (what & CHK_DATA) && (r->prot[i] & PROT_READ);
	uint64_t e = pagemap_get_entry(pagemap_fd, page_addr(r, i));
	int errs = 0;

	if (!(e & PM_PRESENT) && !r->may_unmap)
		errs += fail_msg("page %zu: not present\n", i);
	if ((e & PM_PRESENT) && (what & CHK_PFN) && PAGEMAP_PFN(e) != r->pfn[i])
		errs += fail_msg("page %zu: pfn %#llx, expected %#lx\n", i,
				 PAGEMAP_PFN(e), r->pfn[i]);
	if (what & CHK_PROT)
		errs += check_prot(r, i);
	if (touched && !page_has(page_addr(r, i), r->tag[i], i))
		errs += fail_msg("page %zu: contents lost (tag %u)\n", i,
				 r->tag[i]);
	/* A page zapped by a PMD split comes back from its folio. */
	if (!(e & PM_PRESENT) && touched && (what & CHK_PFN) &&
	    pagemap_get_pfn(pagemap_fd, page_addr(r, i)) != r->pfn[i])
		errs += fail_msg("page %zu: mapped again elsewhere\n", i);
	return errs;
}

static int check_pages(struct region *r, size_t lo, size_t hi,
		       unsigned int what)
{
	int errs = 0;
	size_t i;

	for (i = lo; i < hi; i++)
		errs += check_page(r, i, what);
	return errs;
}

/* Pages in @which (all if NULL) are mapped exclusively, or not. */
static int check_exclusive(struct region *r, const unsigned char *which,
			   bool excl)
{
	int errs = 0;
	uint64_t e;
	size_t i;

	for (i = 0; i < r->npages; i++) {
		if (which && !which[i])
			continue;
		e = pagemap_get_entry(pagemap_fd, page_addr(r, i));
		if (!!(e & PM_MMAP_EXCLUSIVE) != excl)
			errs += fail_msg("page %zu: %sexclusive\n", i,
					 excl ? "not " : "");
	}
	return errs;
}

/* The per-page bits read from the kernel in @got equal @want. */
static int check_bits(struct region *r, const unsigned char *got,
		      const unsigned char *want, const char *what)
{
	int errs = 0;
	size_t i;

	for (i = 0; i < r->npages; i++)
		if (!!got[i] != !!want[i])
			errs += fail_msg("page %zu: %s %d, expected %d\n", i,
					 what, !!got[i], !!want[i]);
	return errs;
}

static void pagemap_bits(struct region *r, uint64_t bit, unsigned char *got)
{
	size_t i;

	for (i = 0; i < r->npages; i++)
		got[i] = !!(pagemap_get_entry(pagemap_fd, page_addr(r, i)) & bit);
}

/* ------------------------------------------------------------------ */
/* System knobs that the THP settings do not cover */

/* A sysctl or debugfs knob, and its value before the test */
struct knob {
	const char *path;
	unsigned long saved;
	bool present;
};

enum {
	KNOB_NUMA,
	KNOB_COMPACT,
	NR_KNOBS
};

static struct knob knobs[NR_KNOBS] = {
	[KNOB_NUMA] = { "/proc/sys/kernel/numa_balancing" },
	[KNOB_COMPACT] = { "/proc/sys/vm/compaction_proactiveness" },
};

static void set_knob(const struct knob *k, unsigned long val)
{
	if (k->present)
		write_num(k->path, val);
}

static void save_knobs(struct knob *k, int nr)
{
	for (; nr--; k++) {
		k->present = !access(k->path, R_OK | W_OK);
		if (k->present)
			k->saved = read_num(k->path);
	}
}

static void restore_knobs(const struct knob *k, int nr)
{
	for (; nr--; k++)
		set_knob(k, k->saved);
}

/* At exit of the process that saved them (save_all()), not of a child */
static void restore_all(void)
{
	if (getpid() != main_pid)
		return;
	restore_knobs(knobs, NR_KNOBS);
	if (have_thp)
		thp_restore_settings();
}

static void save_all(void)
{
	main_pid = getpid();
	save_knobs(knobs, NR_KNOBS);
	if (have_thp)
		thp_save_settings();
	atexit(restore_all);
	/* Nothing may move the pages around while they are inspected. */
	set_knob(&knobs[KNOB_NUMA], 0);
	set_knob(&knobs[KNOB_COMPACT], 0);
}

/* Allow only folios of @order for @backing (no large folio if 0). */
static void push_thp_settings(enum backing backing, unsigned int order)
{
	struct thp_settings s = *thp_current_settings();
	int i;

	s.thp_enabled = THP_NEVER;
	s.thp_defrag = THP_DEFRAG_MADVISE;
	s.shmem_enabled = SHMEM_NEVER;
	for (i = 0; i < NR_ORDERS; i++) {
		s.hugepages[i].enabled = THP_NEVER;
		s.shmem_hugepages[i].enabled = SHMEM_NEVER;
	}
	if (order && backing == SHMEM) {
		s.shmem_hugepages[order].enabled = SHMEM_ALWAYS;
		if (!(thp_shmem_supported_orders() & (1UL << order)))
			s.shmem_enabled = SHMEM_ALWAYS;
	} else if (order) {
		s.hugepages[order].enabled = THP_ALWAYS;
		if (!(thp_supported_orders() & (1UL << order)))
			s.thp_enabled = THP_ALWAYS;
	}
	thp_push_settings(&s);
}

/* ------------------------------------------------------------------ */
/* Memory shapes */

static void shape_desc(const struct shape *sh, char *buf, size_t len)
{
	static const char * const names[] = {
		[ANON] = "private anon", [SHMEM] = "shared anon",
		[MEMFD_SHARED] = "shared memfd",
		[MEMFD_PRIVATE] = "private memfd, COW-ed",
		[FILE_SHARED] = "shared file",
	};
	size_t kb = (pagesize << sh->order) / 1024;

	if (sh->backing == FILE_SHARED && !sh->order)
		snprintf(buf, len, "page cache folios of mixed sizes (%s)",
			 names[sh->backing]);
	else if (sh->backing == FILE_SHARED)
		snprintf(buf, len, "PTE-mapped %zu KiB page cache folio (%s)",
			 kb, names[sh->backing]);
	else if (!sh->order)
		snprintf(buf, len, "base pages%s (%s)", sh->madv_huge ?
			 " in a MADV_HUGEPAGE VMA" : "", names[sh->backing]);
	else if (kb * 1024 == pmdsize)
		snprintf(buf, len, "%s-mapped THP (%s)", sh->pmd_mapped ?
			 "PMD" : "PTE", names[sh->backing]);
	else
		snprintf(buf, len, "%zu KiB mTHP (%s)", kb, names[sh->backing]);
}

/*
 * Reserve address space, and place the region in it: folios smaller than
 * a PMD straddle a PMD boundary, PMD-sized ones start at one. The rest of
 * the reservation stays PROT_NONE, so that no VMA merges with the region.
 */
static char *reserve(struct region *r, size_t align, size_t offset)
{
	char *mem;

	r->resv_size = 2 * r->size + 4 * pmdsize;
	r->resv = mmap(NULL, r->resv_size, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->resv == MAP_FAILED) {
		r->resv = NULL;
		return NULL;
	}
	mem = r->resv + r->size / 2 + 2 * pmdsize;
	mem = (char *)((uintptr_t)mem & ~(align - 1));
	return mem - offset;
}

/* pwrite() all @len bytes: 0, or -1 with errno set (EIO if short) */
static int pwrite_all(int fd, const void *buf, size_t len, off_t off)
{
	ssize_t n = pwrite(fd, buf, len, off);

	if (n == (ssize_t)len)
		return 0;
	if (n >= 0)
		errno = EIO;
	return -1;
}

static int write_tag0(struct region *r)
{
	char *buf = malloc(pagesize);
	size_t i;

	for (i = 0; buf && i < r->npages; i++) {
		fill_page(buf, 0, i);
		if (pwrite_all(r->fd, buf, pagesize, i * pagesize))
			break;
	}
	free(buf);
	return buf && i == r->npages ? 0 : -1;
}

/* Returns 0, or KSFT_FAIL with the step that failed logged */
static int map_memory(struct region *r)
{
	enum backing b = r->shape->backing;
	int flags = MAP_FIXED | (r->private ? MAP_PRIVATE : MAP_SHARED);
	char *mem = reserve(r, pmdsize, r->fpages * pagesize < pmdsize ?
			    r->size / 2 : 0);

	if (!mem)
		return setup_fail("reserving address space");
	if (b == ANON || b == SHMEM)
		flags |= MAP_ANONYMOUS;
	if (b == MEMFD_SHARED || b == MEMFD_PRIVATE) {
		/* Sealed non-executable; its mappings may still be PROT_EXEC. */
		r->fd = memfd_create("mprotect_folios",
				     MFD_CLOEXEC | MFD_NOEXEC_SEAL);
		if (r->fd < 0 && errno == EINVAL)	/* before 6.3 */
			r->fd = memfd_create("mprotect_folios", MFD_CLOEXEC);
		if (r->fd < 0)
			return setup_fail("memfd_create");
		if (ftruncate(r->fd, r->size))
			return setup_fail("ftruncate of the memfd");
	}
	/* A private memfd holds tag 0; the region's writes COW its pages. */
	if (b == MEMFD_PRIVATE && write_tag0(r))
		return setup_fail("writing the memfd");
	if (mmap(mem, r->size, PROT_READ | PROT_WRITE, flags, r->fd, 0) != mem)
		return setup_fail("mmap");
	r->mem = mem;
	return 0;
}

/* Every page holds tag 1 and is mapped RW; @write: write it so. */
static void populate(struct region *r, bool write)
{
	size_t i;

	for (i = 0; i < r->npages; i++) {
		if (write)
			fill_page(page_addr(r, i), 1, i);
		r->tag[i] = 1;
		r->prot[i] = PROT_READ | PROT_WRITE;
	}
}

/*
 * PTE-map PMD-sized THPs by changing the protection of one page. That
 * splits the PMD mapping but not the folio; a shmem PMD is zapped and
 * faulted back in by PTEs under MADV_NOHUGEPAGE.
 */
static int pte_map_thps(struct region *r)
{
	size_t i;

	for (i = 0; i < r->size; i += pmdsize)
		if (mprotect(r->mem + i + pagesize, pagesize, PROT_READ) ||
		    mprotect(r->mem + i + pagesize, pagesize,
			     PROT_READ | PROT_WRITE))
			return -1;
	madvise(r->mem, r->size, MADV_NOHUGEPAGE);
	for (i = 0; i < r->npages; i++)
		*(uint64_t *)page_addr(r, i) = pattern(1, i, 0);
	return madvise(r->mem, r->size, MADV_HUGEPAGE);
}

static int memory_region_create(struct region *r)
{
	const struct shape *sh = r->shape;
	const char *why;
	size_t i;

	r->private = sh->backing == ANON || sh->backing == MEMFD_PRIVATE;
	r->may_unmap = sh->pmd_mapped && sh->backing != ANON;
	if (map_memory(r))
		return KSFT_FAIL;
	if (have_thp) {
		push_thp_settings(sh->backing, sh->order);
		r->thp_pushed++;
	}
	madvise(r->mem, r->size, sh->order || sh->madv_huge ?
		MADV_HUGEPAGE : MADV_NOHUGEPAGE);
	populate(r, true);
	/*
	 * From now on no new large folio, and khugepaged stays away. Pushed
	 * on top: a pop would bring back the settings of before the test for
	 * a while, and khugepaged collapsed the region's folios then.
	 */
	if (have_thp) {
		push_thp_settings(sh->backing, 0);
		r->thp_pushed++;
	}
	why = check_folios(r);
	if (!why && r->fpages * pagesize == pmdsize && !sh->pmd_mapped) {
		/* mprotect() maps them by PTEs: what it breaks is a failure. */
		if (pte_map_thps(r))
			return setup_fail("PTE-mapping the THPs");
		why = check_folios(r);
		if (why || !pmd_mappings_ok(r)) {
			fail_msg("PTE-mapping the THPs: %s\n",
				 why ? why : "a PMD mapping is left");
			return KSFT_FAIL;
		}
	} else if (!why && !pmd_mappings_ok(r)) {
		why = "the THPs are not mapped as asked";
	}
	for (i = 0; !why && sh->backing == MEMFD_PRIVATE && i < r->npages; i++)
		if (pagemap_get_entry(pagemap_fd, page_addr(r, i)) & PM_FILE)
			why = "a page is not an anon COW copy";
	skip_reason = why;
	return why ? KSFT_SKIP : KSFT_PASS;
}

/*
 * A file on XFS, unlinked: @r->size bytes of tag-1 pages, written with
 * pwrite()s of one size per quarter (4 and 8 pages, a contpte block and
 * four: 16K, 32K, 64K and 256K with 4K pages, so that the page cache holds
 * large folios of these sizes), or in one pwrite() for a single folio, and
 * fsync'ed.
 */
static int create_file(struct region *r)
{
	const size_t quarters[] = { 4, 8, cont_pages(), 4 * cont_pages() };
	char path[PATH_MAX], *buf = malloc(r->size);
	size_t i, len;

	snprintf(path, sizeof(path), "%s/mprotect_folios.XXXXXX", file_dir);
	r->fd = buf ? mkstemp(path) : -1;
	if (r->fd < 0 || unlink(path))
		goto fail;
	for (i = 0; i < r->npages; i++)
		fill_page(buf + i * pagesize, 1, i);
	for (i = 0; i < r->size; i += len) {
		len = r->shape->order ? r->size :
		      quarters[i * 4 / r->size] * pagesize;
		if (len > r->size - i)
			len = r->size - i;
		if (pwrite_all(r->fd, buf + i, len, i))
			goto fail;
	}
	free(buf);
	return fsync(r->fd);
fail:
	free(buf);
	return -1;
}

/*
 * Map the file shared: one folio at an address aligned to its size, or the
 * mixed folios across a PMD boundary, one contpte block off its alignment
 * so that none can be PMD-mapped. Read every page: read-only, clean PTEs.
 */
static int file_region_create(struct region *r)
{
	size_t align = r->shape->order ? r->size : pmdsize, i;
	size_t offset = r->shape->order ? 0 :
			r->size / 2 - cont_pages() * pagesize;
	struct statfs sfs;
	char *mem;
	int large;

	if (!file_dir || statfs(file_dir, &sfs) ||
	    sfs.f_type != XFS_SUPER_MAGIC)
		return setup_skip("needs a directory on XFS as argument");
	mem = reserve(r, align, offset);
	if (!mem)
		return setup_fail("reserving address space");
	if (create_file(r))
		return setup_fail("creating the file");
	if (mmap(mem, r->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 r->fd, 0) != mem)
		return setup_fail("mmap of the file");
	r->mem = mem;
	madvise(mem, r->size, MADV_NOHUGEPAGE);
	populate(r, false);
	for (i = 0; i < r->npages; i++)
		if (!page_has(page_addr(r, i), 1, i)) {
			fail_msg("page %zu: the file's data did not read back\n", i);
			return KSFT_FAIL;
		}
	refresh_pfns(r);
	large = folio_starts(r);
	ksft_print_msg("%d large folios in %zu pages\n", large, r->npages);
	if (large < 1 || (r->shape->order && r->start[r->npages - 1]))
		return setup_skip("the page cache did not get these folios");
	return KSFT_PASS;
}

static void region_destroy(struct region *r)
{
	int i;

	if (r->resv)
		munmap(r->resv, r->resv_size);
	if (r->fd >= 0)
		close(r->fd);
	for (; r->thp_pushed; r->thp_pushed--)
		thp_pop_settings();
	free(r->pfn);
	free(r->tag);
	free(r->prot);
	free(r->faults);
	free(r->start);
	for (i = 0; i < 4; i++)
		free(r->mark[i]);
}

/*
 * MemAvailable of /proc/meminfo, in bytes; 0 if it cannot be read. In 64
 * bits: a 32-bit long overflows at 4G.
 */
static uint64_t mem_available(void)
{
	long kb = proc_kb("/proc/meminfo", "MemAvailable: %ld kB");

	return kb > 0 ? (uint64_t)kb * 1024 : 0;
}

/* Two PMD-sized folios, up to eight smaller ones, 128 base pages */
static size_t region_size(const struct shape *sh)
{
	size_t fsize = pagesize << sh->order, n;

	if (sh->backing == FILE_SHARED)
		return sh->order ? fsize : 1024 * pagesize;
	if (fsize >= pmdsize)
		return 2 * fsize;
	if (fsize <= 16 * pagesize)
		return 128 * pagesize;
	/* Eight folios, or as many as fit in 64M, but at least two. */
	n = (64UL << 20) / fsize;
	return fsize * (n > 8 ? 8 : n < 2 ? 2 : n);
}

static int region_create(struct region *r, const struct shape *sh)
{
	int i;

	memset(r, 0, sizeof(*r));
	r->shape = sh;
	r->fd = -1;
	r->fpages = 1UL << sh->order;
	r->size = region_size(sh);
	r->npages = r->size / pagesize;
	/* The region, its copy in a forked child, and slack */
	if (4 * (uint64_t)r->size > mem_available())
		return setup_skip("not enough memory");
	r->pfn = calloc(r->npages, sizeof(*r->pfn));
	r->tag = calloc(r->npages, sizeof(*r->tag));
	r->prot = calloc(r->npages, sizeof(*r->prot));
	r->faults = calloc(r->npages, sizeof(*r->faults));
	r->start = calloc(r->npages, sizeof(*r->start));
	for (i = 0; i < 4; i++)
		r->mark[i] = calloc(r->npages, 1);
	if (!r->pfn || !r->tag || !r->prot || !r->faults || !r->start ||
	    !r->mark[0] || !r->mark[1] || !r->mark[2] || !r->mark[3])
		return setup_fail("allocating the page arrays");
	if (sh->backing == FILE_SHARED)
		return file_region_create(r);
	return memory_region_create(r);
}

/* ------------------------------------------------------------------ */
/* Whole folios, partial ranges, VMAs, write upgrade */

/* RO, NONE, RW over whole folios: nothing moves, no PMD split, no fault. */
static int test_whole_folios(struct region *r)
{
	size_t n = r->npages;
	int errs = check_pages(r, 0, n, CHK_PFN | CHK_DATA);

	errs += set_prot(r, 0, n, PROT_READ) + check_pmd_mappings(r);
	errs += check_pages(r, 0, n, CHK_ALL);
	errs += set_prot(r, 0, n, PROT_NONE) + check_pmd_mappings(r);
	errs += check_pages(r, 0, n, CHK_ALL);
	errs += set_prot(r, 0, n, PROT_READ | PROT_WRITE);
	errs += check_pmd_mappings(r) + write_pages(r, 0, n, 2);
	errs += check_faults(r, 0, n, false);
	return errs + check_pages(r, 0, n, CHK_ALL);
}

/* Ranges from and to mid-folio, mid contpte block, across a PMD boundary */
static int test_partial_folios(struct region *r)
{
	size_t f = r->fpages, n = r->npages, mid = n / 2, c = cont_pages();
	const struct { size_t lo, hi; int prot; } steps[] = {
		{ f / 2 + 1, n - f / 2 - 1, PROT_READ },
		{ 7, mid + 9, PROT_READ | PROT_WRITE },
		{ mid - 5, mid + 3, PROT_NONE },
		{ c + 3, n - c - 5, PROT_READ },
		{ mid - f / 2 - 1, mid + f + 1, PROT_READ | PROT_WRITE },
		{ 0, n, PROT_READ },
		{ 13, n - 11, PROT_READ | PROT_WRITE },
		{ 0, n, PROT_READ | PROT_WRITE },
	};
	size_t s, lo, hi;
	int errs = 0;

	for (s = 0; s < ARRAY_SIZE(steps); s++) {
		lo = steps[s].lo;
		hi = steps[s].hi < n ? steps[s].hi : n;
		/* A region of few PTEs has no room for every step. */
		if (lo >= hi)
			continue;
		errs += set_prot(r, lo, hi, steps[s].prot);
		errs += write_pages(r, lo, hi, 10 + s);
		if (!r->may_unmap)
			errs += check_faults(r, lo, hi, false);
		errs += check_pages(r, 0, n, CHK_ALL);
	}
	return errs;
}

static int count_vmas(struct region *r)
{
	unsigned long start, end, lo = (uintptr_t)r->mem;
	char line[256];
	int nr = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &start, &end) == 2 &&
		    start < lo + r->size && end > lo)
			nr++;
	if (f)
		fclose(f);
	return nr;
}

/* Four VMAs split mid-folio by MADV_RANDOM and by protection, one call */
static int test_folios_across_vmas(struct region *r)
{
	size_t f = r->fpages, n = r->npages, a = n / 4 + f / 2 + 3;
	size_t b = n / 2 + f / 2 + 5 < n - 8 ? n / 2 + f / 2 + 5 : n - 8;
	size_t c = 3 * n / 4 + 1 > b + 4 ? 3 * n / 4 + 1 : b + 4;
	int errs = 0, vmas;

	if (madvise(page_addr(r, a), (b - a) * pagesize, MADV_RANDOM))
		errs += fail_msg("MADV_RANDOM: %s\n", strerror(errno));
	errs += set_prot(r, c, n, PROT_READ);
	vmas = count_vmas(r);
	if (vmas != 4)
		errs += fail_msg("%d VMAs, expected 4\n", vmas);
	errs += set_prot(r, f / 4 + 1, n - f / 4 - 1, PROT_READ);
	errs += check_pages(r, 0, n, CHK_ALL);
	errs += set_prot(r, f / 2 + 1, n - 2, PROT_READ | PROT_WRITE | PROT_EXEC);
	errs += check_pages(r, 0, n, CHK_ALL);
	errs += set_prot(r, 0, n, PROT_READ | PROT_WRITE) + write_pages(r, 0, n, 3);
	if (!r->may_unmap)
		errs += check_faults(r, 0, n, false);
	errs += check_pages(r, 0, n, CHK_ALL);
	if (madvise(r->mem, r->size, MADV_NORMAL))
		errs += fail_msg("MADV_NORMAL: %s\n", strerror(errno));
	return errs + check_pages(r, 0, n, CHK_ALL);
}

/* R -> RW of exclusive (private) or shared, dirty pages: no write fault */
static int test_dirty_folios_ro_rw(struct region *r)
{
	size_t n = r->npages, lo = r->may_unmap ? 0 : r->fpages / 2 + 1;
	int errs = set_prot(r, lo, n, PROT_READ);

	errs += set_prot(r, lo, n, PROT_READ | PROT_WRITE);
	errs += write_pages(r, 0, n, 4) + check_faults(r, 0, n, false);
	errs += check_pages(r, 0, n, CHK_ALL);
	if (r->private)
		errs += check_exclusive(r, NULL, true);
	return errs;
}

/* ------------------------------------------------------------------ */
/* COW: a child that keeps seeing its data */

struct child {
	pid_t pid;
	int to_child, from_child;
};

/* What the child maps: C_SHARED must stay, C_DROPPED it MADV_DONTNEEDs. */
enum { C_UNMAPPED, C_SHARED, C_DROPPED };

static int child_check(struct region *r, const unsigned char *cmap)
{
	unsigned long pfn;
	char *p;
	size_t i;
	int bad = 0;

	for (i = 0; i < r->npages; i++) {
		p = page_addr(r, i);
		pfn = pagemap_get_pfn(pagemap_fd, p);
		if (cmap[i] == C_SHARED && (!page_has(p, 1, i) || pfn != r->pfn[i]))
			bad += fail_msg("child: page %zu changed under the child\n", i);
		/* anon: zero-filled; private memfd: the file's contents */
		if (cmap[i] == C_DROPPED &&
		    !(r->fd < 0 ? page_is_zero(p) : page_has(p, 0, i)))
			bad += fail_msg("child: dropped page %zu reads garbage\n", i);
	}
	return bad;
}

static int child_main(struct region *r, const unsigned char *cmap,
		      int rd, int wr)
{
	size_t i;
	char c = 0;

	/* The parent's pagemap fd reads the parent's page tables. */
	close(pagemap_fd);
	pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	for (i = 0; i < r->npages; i++)
		if (cmap[i] == C_DROPPED &&
		    madvise(page_addr(r, i), pagesize, MADV_DONTNEED))
			return 2;
	if (pagemap_fd < 0 || write(wr, &c, 1) != 1 || read(rd, &c, 1) != 1)
		return 2;
	return child_check(r, cmap) ? 1 : 0;
}

static int start_child(struct region *r, struct child *ch,
		       const unsigned char *cmap)
{
	int p2c[2], c2p[2], ret;
	char c;

	if (pipe(p2c) || pipe(c2p))
		return -1;
	fflush(stdout);
	ch->pid = fork();
	if (ch->pid < 0)
		return -1;
	if (!ch->pid) {
		/* Without the parent's ends, its exit ends the child's read(). */
		close(p2c[1]);
		close(c2p[0]);
		ret = child_main(r, cmap, p2c[0], c2p[1]);
		fflush(stdout);
		_exit(ret);
	}
	close(p2c[0]);
	close(c2p[1]);
	ch->to_child = p2c[1];
	ch->from_child = c2p[0];
	return read(ch->from_child, &c, 1) == 1 ? 0 : -1;
}

/* Let the child check its view; returns the number of failures. */
static int finish_child(struct child *ch)
{
	int status = 0;
	char c = 0;

	if (write(ch->to_child, &c, 1) != 1 ||
	    waitpid(ch->pid, &status, 0) != ch->pid)
		status = -1;
	close(ch->to_child);
	close(ch->from_child);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return fail_msg("the child found a leak or failed (status %#x)\n",
				status);
	return 0;
}

/*
 * Each write to a page in @shared must have faulted and moved the parent
 * to a new page; each write to a page in @excl neither.
 */
static int check_cow_writes(struct region *r, size_t lo, size_t hi,
			    const unsigned char *shared,
			    const unsigned char *excl)
{
	unsigned long pfn;
	int errs = 0;
	size_t i;

	for (i = lo; i < hi; i++) {
		pfn = pagemap_get_pfn(pagemap_fd, page_addr(r, i));
		if (shared[i] && (r->faults[i] < 1 || pfn == r->pfn[i]))
			errs += fail_msg("page %zu: write reached the child's page (%ld faults)\n",
					 i, r->faults[i]);
		if (excl && excl[i] && (r->faults[i] || pfn != r->pfn[i]))
			errs += fail_msg("page %zu: exclusive; %ld faults, pfn %s\n",
					 i, r->faults[i], pfn == r->pfn[i] ?
					 "unchanged" : "changed");
	}
	return errs;
}

/* Folios COW-shared with a live child; R -> RW from mid-folio, writes */
static int test_cow_shared_folios(struct region *r)
{
	unsigned char *cmap = r->mark[0], *shared = r->mark[1];
	size_t n = r->npages, lo = r->fpages / 4 + 1, hi = n - lo;
	struct child ch;
	int errs;

	memset(cmap, C_SHARED, n);
	memset(shared, 1, n);
	if (start_child(r, &ch, cmap))
		return fail_msg("fork() failed\n");
	errs = check_exclusive(r, NULL, false);
	errs += set_prot(r, 0, n, PROT_READ);
	errs += set_prot(r, lo, hi, PROT_READ | PROT_WRITE);
	errs += check_pages(r, 0, n, CHK_PFN | CHK_DATA);
	errs += write_pages(r, lo, hi, 5);
	errs += check_cow_writes(r, lo, hi, shared, NULL);
	refresh_pfns(r);
	errs += check_pages(r, 0, n, CHK_ALL);
	return errs + finish_child(&ch);
}

/*
 * Folios of PageAnonExclusive and COW-shared pages in one VMA: the
 * exclusive half of each folio (the first half of even folios, the second
 * of odd ones) is MADV_DONTFORK over fork(), then MADV_DOFORK again.
 */
static int make_mixed(struct region *r, unsigned char *excl,
		      unsigned char *cmap)
{
	size_t f = r->fpages, i, run;

	for (i = 0; i < r->npages; i++) {
		excl[i] = f == 1 ? i % 2 : (i / f) % 2 == (i % f >= f / 2);
		cmap[i] = excl[i] ? C_UNMAPPED : C_SHARED;
	}
	for (i = 0; i < r->npages; i += run) {
		for (run = 1; i + run < r->npages && excl[i + run] == excl[i];)
			run++;
		if (excl[i] && madvise(page_addr(r, i), run * pagesize,
				       MADV_DONTFORK))
			return -1;
	}
	return 0;
}

/* @prot over mixed folios from an exclusive page on, then RW (unless kept) */
static int cow_mixed(struct region *r, int prot, bool keeps_write)
{
	unsigned char *excl = r->mark[0], *cmap = r->mark[1];
	size_t n = r->npages, lo = r->fpages / 4, hi = n - lo;
	struct child ch;
	int errs = 0;

	if (make_mixed(r, excl, cmap) || start_child(r, &ch, cmap))
		return fail_msg("MADV_DONTFORK or fork() failed\n");
	if (madvise(r->mem, r->size, MADV_DOFORK))
		errs += fail_msg("MADV_DOFORK: %s\n", strerror(errno));
	errs += check_exclusive(r, cmap, false);
	if (keeps_write)
		errs += set_prot(r, lo, hi, prot);
	else
		errs += set_prot(r, lo + 1, hi - 1, prot) +
			set_prot(r, lo, hi, PROT_READ | PROT_WRITE);
	errs += check_pages(r, 0, n, CHK_PFN | CHK_DATA);
	errs += write_pages(r, 0, n, 6);
	errs += check_cow_writes(r, 0, n, cmap, excl);
	refresh_pfns(r);
	errs += check_pages(r, 0, n, CHK_PFN | CHK_DATA);
	return errs + finish_child(&ch);
}

static int test_mixed_exclusive_folios_ro_rw(struct region *r)
{
	return cow_mixed(r, PROT_READ, false);
}

static int test_mixed_exclusive_folios_none_rw(struct region *r)
{
	return cow_mixed(r, PROT_NONE, false);
}

/* RW -> RWX: writable (exclusive) and read-only (COW) PTEs in a folio */
static int test_mixed_exclusive_folios_rwx(struct region *r)
{
	return cow_mixed(r, PROT_READ | PROT_WRITE | PROT_EXEC, true);
}

/*
 * The child drops the second half of each folio, the parent COW-breaks
 * the page before it; then R -> RW from mid-folio and writes everywhere.
 */
static int test_partly_dropped_cow_folios(struct region *r)
{
	unsigned char *cmap = r->mark[0], *shared = r->mark[1];
	unsigned char *excl = r->mark[2];
	size_t f = r->fpages, n = r->npages, lo = f / 4, hi = n - lo, i;
	struct child ch;
	int errs = 0;

	for (i = 0; i < n; i++)
		cmap[i] = (f > 1 ? i % f >= f / 2 : i % 2) ? C_DROPPED : C_SHARED;
	if (start_child(r, &ch, cmap))
		return fail_msg("fork() failed\n");
	for (i = 0; i < n; i++) {
		excl[i] = f > 1 ? i % f == f / 2 - 1 : i % 4 == 2;
		errs += excl[i] ? write_page(r, i, 7) : 0;
		shared[i] = cmap[i] == C_SHARED && !excl[i];
	}
	refresh_pfns(r);
	errs += check_exclusive(r, excl, true);
	errs += set_prot(r, lo + 1, hi - 1, PROT_READ);
	errs += set_prot(r, lo, hi, PROT_READ | PROT_WRITE);
	errs += check_pages(r, 0, n, CHK_PFN | CHK_DATA) + write_pages(r, 0, n, 8);
	errs += check_cow_writes(r, 0, n, shared, excl);
	/* Mapped once but not exclusive: must not be mapped writable. */
	for (i = 0; i < n; i++)
		if (cmap[i] == C_DROPPED && !excl[i] && r->faults[i] < 1)
			errs += fail_msg("page %zu: not exclusive, no fault\n", i);
	refresh_pfns(r);
	return errs + check_pages(r, 0, n, CHK_ALL) + finish_child(&ch);
}

/* ------------------------------------------------------------------ */
/* Lazyfree folios */

/*
 * After MADV_PAGEOUT, pages of lazyfree folios in [lo, hi) that nobody
 * wrote read zero (discarded) or their old data; returns how many were
 * discarded, or -1 if any reads something else.
 */
static long discarded(struct region *r, size_t lo, size_t hi)
{
	long nr = 0;
	size_t i;

	for (i = lo; i < hi; i++) {
		if (page_is_zero(page_addr(r, i)))
			nr++;
		else if (!page_has(page_addr(r, i), r->tag[i], i))
			return -fail_msg("page %zu: neither zero nor its data\n", i);
	}
	return nr;
}

/* Lazyfree folios, one rewritten page per folio: R (mid-folio) -> RW */
static int test_lazyfree_rewritten_folios(struct region *r)
{
	unsigned char *rw = r->mark[0];
	size_t f = r->fpages, n = r->npages, i;
	long nr;
	int errs = 0;

	if (madvise(r->mem, r->size, MADV_FREE))
		return skip("MADV_FREE failed");
	for (i = 0; i < n / 2; i++) {
		rw[i] = f > 1 ? i % f == f / 2 + 1 || i % f == f - 1 : i % 4 == 1;
		errs += rw[i] ? write_page(r, i, 9) : 0;
	}
	errs += set_prot(r, 1, n - 1, PROT_READ);
	errs += set_prot(r, 0, n, PROT_READ | PROT_WRITE);
	if (madvise(r->mem, r->size, MADV_PAGEOUT))
		return skip("MADV_PAGEOUT failed");
	nr = discarded(r, n / 2, n);
	ksft_print_msg("%ld of %zu untouched pages discarded\n", nr, n - n / 2);
	if (!nr)
		return skip("reclaim discarded no clean lazyfree page");
	for (i = 0; i < n / 2; i++)
		if (rw[i] && !page_has(page_addr(r, i), 9, i))
			errs += fail_msg("page %zu: rewritten data lost\n", i);
	return errs + (nr < 0);
}

/* ------------------------------------------------------------------ */
/* uffd-wp and soft-dirty per page */

/*
 * A userfaultfd with @features, registered for WP over the region; or -1,
 * for the caller to skip, after a note of the step that failed and why.
 */
static int uffd_wp_open(struct region *r, uint64_t features)
{
	struct uffdio_api api = { .api = UFFD_API, .features = features };
	uint64_t ioctls = 0;
	int uffd, err;

	if (r->shape->backing != ANON)
		api.features |= UFFD_FEATURE_WP_HUGETLBFS_SHMEM;
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0) {
		ksft_print_msg("userfaultfd: %s\n", strerror(errno));
		return -1;
	}
	if (ioctl(uffd, UFFDIO_API, &api)) {
		ksft_print_msg("UFFDIO_API: %s\n", strerror(errno));
		goto fail;
	}
	err = uffd_register_with_ioctls(uffd, r->mem, r->size, false, true,
					false, &ioctls);
	if (err) {
		ksft_print_msg("UFFDIO_REGISTER (WP): %s\n", strerror(-err));
		goto fail;
	}
	if (!(ioctls & (1ULL << _UFFDIO_WRITEPROTECT))) {
		ksft_print_msg("UFFDIO_REGISTER (WP): no UFFDIO_WRITEPROTECT\n");
		goto fail;
	}
	return uffd;
fail:
	close(uffd);
	return -1;
}

static int uffd_wp_range(int uffd, char *addr, size_t len, bool wp)
{
	struct uffdio_writeprotect prms = {
		.range = { .start = (uintptr_t)addr, .len = len },
		.mode = wp ? UFFDIO_WRITEPROTECT_MODE_WP : 0,
	};

	if (ioctl(uffd, UFFDIO_WRITEPROTECT, &prms))
		return fail_msg("UFFDIO_WRITEPROTECT: %s\n", strerror(errno));
	return 0;
}

struct wp_handler {
	int uffd, errors;
	struct region *r;
	int *hits;
	bool stop;		/* __atomic */
};

/* Count the WP faults per page and resolve them. */
static void *wp_handler_fn(void *arg)
{
	struct wp_handler *h = arg;
	struct pollfd pfd = { .fd = h->uffd, .events = POLLIN };
	struct uffd_msg msg;
	uint64_t addr;
	size_t i;

	while (!__atomic_load_n(&h->stop, __ATOMIC_ACQUIRE)) {
		if (poll(&pfd, 1, 50) <= 0 ||
		    read(h->uffd, &msg, sizeof(msg)) != sizeof(msg) ||
		    msg.event != UFFD_EVENT_PAGEFAULT)
			continue;
		addr = msg.arg.pagefault.address & ~(uint64_t)(pagesize - 1);
		i = (addr - (uintptr_t)h->r->mem) / pagesize;
		if (i < h->r->npages &&
		    (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP))
			h->hits[i]++;
		else
			h->errors++;
		h->errors += uffd_wp_range(h->uffd, (char *)(uintptr_t)addr,
					   pagesize, false);
	}
	return NULL;
}

/* Write every page with a WP fault handler running; check the faults. */
static int write_with_wp_handler(struct region *r, int uffd,
				 const unsigned char *wp)
{
	struct wp_handler h = { .uffd = uffd, .r = r };
	pthread_t thread;
	int errs = 0;
	size_t i;

	h.hits = calloc(r->npages, sizeof(*h.hits));
	if (!h.hits || pthread_create(&thread, NULL, wp_handler_fn, &h))
		return fail_msg("cannot start the fault handler\n");
	errs += write_pages(r, 0, r->npages, 11);
	__atomic_store_n(&h.stop, true, __ATOMIC_RELEASE);
	pthread_join(thread, NULL);
	for (i = 0; i < r->npages; i++) {
		if (h.hits[i] != wp[i])
			errs += fail_msg("page %zu: %d uffd-wp faults, expected %d\n",
					 i, h.hits[i], wp[i]);
		/* exclusive pages without uffd-wp were made writable */
		if (!wp[i] && r->private && r->faults[i])
			errs += fail_msg("page %zu: not uffd-wp, but faulted\n", i);
	}
	free(h.hits);
	return errs + h.errors;
}

/* uffd-wp on a pattern of pages within folios; R -> RW from mid-folio */
static int test_uffd_wp_mixed_folios(struct region *r)
{
	unsigned char *wp = r->mark[0], *got = r->mark[1];
	size_t f = r->fpages, n = r->npages, lo = f / 4, hi = n - lo, i;
	int uffd = uffd_wp_open(r, 0), errs = 0;

	if (uffd < 0)
		return skip("no uffd-wp for this memory");
	for (i = 0; i < n; i++) {
		wp[i] = f == 1 ? i % 3 == 1 : (i / f) % 2 ? i % f < f / 2 + 1 :
			i % f >= f / 2;
		if (wp[i])
			errs += uffd_wp_range(uffd, page_addr(r, i), pagesize, true);
	}
	pagemap_bits(r, PM_UFFD_WP, got);
	errs += check_bits(r, got, wp, "uffd-wp");
	errs += set_prot(r, lo + 1, hi - 1, PROT_READ);
	errs += set_prot(r, lo, hi, PROT_READ | PROT_WRITE);
	errs += check_pages(r, 0, n, CHK_PFN | CHK_DATA);
	pagemap_bits(r, PM_UFFD_WP, got);
	errs += check_bits(r, got, wp, "uffd-wp");
	errs += write_with_wp_handler(r, uffd, wp);
	pagemap_bits(r, PM_UFFD_WP, got);
	memset(wp, 0, n);
	errs += check_bits(r, got, wp, "uffd-wp");
	/* No handler now: a page left protected must not block the probe. */
	close(uffd);
	return errs + check_pages(r, 0, n, CHK_ALL);
}

/* PAGE_IS_WRITTEN per page; PM_SCAN_WP_MATCHING write-protects them. */
static int scan_written(struct region *r, unsigned char *written,
			uint64_t flags)
{
	struct page_region *vec = calloc(r->npages, sizeof(*vec));
	struct pm_scan_arg arg = {
		.size = sizeof(arg), .flags = flags,
		.start = (uintptr_t)r->mem, .end = (uintptr_t)r->mem + r->size,
		.vec = (uintptr_t)vec, .vec_len = r->npages,
		.category_mask = PAGE_IS_WRITTEN, .return_mask = PAGE_IS_WRITTEN,
	};
	long nr = vec ? ioctl(pagemap_fd, PAGEMAP_SCAN, &arg) : -1;
	uint64_t a;
	long k;

	memset(written, 0, r->npages);
	for (k = 0; k < nr; k++)
		for (a = vec[k].start; a < vec[k].end; a += pagesize)
			written[(a - (uintptr_t)r->mem) / pagesize] = 1;
	free(vec);
	/*
	 * @vec has room for a range per page: the walk cannot stop early.
	 * walk_end is not checked: 6.12 leaves it where the walk first
	 * flushed its bounce buffer (512 ranges), though it went on to the end.
	 */
	return nr < 0 ? -1 : 0;
}

/* PAGE_IS_WRITTEN is set on the pages in @want only. */
static int check_written(struct region *r, const unsigned char *want)
{
	unsigned char *seen = r->mark[1];

	if (scan_written(r, seen, 0))
		return fail_msg("PAGEMAP_SCAN: %s\n", strerror(errno));
	return check_bits(r, seen, want, "written");
}

/* Async uffd-wp over all, R -> RW from mid-folio: only writes are seen */
static int test_uffd_wp_async_written_pages(struct region *r)
{
	unsigned char *w = r->mark[0], *seen = r->mark[1];
	size_t f = r->fpages, n = r->npages, lo = f / 4, hi = n - lo, i;
	int uffd, errs = 0;

	if (r->may_unmap)
		return skip("a PMD split zaps shmem PTEs: see PTE-mapped THP");
	uffd = uffd_wp_open(r, UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED);
	if (uffd < 0)
		return skip("no async uffd-wp for this memory");
	if (scan_written(r, seen, PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC)) {
		close(uffd);
		return skip("PAGEMAP_SCAN failed");
	}
	errs += check_written(r, w);
	errs += set_prot(r, lo + 1, hi - 1, PROT_READ);
	errs += set_prot(r, lo, hi, PROT_READ | PROT_WRITE);
	errs += check_written(r, w);
	for (i = 0; i < n; i++)
		w[i] = f > 1 ? (i % f) % 3 == 1 || i % f == f - 1 : i % 3 == 1;
	errs += write_marked(r, w, 15);
	errs += check_written(r, w);
	close(uffd);
	return errs + check_pages(r, 0, n, CHK_ALL);
}

static bool hash_sel(size_t i, unsigned int salt)
{
	uint32_t h = (uint32_t)(i * 2654435761u) ^ (salt * 0x9e3779b9u);

	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return h % 3 == 0;
}

/* Soft-dirty: written pages, all of a folio written while PMD-mapped */
static void softdirty_want(struct region *r, const unsigned char *w1,
			   const unsigned char *w2, unsigned char *want)
{
	size_t f = r->fpages, i, j;

	for (i = 0; i < r->npages; i++) {
		want[i] = w1[i] || (w2 && w2[i]);
		for (j = i - i % f; r->shape->pmd_mapped && j < i - i % f + f; j++)
			want[i] |= w1[j];
	}
}

static int check_softdirty(struct region *r, const unsigned char *want)
{
	unsigned char *got = r->mark[3];
	size_t i;

	for (i = 0; i < r->npages; i++)
		got[i] = pagemap_is_softdirty(pagemap_fd, page_addr(r, i));
	return check_bits(r, got, want, "soft-dirty");
}

/*
 * Second writes: a page that was not soft-dirty must fault (its PTE was
 * not made writable); a soft-dirty, dirty, exclusive one must not.
 */
static int check_softdirty_faults(struct region *r, const unsigned char *w1,
				  const unsigned char *w2,
				  const unsigned char *was)
{
	int errs = 0;
	size_t i;

	for (i = 0; i < r->npages; i++) {
		if (!w2[i])
			continue;
		if (!was[i] && r->faults[i] < 1)
			errs += fail_msg("page %zu: clean, but written without a fault\n", i);
		if (w1[i] && r->private && !r->shape->pmd_mapped && r->faults[i])
			errs += fail_msg("page %zu: soft-dirty and exclusive, but faulted\n", i);
	}
	return errs;
}

/* clear_refs, writes to a subset, R -> RW from mid-folio, more writes */
static int test_softdirty_mixed_folios(struct region *r)
{
	unsigned char *w1 = r->mark[0], *w2 = r->mark[1], *want = r->mark[2];
	size_t n = r->npages, lo = r->fpages / 4, hi = n - lo, i;
	int errs;

	if (r->may_unmap)
		return skip("a PMD split zaps shmem PTEs: see PTE-mapped THP");
	if (!softdirty_supported())
		return skip("no soft-dirty tracking");
	clear_softdirty();
	for (i = 0; i < n; i++)
		if (pagemap_is_softdirty(pagemap_fd, page_addr(r, i)))
			return skip("clear_refs did not clear soft-dirty");
	for (i = 0; i < n; i++) {
		w1[i] = hash_sel(i, 1);
		w2[i] = hash_sel(i, 2);
	}
	errs = write_marked(r, w1, 12);
	errs += r->shape->pmd_mapped ? 0 : check_faults(r, 0, n, true);
	errs += set_prot(r, lo + 1, hi - 1, PROT_READ);
	errs += set_prot(r, lo, hi, PROT_READ | PROT_WRITE);
	softdirty_want(r, w1, NULL, want);
	errs += check_softdirty(r, want) + write_marked(r, w2, 13);
	errs += check_softdirty_faults(r, w1, w2, want);
	softdirty_want(r, w1, w2, want);
	return errs + check_softdirty(r, want) + check_pages(r, 0, n, CHK_ALL);
}

/* ------------------------------------------------------------------ */
/* Shared file mappings: write-notify per page */

/* One page per large folio: the first of even folios, a middle one else */
static void mark_one_per_folio(struct region *r, unsigned char *marks)
{
	size_t i, j;
	int nr = 0;

	for (i = 0; i < r->npages; i = j) {
		for (j = i + 1; j < r->npages && r->start[j] == i; j++)
			;
		if (j - i > 1)
			marks[nr++ % 2 ? i + (j - i) / 2 : i] = 1;
	}
}

/*
 * On arm64, ptep_get() of a contpte entry reports the dirty bit of the
 * whole block: clean pages that share a block with a dirty one may be made
 * writable as well. Add them to @marks, not to be asserted.
 */
static void mark_contpte_neighbours(struct region *r, unsigned char *marks)
{
#ifdef __aarch64__
	size_t c = cont_pages(), b, i;
	bool dirty;

	for (b = 0; b + c <= r->npages; b += c) {
		if ((uintptr_t)page_addr(r, b) % (c * pagesize) ||
		    r->start[b] != r->start[b + c - 1])
			continue;
		for (i = b, dirty = false; i < b + c; i++)
			dirty |= marks[i] == 1;
		for (i = b; dirty && i < b + c; i++)
			if (!marks[i])
				marks[i] = 2;
	}
#else
	/* No contpte blocks: nothing to add. */
	(void)r;
	(void)marks;
#endif
}

/* Write tag 3 everywhere but @skip: pages not in @notified must fault. */
static int write_expect_notify(struct region *r, const unsigned char *notified,
			       size_t skip)
{
	int errs = 0;
	size_t i;

	for (i = 0; i < r->npages; i++) {
		if (i == skip)
			continue;
		errs += write_page(r, i, 3);
		if (!notified[i] && !r->faults[i])
			errs += fail_msg("clean page %zu written without a fault\n", i);
	}
	return errs;
}

/*
 * What reached the disk: unmap, write back and read the file back with
 * O_DIRECT, from the disk whether a page is still cached or not (XFS, which
 * the file tests require, has it): every page holds tag 3. A folio whose
 * PTE dirty bit was lost was never written back. The buffer, offset and
 * length are page-aligned, which meets the O_DIRECT alignment with 4K, 16K
 * or 64K pages.
 */
static int file_lacks_writes(struct region *r)
{
	int flags = fcntl(r->fd, F_GETFL), errs = 0;
	void *buf = NULL;
	size_t i;

	munmap(r->mem, r->size);
	if (flags < 0 || fsync(r->fd) ||
	    posix_memalign(&buf, pagesize, r->size) ||
	    fcntl(r->fd, F_SETFL, flags | O_DIRECT) ||
	    pread(r->fd, buf, r->size, 0) != (ssize_t)r->size) {
		free(buf);
		return fail_msg("cannot read the file back from disk\n");
	}
	for (i = 0; i < r->npages; i++)
		if (!page_has((char *)buf + i * pagesize, 3, i))
			errs += fail_msg("page %zu: the disk lacks its last write\n", i);
	free(buf);
	return errs;
}

/* Read-only clean folios with one written page each: RW -> RWX */
static int test_clean_file_folios_rwx(struct region *r)
{
	unsigned char *written = r->mark[0];
	int errs;

	mark_one_per_folio(r, written);
	errs = write_marked(r, written, 2);
	errs += set_prot(r, 0, r->npages, PROT_READ | PROT_WRITE | PROT_EXEC);
	errs += write_expect_notify(r, written, r->npages);
	return errs + file_lacks_writes(r);
}

static int mtime_after(int fd, const struct timespec *t)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	return st.st_mtim.tv_sec > t->tv_sec ||
	       (st.st_mtim.tv_sec == t->tv_sec && st.st_mtim.tv_nsec > t->tv_nsec);
}

/* The first write to clean page @i faults and updates the file time. */
static int check_mtime_moves(struct region *r, size_t i)
{
	struct timespec pause = { 1, 100000000 };
	struct stat st;
	int errs;

	if (i >= r->npages || fstat(r->fd, &st))
		return fail_msg("no clean page\n");
	nanosleep(&pause, NULL);
	errs = write_page(r, i, 3);
	if (!r->faults[i])
		errs += fail_msg("clean page %zu written without a fault\n", i);
	if (mtime_after(r->fd, &st.st_mtim) != 1)
		errs += fail_msg("mtime did not move: page_mkwrite bypassed\n");
	return errs;
}

/*
 * Every page written through the mapping and written back (clean,
 * write-protected PTEs), one page per folio written again, then @prots:
 * only the written pages may be writable without a fault.
 */
static int notify_after(struct region *r, const int *prots, int nr)
{
	unsigned char *written = r->mark[0];
	size_t i = 0;
	int errs, k;

	errs = write_pages(r, 0, r->npages, 1);
	if (fsync(r->fd))
		return fail_msg("fsync: %s\n", strerror(errno));
	mark_one_per_folio(r, written);
	errs += write_marked(r, written, 2);
	mark_contpte_neighbours(r, written);
	for (k = 0; k < nr; k++)
		errs += set_prot(r, 0, r->npages, prots[k]);
	while (i < r->npages && written[i])
		i++;
	errs += check_mtime_moves(r, i);
	errs += write_expect_notify(r, written, i);
	return errs + file_lacks_writes(r);
}

static int test_notified_file_pages_ro_rw(struct region *r)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE };

	return notify_after(r, prots, ARRAY_SIZE(prots));
}

/* PROT_NONE must not spread one PTE's dirty bit to clean ones. */
static int test_notified_file_pages_ro_none_rw(struct region *r)
{
	static const int prots[] = {
		PROT_READ, PROT_NONE, PROT_READ | PROT_WRITE,
	};

	return notify_after(r, prots, ARRAY_SIZE(prots));
}

/* R, NONE, RW, R over all of the file's folios */
static int test_whole_file_folios(struct region *r)
{
	static const int prots[] = {
		PROT_READ, PROT_NONE, PROT_READ | PROT_WRITE, PROT_READ,
	};
	size_t k;
	int errs = 0;

	for (k = 0; k < ARRAY_SIZE(prots); k++) {
		errs += set_prot(r, 0, r->npages, prots[k]);
		errs += check_pages(r, 0, r->npages, CHK_ALL);
	}
	return errs;
}

/*
 * A private mapping of the file's folios, made RW, R and RW again: its
 * PTEs keep mapping the page cache read-only, so the first write to each
 * page faults and copies that page, the second (the file's first word put
 * back) does not, the copy then holds the file's data, and neither write
 * reaches the file.
 */
static int test_private_file_folios(struct region *r)
{
	size_t n = r->npages, i;
	uint64_t e;
	char *p, *q;
	int errs = 0;
	long f;

	p = mmap(NULL, r->size, PROT_READ, MAP_PRIVATE, r->fd, 0);
	if (p == MAP_FAILED)
		return fail_msg("mmap(MAP_PRIVATE): %s\n", strerror(errno));
	if (madvise(p, r->size, MADV_NOHUGEPAGE)) {
		errs += fail_msg("MADV_NOHUGEPAGE: %s\n", strerror(errno));
		goto out;
	}
	for (i = 0; i < n; i++)
		if (!page_has(p + i * pagesize, 1, i))
			errs += fail_msg("page %zu: not the file's data\n", i);
	if (have_thp && !check_huge_file(p, 0, pmdsize))
		errs += fail_msg("a PMD maps the private mapping\n");
	if (mprotect(p, r->size, PROT_READ | PROT_WRITE) ||
	    mprotect(p, r->size, PROT_READ) ||
	    mprotect(p, r->size, PROT_READ | PROT_WRITE)) {
		errs += fail_msg("mprotect(): %s\n", strerror(errno));
		goto out;
	}
	for (i = 0; i < n; i++) {
		q = p + i * pagesize;
		if (!(pagemap_get_entry(pagemap_fd, q) & PM_FILE))
			errs += fail_msg("page %zu: not a file page\n", i);
		else if (pagemap_get_pfn(pagemap_fd, q) != r->pfn[i])
			errs += fail_msg("page %zu: not the page cache's page\n", i);
	}
	for (i = 0; i < n; i++) {
		q = p + i * pagesize;
		/* The first word only: tag 2, then the file's tag 1 back */
		if (!try_fill_counted(q, 2, i, 1, &f)) {
			errs += fail_msg("page %zu: first write raised SIGSEGV\n", i);
			continue;
		}
		e = pagemap_get_entry(pagemap_fd, q);
		if (!f)
			errs += fail_msg("page %zu: first write did not fault\n", i);
		else if (!(e & PM_PRESENT) || (e & PM_FILE) ||
			 PAGEMAP_PFN(e) == r->pfn[i])
			errs += fail_msg("page %zu: first write did not copy it\n", i);
		if (!try_fill_counted(q, 1, i, 1, &f))
			errs += fail_msg("page %zu: second write raised SIGSEGV\n", i);
		else if (f)
			errs += fail_msg("page %zu: second write faulted\n", i);
		else if (!page_has(q, 1, i))
			errs += fail_msg("page %zu: the copy is not the file's data\n", i);
	}
out:
	munmap(p, r->size);
	return errs + check_pages(r, 0, n, CHK_PFN | CHK_DATA);
}

/* ------------------------------------------------------------------ */

struct test_case {
	const char *desc;
	test_fn fn;
	unsigned int backings;
	unsigned int folios;
};

static const struct test_case test_cases[] = {
	{ "R, NONE, RW of whole folios", test_whole_folios,
	  ON_MEMORY, FOLIO_ANY },
	{ "mprotect() of partial folios", test_partial_folios,
	  ON_MEMORY, FOLIO_ANY },
	{ "mprotect() across four VMAs", test_folios_across_vmas,
	  ON_MEMORY, FOLIO_ANY },
	{ "R -> RW of dirty pages takes no fault", test_dirty_folios_ro_rw,
	  ON_MEMORY, FOLIO_ANY },
	{ "R -> RW of folios COW-shared with a child", test_cow_shared_folios,
	  ON_PRIVATE, FOLIO_ANY },
	{ "R -> RW of mixed exclusive and COW-shared folios",
	  test_mixed_exclusive_folios_ro_rw, ON_PRIVATE, FOLIO_ANY },
	{ "NONE -> RW of mixed exclusive and COW-shared folios",
	  test_mixed_exclusive_folios_none_rw, ON_PRIVATE, FOLIO_ANY },
	{ "RW -> RWX of mixed exclusive and COW-shared folios",
	  test_mixed_exclusive_folios_rwx, ON_PRIVATE, FOLIO_ANY },
	{ "R -> RW of COW folios the child partly dropped",
	  test_partly_dropped_cow_folios, ON_PRIVATE, FOLIO_ANY },
	{ "R -> RW of lazyfree folios with rewritten pages",
	  test_lazyfree_rewritten_folios, ON(ANON), FOLIO_ANY },
	{ "R -> RW of uffd-wp and unprotected pages",
	  test_uffd_wp_mixed_folios, ON_MEMORY, FOLIO_ANY },
	{ "R -> RW under async uffd-wp, PAGE_IS_WRITTEN",
	  test_uffd_wp_async_written_pages, ON_MEMORY, FOLIO_ANY },
	{ "R -> RW of soft-dirty and clean pages",
	  test_softdirty_mixed_folios, ON_MEMORY, FOLIO_ANY },
	{ "RW -> RWX of clean file folios with one written page",
	  test_clean_file_folios_rwx, ON(FILE_SHARED), FOLIO_ANY },
	{ "R -> RW of written-back file folios with one written page",
	  test_notified_file_pages_ro_rw, ON(FILE_SHARED), FOLIO_ANY },
	{ "R -> NONE -> RW of written-back file folios with one written page",
	  test_notified_file_pages_ro_none_rw, ON(FILE_SHARED), FOLIO_ANY },
	{ "R, NONE, RW, R of whole file folios", test_whole_file_folios,
	  ON(FILE_SHARED), FOLIO_ANY },
	{ "RW, R, RW of a private mapping of file folios",
	  test_private_file_folios, ON(FILE_SHARED), FOLIO_ANY },
};

#define MAX_SHAPES	(2 * (NR_ORDERS + 3) + 4)

static struct shape shapes[MAX_SHAPES];
static int nr_shapes;

static void add_shape(enum backing b, unsigned int order, bool pmd_mapped,
		      bool madv_huge)
{
	shapes[nr_shapes++] = (struct shape) {
		.backing = b, .order = order, .pmd_mapped = pmd_mapped,
		.madv_huge = madv_huge,
	};
}

/* Base pages, each large folio size the kernel offers, memfd, files */
static void detect_shapes(void)
{
	unsigned int o;
	enum backing b;

	for (b = ANON; b <= SHMEM; b++) {
		unsigned long orders = b == ANON ? anon_orders : shmem_orders;

		add_shape(b, 0, false, false);
		if (have_thp)
			add_shape(b, 0, false, true);
		for (o = 1; o < NR_ORDERS; o++) {
			if (!(orders & (1UL << o)))
				continue;
			if (o == pmd_order)
				add_shape(b, o, true, false);
			add_shape(b, o, false, false);
		}
	}
	add_shape(MEMFD_SHARED, 0, false, false);
	add_shape(MEMFD_PRIVATE, 0, false, false);
	add_shape(FILE_SHARED, 0, false, false);
	/*
	 * A folio as large as a page table maps, at most 512 PTEs. The page
	 * cache makes large folios without THP sysfs (s390 without EDAT).
	 */
	o = pmd_order < 9 ? pmd_order : 9;
	while (have_thp && o && !(thp_shmem_supported_orders() & (1UL << o)))
		o--;
	if (o)
		add_shape(FILE_SHARED, o, false, false);
}

static bool applies(const struct test_case *tc, const struct shape *sh)
{
	unsigned int folio = !sh->order ? FOLIO_BASE :
			     sh->pmd_mapped ? FOLIO_PMD : FOLIO_PTE;

	if (sh->backing == FILE_SHARED)
		folio = FOLIO_ANY;
	return (tc->backings & ON(sh->backing)) && (tc->folios & folio);
}

static void run_test_case(const struct test_case *tc, const struct shape *sh)
{
	struct region r;
	char shape[96];
	int ret, errs;

	shape_desc(sh, shape, sizeof(shape));
	snprintf(test_desc, sizeof(test_desc), "%s ... with %s", tc->desc, shape);
	ksft_print_msg("[RUN] %s\n", test_desc);
	nr_logged = 0;
	skip_reason = "";
	/* A setup that fails has logged why (setup_fail()). */
	ret = region_create(&r, sh);
	if (ret == KSFT_PASS) {
		errs = tc->fn(&r);
		ret = errs == SKIPPED ? KSFT_SKIP : errs ? KSFT_FAIL : KSFT_PASS;
	}
	/* Any failed check fails the test, even if it skipped after it. */
	if (nr_logged)
		ret = KSFT_FAIL;
	if (ret == KSFT_SKIP)
		ksft_test_result_skip("%s: %s\n", test_desc, skip_reason);
	else
		ksft_test_result(ret == KSFT_PASS, "%s\n", test_desc);
	region_destroy(&r);
}

static int pin_to_this_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t set;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	return sched_setaffinity(0, sizeof(set), &set);
}

static int stop_signal;

static void note_stop(int sig)
{
	__atomic_store_n(&stop_signal, sig, __ATOMIC_SEQ_CST);
}

/*
 * The tests run in a child. However it ends (a crash, the runner's timeout,
 * the OOM killer), this process waits for it and exits with its status,
 * and exit() puts the saved settings back (save_all()).
 */
static void run_in_child(void)
{
	static const int stops[] = { SIGTERM, SIGINT, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = note_stop };
	pid_t parent = getpid(), pid;
	int status, sig;
	size_t i;

	for (i = 0; i < ARRAY_SIZE(stops); i++)
		sigaction(stops[i], &sa, NULL);
	fflush(stdout);
	pid = fork();
	if (pid < 0)
		ksft_exit_fail_perror("fork");
	if (!pid) {
		for (i = 0; i < ARRAY_SIZE(stops); i++)
			signal(stops[i], SIG_DFL);
		/* Do not outlive a parent that was killed. */
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) || getppid() != parent)
			_exit(KSFT_FAIL);
		return;
	}
	for (;;) {
		if (__atomic_load_n(&stop_signal, __ATOMIC_SEQ_CST))
			kill(pid, SIGKILL);
		if (waitpid(pid, &status, 0) == pid)
			break;
		if (errno != EINTR)
			ksft_exit_fail_perror("waitpid");
	}
	sig = __atomic_load_n(&stop_signal, __ATOMIC_SEQ_CST);
	if (WIFSIGNALED(status) && sig)
		ksft_exit_fail_msg("stopped by signal %d\n", sig);
	if (WIFSIGNALED(status))
		ksft_exit_fail_msg("the tests crashed: signal %d\n",
				   WTERMSIG(status));
	exit(WIFEXITED(status) ? WEXITSTATUS(status) : KSFT_FAIL);
}

static void setup(int argc, char **argv)
{
	struct sigaction sa = {
		.sa_handler = probe_handler, .sa_flags = SA_NODEFER,
	};
	struct thp_settings settings;

	ksft_print_header();
	file_dir = argc > 1 ? argv[1] : NULL;
	pagesize = getpagesize();
	pmdsize = read_pmd_pagesize();
	have_thp = pmdsize != 0;
	if (!have_thp)
		pmdsize = pagesize * ptes_per_table();
	pmd_order = __builtin_ctzll(pmdsize / pagesize);
	if (have_thp) {
		anon_orders = thp_supported_orders() | 1UL << pmd_order;
		shmem_orders = thp_shmem_supported_orders();
		if (!shmem_orders)	/* no per-size shmem control */
			shmem_orders = 1UL << pmd_order;
	}
	if (access("/proc/kpageflags", R_OK))
		ksft_exit_skip("needs root: cannot open /proc/kpageflags\n");
	save_all();
	run_in_child();
	/* The child's own pagemap: /proc/self is resolved at open(). */
	pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	kpageflags_fd = open("/proc/kpageflags", O_RDONLY);
	if (pagemap_fd < 0 || kpageflags_fd < 0)
		ksft_exit_fail_perror("open pagemap");
	if (sigaction(SIGSEGV, &sa, NULL) || sigaction(SIGBUS, &sa, NULL))
		ksft_exit_fail_perror("sigaction");
	if (have_thp) {
		thp_read_settings(&settings);
		thp_push_settings(&settings);
	}
	detect_shapes();
	/*
	 * MADV_FREE queues lazyfree folios per CPU and MADV_PAGEOUT drains
	 * only its own CPU's queues: run on one CPU, or a folio left queued
	 * elsewhere is not discarded and the dirty-bit tests fail.
	 */
	if (pin_to_this_cpu())
		ksft_exit_fail_perror("sched_setaffinity");
}

static void run_test_cases(const struct test_case *cases, size_t nr)
{
	unsigned int plan = 0;
	size_t t;
	int s;

	for (t = 0; t < nr; t++)
		for (s = 0; s < nr_shapes; s++)
			plan += applies(&cases[t], &shapes[s]);
	ksft_set_plan(plan);
	for (t = 0; t < nr; t++)
		for (s = 0; s < nr_shapes; s++)
			if (applies(&cases[t], &shapes[s]))
				run_test_case(&cases[t], &shapes[s]);
}

int main(int argc, char **argv)
{
	setup(argc, argv);
	run_test_cases(test_cases, ARRAY_SIZE(test_cases));
	ksft_finished();
}
