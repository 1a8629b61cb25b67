// SPDX-License-Identifier: GPL-2.0
/*
 * Bounded stress test for batched mprotect() over large folios.
 *
 * Several threads each own a few regions (private anon and shared anon,
 * large folios enabled) and apply random operations to them: mprotect of
 * random (mostly mid-folio) ranges, writes, madvise(DONTNEED, COLD,
 * PAGEOUT), fork (the child checks its view, writes its private copy and
 * exits; the parent checks nothing leaked), mremap (move, shrink+grow)
 * and munmap+mmap. Every page is checked against a shadow copy after each
 * operation on its range and periodically in full. After each mprotect(),
 * the pages just outside its range are probed: they must have kept their
 * protection (a batch that overruns the range shows only this way).
 *
 * Usage: mprotect_stress [seed [ops-per-thread [seconds [threads]]]]
 * TAP output; exit 0 pass, 1 fail, 4 skip.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include "kselftest.h"
#include "vm_util.h"
#include "thp_settings.h"

#define PM_PFN_MASK	((1ULL << 55) - 1)
#ifndef MADV_PAGEOUT
#define MADV_PAGEOUT	21
#endif
#ifndef MADV_COLD
#define MADV_COLD	20
#endif

#define MAX_THREADS	8
#define REGIONS		2	/* per thread: one private, one shared */

enum { R_PRIVATE, R_SHARED };

struct region {
	char *mem;
	size_t npages;
	int kind;
	unsigned char *shadow;	/* expected contents */
	unsigned char *prot;	/* expected protection per page */
	unsigned char *nofork;	/* MADV_DONTFORK during the current fork */
};

struct worker {
	int id;
	pthread_t th;
	uint64_t rng;
	struct region r[REGIONS];
	long ops, checks, probes, forks, mremaps, mremap_skips, pageouts;
	long op_count[6];
	size_t nofork_fp, nofork_lo, nofork_hi;
	uint64_t *fork_pfn;	/* region 0 PFNs at a held fork, or NULL */
	double op_time[6], op_max[6];
	int failed;
	char why[256];
};

static long max_ops = 100;
static int max_secs = 25;
static int nthreads = 3;
static struct timespec start;
static volatile int stop_all;
static size_t region_size;

static size_t pagesize, pmdsize;
static int pagemap_fd = -1;
static pid_t main_pid;
static bool thp_saved;
static char numa_balancing[16];

/*
 * Pages in the blocks arm64 maps large folios in (contpte: 16 with 4K pages,
 * 128 with 16K, 32 with 64K); a 16-page stand-in elsewhere. Set by main().
 */
static size_t cont_pages;

static size_t cont_size(void)
{
	return cont_pages * pagesize;
}

/* VMAs that meet [addr, addr + len), from /proc/self/maps. */
static int count_vmas(const void *addr, size_t len)
{
	unsigned long start, end, a = (uintptr_t)addr;
	char line[512];
	int n = 0;
	FILE *f = fopen("/proc/self/maps", "r");

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx ", &start, &end) == 2 &&
		    start < a + len && end > a)
			n++;
	fclose(f);
	return n;
}

/* A probe's SIGSEGV goes to the thread that probes: state per thread. */
static __thread sigjmp_buf probe_env;
static __thread volatile sig_atomic_t probing;

static bool probe_read(const volatile char *p)
{
	if (sigsetjmp(probe_env, 1))
		return false;
	probing = 1;
	(void)*p;
	probing = 0;
	return true;
}

static bool probe_write(volatile char *p, char v)
{
	if (sigsetjmp(probe_env, 1))
		return false;
	probing = 1;
	*p = v;
	probing = 0;
	return true;
}

/* The knobs main() changed, as they were; only the process that set them. */
static void restore_knobs(void)
{
	if (getpid() != main_pid)
		return;
	if (thp_saved)
		thp_restore_settings();
	thp_saved = false;
	if (numa_balancing[0])
		write_file("/proc/sys/kernel/numa_balancing", numa_balancing,
			   strlen(numa_balancing) + 1);
	numa_balancing[0] = 0;
}

/*
 * Large folios of several sizes, anon and anon shmem: 4 pages, one and two
 * contpte blocks, and the PMD size if two fit a region. NUMA balancing off.
 */
static void set_knobs(void)
{
	unsigned long orders, shmem_orders;
	struct thp_settings s;
	int o;

	main_pid = getpid();
	atexit(restore_knobs);
	if (read_file("/proc/sys/kernel/numa_balancing", numa_balancing,
		      sizeof(numa_balancing)))
		write_file("/proc/sys/kernel/numa_balancing", "0", 2);
	if (access("/sys/kernel/mm/transparent_hugepage/enabled", F_OK))
		return;
	thp_save_settings();
	thp_saved = true;
	thp_read_settings(&s);
	s.thp_enabled = THP_ALWAYS;
	s.thp_defrag = THP_DEFRAG_MADVISE;
	orders = thp_supported_orders();
	shmem_orders = thp_shmem_supported_orders();
	for (o = 0; o < NR_ORDERS; o++) {
		size_t sz = pagesize << o;
		bool small = sz == 4 * pagesize || sz == cont_size();
		bool on = small || sz == 2 * cont_size() ||
			  (sz == pmdsize && 2 * pmdsize <= region_size);

		if (orders & (1UL << o))
			s.hugepages[o].enabled = on ? THP_ALWAYS : THP_NEVER;
		if (shmem_orders & (1UL << o))
			s.shmem_hugepages[o].enabled = small ? SHMEM_ALWAYS :
							       SHMEM_NEVER;
	}
	thp_write_settings(&s);
}

static const char * const prot_names[8] = {
	"NONE", "R", "W?", "RW", "X?", "RX", "WX?", "RWX",
};

static uint64_t rnd(struct worker *w)
{
	/* xorshift64* */
	w->rng ^= w->rng >> 12;
	w->rng ^= w->rng << 25;
	w->rng ^= w->rng >> 27;
	return w->rng * 2685821657736338717ULL;
}

static size_t rnd_below(struct worker *w, size_t n)
{
	return n ? rnd(w) % n : 0;
}

static double elapsed(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (t.tv_sec - start.tv_sec) + (t.tv_nsec - start.tv_nsec) / 1e9;
}

static void fail(struct worker *w, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void fail(struct worker *w, const char *fmt, ...)
{
	va_list ap;

	if (w->failed++)
		return;
	va_start(ap, fmt);
	vsnprintf(w->why, sizeof(w->why), fmt, ap);
	va_end(ap);
	stop_all = 1;
}

/*
 * After an mprotect() of pages [lo, hi): the two pages on each side of the
 * range must still have the protection they had. A batch that runs past
 * either end changes the first page beyond it, so these catch any overrun,
 * also one that grants write access (invisible to the content checks).
 */
static void check_outside(struct worker *w, struct region *r, size_t lo,
			  size_t hi, const char *op)
{
	size_t pages[4] = { lo - 2, lo - 1, hi, hi + 1 };
	int k;

	for (k = 0; k < 4 && !w->failed; k++) {
		size_t i = pages[k];
		volatile char *p = r->mem + i * pagesize;
		int prot = r->prot[i];
		bool rd = prot & PROT_READ, wr = prot & PROT_WRITE;

		if (i >= r->npages)	/* lo - 2 wraps below 0, too */
			continue;
		if (probe_read(p) != rd)
			fail(w, "thread %d op %ld (%s of pages %zu..%zu): %s region page %zu %s on read, its protection is %s",
			     w->id, w->ops, op, lo, hi - 1,
			     r->kind == R_SHARED ? "shared" : "private", i,
			     rd ? "faults" : "does not fault",
			     prot_names[prot & 7]);
		else if (rd && !wr && probe_write(p, *p))
			fail(w, "thread %d op %ld (%s of pages %zu..%zu): %s region page %zu is writable, its protection is %s",
			     w->id, w->ops, op, lo, hi - 1,
			     r->kind == R_SHARED ? "shared" : "private", i,
			     prot_names[prot & 7]);
		w->probes++;
	}
}

/*
 * Range granules in pages: 4 pages, one and two contpte blocks, and the
 * PMD (4K: 4, 16, 32, 512), the last capped to half a region.
 */
static size_t folio_pages[4];

/* Map a fresh, PMD-aligned region of the given kind, all zero, RW. */
static char *map_region(int kind)
{
	size_t span = region_size + pmdsize;
	char *res, *mem;
	int flags = kind == R_SHARED ? MAP_SHARED : MAP_PRIVATE;

	res = mmap(NULL, span, PROT_NONE,
		   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (res == MAP_FAILED)
		return NULL;
	mem = (char *)(((uintptr_t)res + pmdsize - 1) & ~(pmdsize - 1));
	if (mmap(mem, region_size, PROT_READ | PROT_WRITE,
		 flags | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != mem) {
		munmap(res, span);
		return NULL;
	}
	if (mem > res)
		munmap(res, mem - res);
	if (res + span > mem + region_size)
		munmap(mem + region_size, res + span - (mem + region_size));
	madvise(mem, region_size, MADV_HUGEPAGE);
	return mem;
}

static int region_init(struct region *r, int kind)
{
	size_t i;

	r->kind = kind;
	r->npages = region_size / pagesize;
	r->mem = map_region(kind);
	if (!r->mem)
		return -1;
	memset(r->shadow, 0, region_size);
	memset(r->prot, PROT_READ | PROT_WRITE, r->npages);
	memset(r->nofork, 0, r->npages);
	/* populate: the fault on each folio-sized block allocates a large folio */
	for (i = 0; i < r->npages; i++) {
		uint64_t v = 0x1000 + i;

		*(volatile uint64_t *)(r->mem + i * pagesize) = v;
		memcpy(r->shadow + i * pagesize, &v, 8);
	}
	return 0;
}

/* Compare pages [lo, hi) that are readable with the shadow. */
static int verify(struct worker *w, struct region *r, size_t lo, size_t hi,
		  const char *op)
{
	size_t i, j;

	for (i = lo; i < hi; i++) {
		const unsigned char *p = (unsigned char *)r->mem + i * pagesize;
		const unsigned char *s = r->shadow + i * pagesize;

		if (!(r->prot[i] & PROT_READ))
			continue;
		if (!memcmp(p, s, pagesize))
			continue;
		for (j = 0; j < pagesize && p[j] == s[j]; j++)
			;
		fail(w, "thread %d op %ld (%s): %s region page %zu byte %zu is %#x, expected %#x (prot %s, pagemap %#llx)",
		     w->id, w->ops, op, r->kind == R_SHARED ? "shared" : "private",
		     i, j, p[j], s[j], prot_names[r->prot[i] & 7],
		     (unsigned long long)pagemap_get_entry(pagemap_fd, (char *)p));
		return -1;
	}
	w->checks++;
	return 0;
}

/* A random range in pages; mostly starting/ending mid-folio. */
static void rnd_range(struct worker *w, struct region *r, size_t *lo,
		      size_t *hi)
{
	size_t fp = folio_pages[rnd_below(w, 4)];
	size_t a, b;

	a = rnd_below(w, r->npages / fp) * fp + rnd_below(w, fp);
	b = a + 1 + rnd_below(w, rnd_below(w, 4) ? 2 * fp : r->npages);
	if (b > r->npages)
		b = r->npages;
	*lo = a;
	*hi = b;
}

static void write_range(struct worker *w, struct region *r, size_t lo,
			size_t hi)
{
	size_t i, k, off;
	uint64_t v;

	for (i = lo; i < hi; i++) {
		if ((r->prot[i] & (PROT_READ | PROT_WRITE)) !=
		    (PROT_READ | PROT_WRITE))
			continue;
		for (k = 0; k < 4; k++) {
			off = rnd_below(w, pagesize / 8) * 8;
			v = rnd(w) | 1;
			*(volatile uint64_t *)(r->mem + i * pagesize + off) = v;
			memcpy(r->shadow + i * pagesize + off, &v, 8);
		}
	}
}

static void op_write(struct worker *w, struct region *r)
{
	size_t lo, hi;

	rnd_range(w, r, &lo, &hi);
	write_range(w, r, lo, hi);
	verify(w, r, lo, hi, "write");
}

/*
 * With a child alive: RO (or NONE) over a range, then RW or RWX over a
 * slightly larger one, both mostly starting mid-folio, then write every
 * page of it. Folios mix exclusive (MADV_DONTFORK'd, still writable) and
 * COW-shared pages here: none of the writes may reach the child.
 */
static void op_cow_cycle(struct worker *w, struct region *r)
{
	static const int first[] = {
		PROT_READ, PROT_NONE, -1,
	};
	int p1 = first[rnd_below(w, 3)];
	int p2 = rnd_below(w, 2) ? PROT_READ | PROT_WRITE :
				   PROT_READ | PROT_WRITE | PROT_EXEC;
	size_t lo, hi, fp = w->nofork_fp;

	rnd_range(w, r, &lo, &hi);
	if (w->nofork_hi > w->nofork_lo && rnd_below(w, 2)) {
		/* start in an exclusive first half, run into the shared one */
		lo = w->nofork_lo + rnd_below(w, (w->nofork_hi - w->nofork_lo) / fp) * fp +
		     rnd_below(w, fp / 2);
		hi = lo + 1 + rnd_below(w, 3 * fp);
		if (hi > r->npages)
			hi = r->npages;
	}
	if (p1 >= 0 && lo + 1 < hi - 1) {
		if (mprotect(r->mem + (lo + 1) * pagesize,
			     (hi - lo - 2) * pagesize, p1)) {
			fail(w, "mprotect: %s", strerror(errno));
			return;
		}
		memset(r->prot + lo + 1, p1, hi - lo - 2);
		check_outside(w, r, lo + 1, hi - 1, "cow cycle");
	}
	if (mprotect(r->mem + lo * pagesize, (hi - lo) * pagesize, p2)) {
		fail(w, "mprotect: %s", strerror(errno));
		return;
	}
	memset(r->prot + lo, p2, hi - lo);
	check_outside(w, r, lo, hi, "cow cycle");
	write_range(w, r, lo, hi);
	verify(w, r, lo, hi, "cow cycle");
	if (w->fork_pfn && r == &w->r[0]) {
		size_t i;

		/* a page the child still maps must have been copied */
		for (i = lo; i < hi && !w->failed; i++) {
			uint64_t e = pagemap_get_entry(pagemap_fd, r->mem + i * pagesize);

			if (r->nofork[i] || !w->fork_pfn[i] ||
			    !(e & PM_PRESENT))
				continue;
			if ((e & PM_PFN_MASK) == w->fork_pfn[i])
				fail(w, "thread %d op %ld: write to page %zu reached pfn %#llx, still mapped by the child",
				     w->id, w->ops, i,
				     (unsigned long long)w->fork_pfn[i]);
		}
	}
}

static void op_mprotect(struct worker *w, struct region *r)
{
	static const int prots[] = {
		PROT_READ, PROT_READ | PROT_WRITE, PROT_NONE,
		PROT_READ | PROT_WRITE | PROT_EXEC, PROT_READ | PROT_WRITE,
	};
	int prot = prots[rnd_below(w, 5)];
	size_t lo, hi;

	rnd_range(w, r, &lo, &hi);
	if (mprotect(r->mem + lo * pagesize, (hi - lo) * pagesize, prot)) {
		fail(w, "mprotect: %s", strerror(errno));
		return;
	}
	memset(r->prot + lo, prot, hi - lo);
	check_outside(w, r, lo, hi, "mprotect");
	/* check the whole neighbourhood: batches may overrun the range */
	verify(w, r, lo > 512 ? lo - 512 : 0,
	       hi + 512 < r->npages ? hi + 512 : r->npages, "mprotect");
}

static void op_madvise(struct worker *w, struct region *r)
{
	static const int advs[] = { MADV_DONTNEED, MADV_COLD, MADV_PAGEOUT };
	static const char * const names[] = { "DONTNEED", "COLD", "PAGEOUT" };
	int a = rnd_below(w, 3);
	size_t lo, hi;

	rnd_range(w, r, &lo, &hi);
	if (madvise(r->mem + lo * pagesize, (hi - lo) * pagesize, advs[a])) {
		if (errno == EINVAL && a)	/* COLD/PAGEOUT missing */
			return;
		fail(w, "madvise(%s): %s", names[a], strerror(errno));
		return;
	}
	if (a == 0 && r->kind == R_PRIVATE)
		memset(r->shadow + lo * pagesize, 0, (hi - lo) * pagesize);
	if (a == 2)
		w->pageouts++;
	verify(w, r, lo, hi, names[a]);
}

/* Child: does its view of every readable page match the fork-time shadow? */
static int child_check(struct worker *w, bool private_only)
{
	struct region *r;
	size_t i;
	int k;

	for (k = 0; k < REGIONS; k++) {
		r = &w->r[k];
		/* MAP_SHARED: the parent's later writes are visible, rightly */
		if (private_only && r->kind != R_PRIVATE)
			continue;
		for (i = 0; i < r->npages; i++)
			if ((r->prot[i] & PROT_READ) && !r->nofork[i] &&
			    memcmp(r->mem + i * pagesize,
				   r->shadow + i * pagesize, pagesize))
				return 1;
	}
	return 0;
}

/*
 * Child: make its private copies writable (batched mprotect over folios
 * that are COW-shared with the parent) and scribble over them.
 */
static int child_scribble(struct worker *w)
{
	struct region *r;
	size_t i, run;
	int k;

	for (k = 0; k < REGIONS; k++) {
		r = &w->r[k];
		if (r->kind != R_PRIVATE)
			continue;
		for (i = 0; i < r->npages; i += run) {
			for (run = 1; i + run < r->npages &&
			     r->nofork[i + run] == r->nofork[i]; run++)
				;
			if (r->nofork[i])
				continue;	/* not mapped in the child */
			if (mprotect(r->mem + i * pagesize, run * pagesize,
				     PROT_READ | PROT_WRITE))
				return 3;
		}
		for (i = 0; i < r->npages; i += 1 + (i % 3))
			if (!r->nofork[i])
				*(volatile uint64_t *)(r->mem + i * pagesize +
						       (i % 64) * 8) = 0xdeadbeefULL;
	}
	return 0;
}

/*
 * Before a fork: exclude random ranges of the private region from it, so
 * that large folios end up with PageAnonExclusive pages (excluded: stay
 * exclusive) next to COW-shared ones.
 */
static int mark_nofork(struct worker *w)
{
	size_t fp = folio_pages[rnd_below(w, 4)], a, n, b;
	struct region *r = &w->r[0];

	w->nofork_fp = fp;
	if (rnd_below(w, 4) == 0)
		return 0;
	/* first half of each folio-sized block in a random stretch */
	n = 1 + rnd_below(w, fp >= folio_pages[3] ? 2 : 16);
	a = rnd_below(w, r->npages / fp);
	b = a + n < r->npages / fp ? a + n : r->npages / fp;
	/* present, exclusive, writable and dirty before the fork */
	if (mprotect(r->mem + a * fp * pagesize, (b - a) * fp * pagesize,
		     PROT_READ | PROT_WRITE))
		return -1;
	memset(r->prot + a * fp, PROT_READ | PROT_WRITE, (b - a) * fp);
	check_outside(w, r, a * fp, b * fp, "mprotect before fork");
	write_range(w, r, a * fp, b * fp);
	for (b = a; b < a + n && b < r->npages / fp; b++) {
		if (madvise(r->mem + b * fp * pagesize, fp / 2 * pagesize,
			    MADV_DONTFORK))
			return -1;
		memset(r->nofork + b * fp, 1, fp / 2);
	}
	w->nofork_lo = a * fp;
	w->nofork_hi = b * fp;
	return 0;
}

/* After the fork: merge the VMAs again (the bookkeeping stays until done). */
static int dofork_all(struct worker *w)
{
	int k;

	for (k = 0; k < REGIONS; k++)
		if (madvise(w->r[k].mem, region_size, MADV_DOFORK))
			return -1;
	return 0;
}

static void forget_nofork(struct worker *w)
{
	int k;

	w->nofork_lo = w->nofork_hi = 0;
	for (k = 0; k < REGIONS; k++)
		memset(w->r[k].nofork, 0, w->r[k].npages);
}

static void child_main(struct worker *w, int rd, int wr)
{
	char c = 0;

	if (child_check(w, false))
		_exit(2);
	if (rd >= 0) {
		/* stay alive while the parent mprotects and writes */
		if (write(wr, &c, 1) != 1 || read(rd, &c, 1) != 1)
			_exit(4);
		if (child_check(w, true))
			_exit(5);
	}
	_exit(child_scribble(w));
}

/*
 * fork; half of the time the child stays alive while the parent does
 * mprotect + writes over COW-shared large folios, then re-checks that it
 * still sees its fork-time contents.
 */
static void op_fork(struct worker *w)
{
	int p2c[2] = { -1, -1 }, c2p[2] = { -1, -1 };
	bool hold = rnd_below(w, 3) != 0;
	int st, k;
	char c = 0;
	pid_t pid;

	if (hold && (pipe(p2c) || pipe(c2p))) {
		fail(w, "pipe: %s", strerror(errno));
		return;
	}
	if (mark_nofork(w)) {
		fail(w, "madvise(DONTFORK): %s", strerror(errno));
		return;
	}
	/*
	 * PFNs right before the fork: the child keeps these pages alive, so
	 * no later copy can be allocated at the same PFN.
	 */
	if (hold && pagemap_fd >= 0) {
		w->fork_pfn = calloc(w->r[0].npages, sizeof(uint64_t));
		for (k = 0; w->fork_pfn && k < (int)w->r[0].npages; k++) {
			uint64_t e = pagemap_get_entry(pagemap_fd,
						       w->r[0].mem + k * pagesize);

			w->fork_pfn[k] = (e & PM_PRESENT) ? e & PM_PFN_MASK : 0;
		}
	}
	pid = fork();
	if (pid < 0) {
		fail(w, "fork: %s", strerror(errno));
		return;
	}
	if (pid == 0)
		child_main(w, p2c[0], c2p[1]);
	/* re-merge the VMAs: the parent keeps mixed exclusive/shared folios */
	if (dofork_all(w)) {
		fail(w, "madvise(DOFORK): %s", strerror(errno));
		return;
	}
	if (hold) {
		close(p2c[0]);
		close(c2p[1]);
		if (read(c2p[0], &c, 1) != 1) {
			fail(w, "child died before the handshake");
		} else {
			for (k = 0; k < 6 && !w->failed; k++) {
				struct region *r = &w->r[rnd_below(w, REGIONS)];

				if (k % 3 == 2)
					op_mprotect(w, r);
				else
					op_cow_cycle(w, &w->r[0]);
				if (k % 3 == 1)
					op_write(w, r);
			}
		}
		if (write(p2c[1], &c, 1) != 1)
			fail(w, "handshake write: %s", strerror(errno));
		close(p2c[1]);
		close(c2p[0]);
	}
	forget_nofork(w);
	free(w->fork_pfn);
	w->fork_pfn = NULL;
	if (waitpid(pid, &st, 0) != pid) {
		fail(w, "waitpid: %s", strerror(errno));
		return;
	}
	if (!WIFEXITED(st) || WEXITSTATUS(st)) {
		fail(w, "thread %d op %ld: fork child (%s) failed with status %#x: 2/5 = its fork-time contents changed%s",
		     w->id, w->ops, hold ? "held" : "short", st,
		     hold ? " while the parent wrote" : "");
		return;
	}
	w->forks++;
	for (k = 0; k < REGIONS; k++)
		if (verify(w, &w->r[k], 0, w->r[k].npages, "after fork"))
			return;
}

static void op_mremap(struct worker *w, struct region *r)
{
	size_t span = region_size + pmdsize;
	char *res, *dst, *m;
	int prot = PROT_READ | PROT_WRITE;

	/*
	 * mremap() works on one VMA: make the region uniform first. Pieces
	 * may still not merge (e.g. differing anon_vma): skip the op then.
	 */
	if (mprotect(r->mem, region_size, prot)) {
		fail(w, "mprotect: %s", strerror(errno));
		return;
	}
	memset(r->prot, prot, r->npages);
	if (verify(w, r, 0, r->npages, "mprotect before mremap"))
		return;
	if (count_vmas(r->mem, region_size) != 1) {
		w->mremap_skips++;
		return;
	}
	if (rnd_below(w, 2)) {
		/* move to a fresh PMD-aligned place */
		res = mmap(NULL, span, PROT_NONE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
		if (res == MAP_FAILED) {
			fail(w, "mmap: %s", strerror(errno));
			return;
		}
		dst = (char *)(((uintptr_t)res + pmdsize - 1) & ~(pmdsize - 1));
		/* sometimes misalign the destination by a few pages */
		if (rnd_below(w, 2))
			dst += pagesize * (1 + rnd_below(w, 15));
		m = mremap(r->mem, region_size, region_size,
			   MREMAP_MAYMOVE | MREMAP_FIXED, dst);
		if (m == MAP_FAILED) {
			fail(w, "mremap(move): %s", strerror(errno));
			return;
		}
		if (dst > res)
			munmap(res, dst - res);
		if (res + span > dst + region_size)
			munmap(dst + region_size,
			       res + span - (dst + region_size));
		r->mem = m;
	} else {
		/* shrink, then grow back (in place or moved) */
		size_t keep = (1 + rnd_below(w, r->npages - 1)), i;

		m = mremap(r->mem, region_size, keep * pagesize, 0);
		if (m == MAP_FAILED) {
			fail(w, "mremap(shrink): %s", strerror(errno));
			return;
		}
		m = mremap(r->mem, keep * pagesize, region_size, MREMAP_MAYMOVE);
		if (m == MAP_FAILED) {
			fail(w, "mremap(grow): %s", strerror(errno));
			return;
		}
		r->mem = m;
		/* the grown part extends the last VMA */
		for (i = keep; i < r->npages; i++)
			r->prot[i] = r->prot[keep - 1];
		if (r->kind == R_PRIVATE)
			memset(r->shadow + keep * pagesize, 0,
			       region_size - keep * pagesize);
	}
	w->mremaps++;
	verify(w, r, 0, r->npages, "mremap");
}

static void op_remap(struct worker *w, struct region *r)
{
	if (munmap(r->mem, region_size)) {
		fail(w, "munmap: %s", strerror(errno));
		return;
	}
	if (region_init(r, r->kind))
		fail(w, "mmap: %s", strerror(errno));
}

static const char * const op_names[] = {
	"write", "mprotect", "madvise", "fork", "mremap", "remap",
};
#define NR_OPS 6

static void *worker_fn(void *arg)
{
	struct worker *w = arg;
	struct region *r;
	double t0, dt;
	int op, kind;

	while (!stop_all && w->ops < max_ops && elapsed() < max_secs) {
		r = &w->r[rnd_below(w, REGIONS)];
		op = rnd_below(w, 100);
		t0 = elapsed();
		if (op < 35) {
			kind = 0;
			op_write(w, r);
		} else if (op < 70) {
			kind = 1;
			op_mprotect(w, r);
		} else if (op < 84) {
			kind = 2;
			op_madvise(w, r);
		} else if (op < 94) {
			kind = 3;
			op_fork(w);
		} else if (op < 98) {
			kind = 4;
			op_mremap(w, r);
		} else {
			kind = 5;
			op_remap(w, r);
		}
		dt = elapsed() - t0;
		if (dt > 5)
			ksft_print_msg("thread %d op %ld (%s) took %.1f s\n",
				       w->id, w->ops, op_names[kind], dt);
		w->op_time[kind] += dt;
		w->op_count[kind]++;
		if (dt > w->op_max[kind])
			w->op_max[kind] = dt;
		w->ops++;
		if (!w->failed && w->ops % 16 == 0)
			verify(w, r, 0, r->npages, "periodic");
		if (w->failed)
			break;
	}
	return NULL;
}

/* Large folios allocated so far, anon and shmem, every size. */
static long long large_folio_allocs(void)
{
	static const char * const stats[] = { "anon_fault_alloc", "shmem_alloc" };
	char path[160], buf[64];
	long long sum = 0;
	unsigned int k;
	int o;

	for (o = 1; o < NR_ORDERS; o++)
		for (k = 0; k < 2; k++) {
			snprintf(path, sizeof(path),
				 "/sys/kernel/mm/transparent_hugepage/hugepages-%zukB/stats/%s",
				 (pagesize << o) / 1024, stats[k]);
			if (read_file(path, buf, sizeof(buf)))
				sum += atoll(buf);
		}
	return sum;
}

static void sigsegv(int sig, siginfo_t *si, void *uc)
{
	char msg[128];
	int n;

	(void)uc;
	if (probing) {
		probing = 0;
		siglongjmp(probe_env, 1);
	}
	n = snprintf(msg, sizeof(msg),
		     "Bail out! unexpected signal %d at %p: a page lost its permissions\n",
		     sig, si->si_addr);
	if (write(1, msg, n) < 0)
		n = 0;
	restore_knobs();	/* a no-op in children */
	_exit(1);
}

int main(int argc, char **argv)
{
	static struct worker workers[MAX_THREADS];
	unsigned long long seed = 0x6d70726f74656374ULL;	/* "mprotect" */
	long long folios0, folios1;
	struct sigaction sa;
	int i, k, failed = 0;

	if (argc > 1)
		seed = strtoull(argv[1], NULL, 0);
	if (argc > 2)
		max_ops = atol(argv[2]);
	if (argc > 3)
		max_secs = atoi(argv[3]);
	if (argc > 4)
		nthreads = atoi(argv[4]);
	if (nthreads < 1 || nthreads > MAX_THREADS)
		nthreads = 3;

	ksft_print_header();
	ksft_set_plan(nthreads + 1);
	ksft_print_msg("seed %#llx, %ld ops per thread, %d s, %d threads (usage: %s [seed [ops [secs [threads]]]])\n",
		       seed, max_ops, max_secs, nthreads, argv[0]);
	if (geteuid())
		ksft_exit_skip("needs root for the THP knobs\n");

	pagesize = psize();
	pmdsize = read_pmd_pagesize();
	cont_pages = 16;
#ifdef __aarch64__
	if (pagesize != 4096)
		cont_pages = pagesize == 16384 ? 128 : 32;
#endif
	if (!pmdsize)	/* no THP: a page table's span, 256 PTEs on s390 */
#ifdef __s390x__
		pmdsize = 256 * pagesize;
#else
		pmdsize = pagesize / 8 * pagesize;
#endif
	pagemap_fd = open("/proc/self/pagemap", O_RDONLY);
	if (pagemap_fd < 0)
		ksft_exit_fail_msg("open(/proc/self/pagemap): %s\n",
				   strerror(errno));
	/*
	 * Two PMDs (4 MiB with 4K pages), but at most 1/64 of RAM: with 64K
	 * pages a PMD is 512 MiB and 3 threads x 2 regions x (region +
	 * shadow) would need 12 GiB; 32 MiB regions on a 2 GiB guest.
	 */
	region_size = 2 * pmdsize;
	if (region_size > sysconf(_SC_PHYS_PAGES) * pagesize / 64)
		region_size = sysconf(_SC_PHYS_PAGES) * pagesize / 64 &
			      ~(cont_size() - 1);
	folio_pages[0] = 4;
	folio_pages[1] = cont_pages;
	folio_pages[2] = 2 * cont_pages;
	folio_pages[3] = pmdsize / pagesize;
	if (folio_pages[3] > region_size / pagesize / 2)
		folio_pages[3] = region_size / pagesize / 2;
	set_knobs();

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = sigsegv;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSEGV, &sa, NULL);
	sigaction(SIGBUS, &sa, NULL);

	folios0 = large_folio_allocs();
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (i = 0; i < nthreads; i++) {
		struct worker *w = &workers[i];

		w->id = i;
		w->rng = seed ^ (0x9e3779b97f4a7c15ULL * (i + 1));
		for (k = 0; k < REGIONS; k++) {
			w->r[k].shadow = malloc(region_size);
			w->r[k].prot = malloc(region_size / pagesize);
			w->r[k].nofork = malloc(region_size / pagesize);
			if (!w->r[k].shadow || !w->r[k].prot || !w->r[k].nofork)
				ksft_exit_fail_msg("out of memory\n");
			if (region_init(&w->r[k], k == 0 ? R_PRIVATE : R_SHARED))
				ksft_exit_fail_msg("mmap: %s\n", strerror(errno));
		}
	}
	for (i = 0; i < nthreads; i++)
		if (pthread_create(&workers[i].th, NULL, worker_fn, &workers[i]))
			ksft_exit_fail_msg("pthread_create failed\n");
	for (i = 0; i < nthreads; i++)
		pthread_join(workers[i].th, NULL);
	folios1 = large_folio_allocs();

	for (i = 0; i < nthreads; i++) {
		struct worker *w = &workers[i];

		/* final full check of everything this thread owns */
		for (k = 0; k < REGIONS && !w->failed; k++)
			verify(w, &w->r[k], 0, w->r[k].npages, "final");
		if (w->failed) {
			failed++;
			ksft_print_msg("%s\n", w->why);
			ksft_test_result_fail("thread %d: %ld ops (seed %#llx)\n",
					      i, w->ops, seed);
		} else {
			ksft_test_result_pass("thread %d: %ld ops, %ld checks, %ld probes, %ld forks, %ld mremaps (%ld skipped), %ld pageouts\n",
					      i, w->ops, w->checks, w->probes,
					      w->forks,
					      w->mremaps, w->mremap_skips,
					      w->pageouts);
		}
	}
	ksft_print_msg("%.1f s, %lld large folios allocated\n", elapsed(),
		       folios1 - folios0);
	for (k = 0; k < NR_OPS; k++) {
		double tot = 0, mx = 0;
		long cnt = 0;

		for (i = 0; i < nthreads; i++) {
			cnt += workers[i].op_count[k];
			tot += workers[i].op_time[k];
			if (workers[i].op_max[k] > mx)
				mx = workers[i].op_max[k];
		}
		ksft_print_msg("%-8s %5ld ops, %7.3f s total, %7.3f s max\n",
			       op_names[k], cnt, tot, mx);
	}
	if (folios1 - folios0 > 0)
		ksft_test_result_pass("large folios were exercised\n");
	else
		ksft_test_result_skip("no large folio was allocated: nothing batched\n");
	if (failed)
		ksft_exit_fail();
	ksft_exit_pass();
}
