// SPDX-License-Identifier: GPL-2.0
/*
 * Correctness tests for PTE-batched mprotect() over large folios.
 *
 * Every test runs on a memory shape built by the fixture from a variant
 * table: folio size (4K, 16K, 64K, 128K, PMD size PTE-mapped, PMD size
 * PMD-mapped) x mapping kind (private anon, shared anon = anon shmem,
 * shared memfd, private memfd written = COW anon pages in a file VMA).
 * The fixture verifies from /proc/self/pagemap + /proc/kpageflags (and
 * smaps for PMD mappings) that it really got the folio size it asked for,
 * and SKIPs otherwise.
 *
 * The tests then mprotect() whole, partial (mid-folio, mid-64K,
 * cross-PMD) and cross-VMA ranges and check, per page, the state the
 * kernel reports: presence and PFN (pagemap), access permissions (probing
 * with SIGSEGV recovery), write faults (getrusage), exclusivity, uffd-wp
 * and soft-dirty bits (pagemap), and contents. COW tests check with a
 * forked child that no write of the parent ever reaches a page the child
 * still maps.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <linux/fs.h>
#include <linux/magic.h>
#include <linux/mempolicy.h>
#include <linux/userfaultfd.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "kselftest_harness.h"
#pragma GCC diagnostic pop
/* TEST_F() expansions: setjmp() around fork() in the 6.12 harness */
#pragma GCC diagnostic ignored "-Wclobbered"
#include "mm_test_util.h"

#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

enum kind {
	K_ANON,			/* MAP_PRIVATE | MAP_ANONYMOUS */
	K_SHMEM,		/* MAP_SHARED | MAP_ANONYMOUS */
	K_MEMFD_SHARED,		/* memfd, MAP_SHARED */
	K_MEMFD_PRIVATE,	/* memfd, MAP_PRIVATE, every page written (COW) */
};

static const char * const kind_names[] = {
	"private anon", "shared anon", "shared memfd", "private memfd COW",
};

FIXTURE(mb) {
	char *mem;
	size_t size;		/* bytes */
	size_t npages;
	size_t fpages;		/* pages per folio */
	int memfd;
	bool private;		/* COW semantics */
	bool may_unmap;		/* kernel may zap PTEs (file PMD split) */
	uint64_t *pfn;		/* expected PFN per page */
	uint32_t *tag;		/* expected content tag per page */
	int *prot;		/* expected protection per page */
	long *flt;		/* per-page fault counts of the last write */
};

/*
 * Folio sizes are relative to the running kernel, so that every variant
 * means the same thing at any base page size (4K / 64K pages):
 *   F_BASE   order-0                                  4K    / 64K
 *   F_O2     4 pages, below a contpte block             16K   / 256K
 *   F_CONT   one contpte block (16 pages elsewhere)     64K   / 2M
 *   F_CONT2  two contpte blocks                          128K  / 4M
 *   F_BIG    min(PMD, 512 pages), PTE-mapped: the big   2M    / 32M
 *            batch (4K: the PMD THP split to PTEs)
 *   F_PMD    PMD size, PMD-mapped                       2M    / 512M
 */
enum fsel { F_BASE, F_O2, F_CONT, F_CONT2, F_BIG, F_PMD };

FIXTURE_VARIANT(mb) {
	enum kind kind;
	enum fsel folio;
	bool pmd_mapped;
	/*
	 * Order-0 pages in a VMA with MADV_HUGEPAGE, which may map large
	 * folios too: the batch detection must handle order-0 pages there.
	 * Every large-folio shape has MADV_HUGEPAGE as well.
	 */
	bool madv_huge;
};

#define V(_name, _kind, _f, _pmd)					\
	FIXTURE_VARIANT_ADD(mb, _name) {				\
		.kind = _kind, .folio = _f, .pmd_mapped = _pmd,		\
	}

FIXTURE_VARIANT_ADD(mb, anon_base_madv_huge) {
	.kind = K_ANON, .folio = F_BASE, .madv_huge = true,
};
FIXTURE_VARIANT_ADD(mb, shmem_base_madv_huge) {
	.kind = K_SHMEM, .folio = F_BASE, .madv_huge = true,
};

V(anon_base, K_ANON, F_BASE, false);
V(anon_o2, K_ANON, F_O2, false);
V(anon_cont, K_ANON, F_CONT, false);
V(anon_cont2, K_ANON, F_CONT2, false);
V(anon_big_pte, K_ANON, F_BIG, false);
V(anon_pmd, K_ANON, F_PMD, true);
V(shmem_base, K_SHMEM, F_BASE, false);
V(shmem_o2, K_SHMEM, F_O2, false);
V(shmem_cont, K_SHMEM, F_CONT, false);
V(shmem_cont2, K_SHMEM, F_CONT2, false);
V(shmem_big_pte, K_SHMEM, F_BIG, false);
V(shmem_pmd, K_SHMEM, F_PMD, true);
V(memfd_shared_base, K_MEMFD_SHARED, F_BASE, false);
V(memfd_private_cow_base, K_MEMFD_PRIVATE, F_BASE, false);

/* The folio size of @f on this kernel, in bytes. */
static size_t folio_bytes(enum fsel f)
{
	switch (f) {
	case F_BASE:	return pagesize;
	case F_O2:	return 4 * pagesize;
	case F_CONT:	return cont_size();
	case F_CONT2:	return 2 * cont_size();
	case F_BIG:	return pmdsize < 512 * pagesize ? pmdsize : 512 * pagesize;
	case F_PMD:	return pmdsize;
	}
	return 0;
}

#define MB FIXTURE_DATA(mb)

static void __attribute__((constructor)) mb_init(void)
{
	util_init();
	if (geteuid() == 0)
		knobs_save_all();
}

/* ------------------------------------------------------------------ */
/* helpers working on the fixture; they log and return an error count */

#define MAX_LOG 8

static int logged;

#define LOG_ERR(fmt, ...) do {						\
	if (logged++ < MAX_LOG)						\
		ksft_print_msg(fmt "\n", ##__VA_ARGS__);		\
} while (0)

static int mb_mprotect(MB *self, size_t lo, size_t hi, int prot)
{
	size_t i;

	if (mprotect(self->mem + lo * pagesize, (hi - lo) * pagesize, prot)) {
		ksft_print_msg("mprotect([%zu,%zu), %d) failed: %s\n", lo, hi,
			       prot, strerror(errno));
		return -1;
	}
	for (i = lo; i < hi; i++)
		self->prot[i] = prot;
	return 0;
}

/* Write a new tag into every writable page in [lo, hi), counting faults. */
static void mb_write(MB *self, size_t lo, size_t hi, uint32_t tag)
{
	long f0, f1;
	size_t i;

	for (i = lo; i < hi; i++) {
		self->flt[i] = -1;
		if (!(self->prot[i] & PROT_WRITE))
			continue;
		f0 = minflt();
		fill_page(self->mem + i * pagesize, tag, i);
		f1 = minflt();
		self->flt[i] = f1 - f0;
		self->tag[i] = tag;
	}
}

#define VF_PFN		0x1	/* present pages keep their PFN */
#define VF_PROT		0x2	/* probe read/write permission */
#define VF_CONTENT	0x4	/* contents match the expected tag */
#define VF_ALL		(VF_PFN | VF_PROT | VF_CONTENT)

/*
 * Check pages [lo, hi) against the expected state. Pages must be present
 * unless the kind may legitimately zap them (then they must come back
 * with the same PFN once accessed).
 */
static int mb_verify(MB *self, size_t lo, size_t hi, unsigned int flags,
		     const char *step)
{
	size_t n = hi - lo, i;
	uint64_t *pm;
	int errs = 0;

	pm = calloc(n, sizeof(*pm));
	if (!pm || pagemap_read(self->mem + lo * pagesize, n, pm)) {
		LOG_ERR("%s: cannot read pagemap", step);
		free(pm);
		return 1;
	}
	for (i = lo; i < hi; i++) {
		char *p = self->mem + i * pagesize;
		uint64_t e = pm[i - lo];
		bool r, w;

		if (!(e & PM_PRESENT)) {
			if (!self->may_unmap) {
				LOG_ERR("%s: page %zu not present (%#llx)",
					step, i, (unsigned long long)e);
				errs++;
			}
		} else if ((flags & VF_PFN) &&
			   (e & PM_PFN_MASK) != self->pfn[i]) {
			LOG_ERR("%s: page %zu pfn %#llx, expected %#llx", step,
				i, (unsigned long long)(e & PM_PFN_MASK),
				(unsigned long long)self->pfn[i]);
			errs++;
		}
		if (flags & VF_PROT) {
			char expect = ((const char *)&(uint64_t){
				pattern_word(self->tag[i], i, 0) })[0];

			r = probe_read(p);
			w = probe_write(p, expect);
			if (r != !!(self->prot[i] & PROT_READ) ||
			    w != !!(self->prot[i] & PROT_WRITE)) {
				LOG_ERR("%s: page %zu prot %d but read=%d write=%d",
					step, i, self->prot[i], r, w);
				errs++;
			}
		}
		if ((flags & VF_CONTENT) && (self->prot[i] & PROT_READ)) {
			long bad = check_page(p, self->tag[i], i);

			if (bad >= 0) {
				LOG_ERR("%s: page %zu word %ld is %#llx, expected %#llx",
					step, i, bad,
					(unsigned long long)((uint64_t *)p)[bad],
					(unsigned long long)pattern_word(self->tag[i], i, bad));
				errs++;
			}
		}
		if (self->may_unmap && (flags & VF_PFN) &&
		    (self->prot[i] & PROT_READ) && !(e & PM_PRESENT)) {
			/* accessed above: must be back, with the same PFN */
			e = pagemap_one(p);
			if ((flags & VF_CONTENT) && (!(e & PM_PRESENT) ||
			    (e & PM_PFN_MASK) != self->pfn[i])) {
				LOG_ERR("%s: page %zu remapped as %#llx, expected pfn %#llx",
					step, i, (unsigned long long)e,
					(unsigned long long)self->pfn[i]);
				errs++;
			}
		}
	}
	free(pm);
	return errs;
}

/* Number of pages in [lo, hi) whose last write took a fault. */
static int mb_faulted(MB *self, size_t lo, size_t hi, bool expect_fault,
		      const char *step)
{
	int errs = 0;
	size_t i;

	for (i = lo; i < hi; i++) {
		if (self->flt[i] < 0)
			continue;
		if (expect_fault != (self->flt[i] > 0)) {
			LOG_ERR("%s: page %zu write took %ld faults, expected %s",
				step, i, self->flt[i],
				expect_fault ? ">= 1" : "none");
			errs++;
		}
	}
	return errs;
}

static void mb_refresh_pfns(MB *self)
{
	uint64_t *pm = calloc(self->npages, sizeof(*pm));
	size_t i;

	if (!pm || pagemap_read(self->mem, self->npages, pm)) {
		free(pm);
		return;
	}
	for (i = 0; i < self->npages; i++)
		self->pfn[i] = pm[i] & PM_PFN_MASK;
	free(pm);
}

/* ------------------------------------------------------------------ */

FIXTURE_SETUP(mb)
{
	size_t fsize = folio_bytes(variant->folio), span, i;
	bool shmem = variant->kind == K_SHMEM;
	char *reserve, *aligned, *mem;
	const char *why;
	char reason[160];
	int flags, fd = -1;
	long pmdkb;

	self->memfd = -1;
	self->mem = NULL;
	logged = 0;
	if (geteuid())
		SKIP(return, "needs root (pagemap PFNs, THP knobs)");
	if (fsize > pmdsize)
		SKIP(return, "folio size %zu kB above the PMD size %zu kB",
		     fsize / 1024, pmdsize / 1024);
	if (variant->folio == F_O2 && fsize >= cont_size())
		SKIP(return, "4 pages are not below a contpte block here");
	if (variant->folio == F_PMD && 4 * 2 * pmdsize > mem_total())
		SKIP(return, "PMD size %zu MiB: two PMD THPs (COW doubles them) need more than half the RAM",
		     pmdsize >> 20);
	if (pagemap_open())
		SKIP(return, "no /proc/self/pagemap: %s", strerror(errno));
	if (kpageflags_fd < 0)
		SKIP(return, "no /proc/kpageflags: cannot verify folio sizes");
	ASSERT_EQ(0, probe_install());

	if (thp_configure(fsize / 1024, shmem, &why))
		SKIP(return, "%s", why);

	self->fpages = fsize / pagesize;
	/* 128 pages: 512K with 4K pages, as before; 8M with 64K pages */
	self->size = fsize < pmdsize ? 128 * pagesize : 2 * pmdsize;
	if (self->size < 8 * fsize && fsize < pmdsize)
		self->size = 8 * fsize;
	/* The big PTE batch: two folios, as the PMD-size shapes (64K: 64M) */
	if (variant->folio == F_BIG)
		self->size = 2 * fsize;
	self->npages = self->size / pagesize;
	self->private = variant->kind == K_ANON ||
			variant->kind == K_MEMFD_PRIVATE;
	self->may_unmap = variant->pmd_mapped && variant->kind != K_ANON;

	/*
	 * Reserve, then place the region: small folios straddle a PMD edge
	 * (half of the region below it), PMD-size ones start at one. The
	 * edge leaves at least a PMD of the reservation below the region and
	 * above it, whatever the ratio of region to PMD size (ppc64 radix
	 * with 64K pages: an 8M region, 2M PMDs).
	 */
	span = 2 * self->size + 4 * pmdsize;
	reserve = mmap(NULL, span, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, reserve);
	aligned = (char *)(((uintptr_t)reserve + self->size / 2 +
			    2 * pmdsize - 1) & ~(pmdsize - 1));
	mem = fsize < pmdsize ? aligned - self->size / 2 : aligned;

	switch (variant->kind) {
	case K_ANON:
		flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED;
		break;
	case K_SHMEM:
		flags = MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED;
		break;
	default:
		fd = memfd_create("mprotect_batch", MFD_CLOEXEC);
		if (fd < 0 && errno == ENOSYS)
			SKIP(return, "memfd_create: ENOSYS");
		ASSERT_LE(0, fd);
		self->memfd = fd;
		ASSERT_EQ(0, ftruncate(fd, self->size));
		flags = MAP_FIXED | (variant->kind == K_MEMFD_SHARED ?
				     MAP_SHARED : MAP_PRIVATE);
		if (variant->kind == K_MEMFD_PRIVATE) {
			/* file content first: tag 0 */
			char *buf = malloc(pagesize);

			ASSERT_NE(NULL, buf);
			for (i = 0; i < self->npages; i++) {
				fill_page(buf, 0, i);
				ASSERT_EQ((ssize_t)pagesize,
					  pwrite(fd, buf, pagesize, i * pagesize));
			}
			free(buf);
		}
		break;
	}
	ASSERT_EQ(mem, mmap(mem, self->size, PROT_READ | PROT_WRITE, flags,
			    fd, 0));
	/* Drop the rest of the reservation so the VMA is exactly ours. */
	ASSERT_EQ(0, munmap(reserve, mem - reserve));
	ASSERT_EQ(0, munmap(mem + self->size,
			    reserve + span - (mem + self->size)));
	self->mem = mem;

	self->pfn = calloc(self->npages, sizeof(*self->pfn));
	self->tag = calloc(self->npages, sizeof(*self->tag));
	self->prot = calloc(self->npages, sizeof(*self->prot));
	self->flt = calloc(self->npages, sizeof(*self->flt));
	ASSERT_NE(NULL, self->pfn);
	ASSERT_NE(NULL, self->tag);
	ASSERT_NE(NULL, self->prot);
	ASSERT_NE(NULL, self->flt);

	if (variant->madv_huge)
		thp_all_never();	/* 4K pages, though MADV_HUGEPAGE */
	if (self->fpages > 1 || variant->madv_huge) {
		if (madvise(mem, self->size, MADV_HUGEPAGE) && errno != EINVAL)
			ASSERT_EQ(0, errno);
	} else {
		madvise(mem, self->size, MADV_NOHUGEPAGE);
	}

	/* Populate: one write per page allocates the folios. */
	for (i = 0; i < self->npages; i++) {
		fill_page(mem + i * pagesize, 1, i);
		self->tag[i] = 1;
		self->prot[i] = PROT_READ | PROT_WRITE;
	}
	/*
	 * Keep khugepaged and PMD re-mapping away from the region: no new
	 * large folios from now on. The VMA keeps MADV_HUGEPAGE (or
	 * MADV_NOHUGEPAGE) as set up.
	 */
	thp_all_never();

	if (fsize == pmdsize && !variant->pmd_mapped) {
		/* PTE-map the THPs: split the PMD mapping, not the folio. */
		for (i = 0; i < self->size; i += pmdsize) {
			ASSERT_EQ(0, mprotect(mem + i + pagesize, pagesize,
					      PROT_READ));
			ASSERT_EQ(0, mprotect(mem + i + pagesize, pagesize,
					      PROT_READ | PROT_WRITE));
		}
		/*
		 * File PMDs are zapped on split: fault them back as PTEs,
		 * under MADV_NOHUGEPAGE, which refuses PMD mappings.
		 */
		madvise(mem, self->size, MADV_NOHUGEPAGE);
		for (i = 0; i < self->npages; i++)
			((volatile uint64_t *)(mem + i * pagesize))[0] =
				pattern_word(1, i, 0);
		madvise(mem, self->size, MADV_HUGEPAGE);
	}

	if (check_folio_shape(mem, self->size, fsize, reason, sizeof(reason)))
		SKIP(return, "did not get %zu kB folios (%s): %s",
		     fsize / 1024, kind_names[variant->kind], reason);
	if (fsize == pmdsize) {
		pmdkb = smaps_field(mem, variant->kind == K_ANON ?
				    "AnonHugePages" : "ShmemPmdMapped");
		if (variant->pmd_mapped && pmdkb != (long)(self->size / 1024))
			SKIP(return, "THPs not PMD-mapped (%ld kB)", pmdkb);
		if (!variant->pmd_mapped && pmdkb != 0)
			SKIP(return, "THPs still PMD-mapped (%ld kB)", pmdkb);
	}
	if (variant->kind == K_MEMFD_PRIVATE) {
		for (i = 0; i < self->npages; i++) {
			uint64_t e = pagemap_one(mem + i * pagesize);

			if (e & PM_FILE)
				SKIP(return, "page %zu is not an anon COW page", i);
		}
	}
	mb_refresh_pfns(self);
	ksft_print_msg("%s, %zu kB folios%s: %zu pages at %p\n",
		       kind_names[variant->kind], fsize / 1024,
		       variant->pmd_mapped ? " (PMD-mapped)" : "",
		       self->npages, mem);
}

FIXTURE_TEARDOWN(mb)
{
	if (self->mem)
		munmap(self->mem, self->size);
	if (self->memfd >= 0)
		close(self->memfd);
	free(self->pfn);
	free(self->tag);
	free(self->prot);
	free(self->flt);
}

/* Region and folio geometry in pages */
#define N	(self->npages)
#define F	(self->fpages)

/* ------------------------------------------------------------------ */
/* 1. whole folios: RO, NONE, back to RW; no PMD split, no write fault */

TEST_F_TIMEOUT(mb, mprotect_whole, 300)
{
	long rss0, thp0, rss1, thp1;
	const char *thpf = variant->kind == K_ANON ? "AnonHugePages" :
			   "ShmemPmdMapped";

	rss0 = smaps_field(self->mem, "Rss");
	thp0 = smaps_field(self->mem, thpf);
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_PFN | VF_CONTENT, "initial"));

	ASSERT_EQ(0, mb_mprotect(self, 0, N, PROT_READ));
	rss1 = smaps_field(self->mem, "Rss");
	thp1 = smaps_field(self->mem, thpf);
	EXPECT_EQ(rss0, rss1);
	EXPECT_EQ(thp0, thp1);
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "whole RO"));

	ASSERT_EQ(0, mb_mprotect(self, 0, N, PROT_NONE));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "whole NONE"));
	EXPECT_EQ(thp0, smaps_field(self->mem, thpf));

	ASSERT_EQ(0, mb_mprotect(self, 0, N, PROT_READ | PROT_WRITE));
	EXPECT_EQ(thp0, smaps_field(self->mem, thpf));
	mb_write(self, 0, N, 2);
	ASSERT_EQ(0, mb_faulted(self, 0, N, false, "whole NONE->RW write"));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "whole RW"));
	EXPECT_EQ(rss0, smaps_field(self->mem, "Rss"));
}

/* ------------------------------------------------------------------ */
/* 2. partial ranges: mid-folio, mid-64K, across the PMD boundary */

TEST_F_TIMEOUT(mb, mprotect_partial, 300)
{
	size_t mid = N / 2;	/* a PMD boundary for every variant */
	size_t s64 = cont_pages();	/* "mid-64K": mid contpte block */
	struct {
		size_t lo, hi;
		int prot;
		const char *name;
	} steps[] = {
		{ F / 2 + 1, N - F / 2 - 1, PROT_READ, "RO mid-folio..mid-folio" },
		{ 7, mid + 9, PROT_READ | PROT_WRITE, "RW mid-64K..past PMD" },
		{ mid - 5, mid + 3, PROT_NONE, "NONE across PMD" },
		{ s64 + 3, N - s64 - 5, PROT_READ, "RO mid-64K" },
		{ mid - F / 2 - 1, mid + F + 1, PROT_READ | PROT_WRITE,
		  "RW across PMD, mid-folio" },
		{ 0, N, PROT_READ, "RO whole" },
		{ 13, N - 11, PROT_READ | PROT_WRITE, "RW mid-folio" },
		{ 0, N, PROT_READ | PROT_WRITE, "RW whole" },
	};
	unsigned int s;

	for (s = 0; s < sizeof(steps) / sizeof(steps[0]); s++) {
		size_t lo = steps[s].lo, hi = steps[s].hi;

		if (hi > N)
			hi = N;
		if (lo >= hi)
			continue;
		ASSERT_EQ(0, mb_mprotect(self, lo, hi, steps[s].prot));
		if (steps[s].prot & PROT_WRITE) {
			mb_write(self, lo, hi, 10 + s);
			if (!self->may_unmap)
				ASSERT_EQ(0, mb_faulted(self, lo, hi, false,
							steps[s].name));
		}
		ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, steps[s].name));
	}
}

/* ------------------------------------------------------------------ */
/* 3. across VMAs: adjacent VMAs with different flags, split mid-folio */

TEST_F_TIMEOUT(mb, mprotect_cross_vma, 300)
{
	size_t a = N / 4 + F / 2 + 3, b = N / 2 + F / 2 + 5, c = 3 * N / 4 + 1;

	if (b > N - 8)
		b = N - 8;
	if (c < b + 4)
		c = b + 4;
	/* VMA 2 differs by VM_RAND_READ, VMA 3 by protection */
	ASSERT_EQ(0, madvise(self->mem + a * pagesize, (b - a) * pagesize,
			     MADV_RANDOM));
	ASSERT_EQ(0, mb_mprotect(self, c, N, PROT_READ));
	ASSERT_EQ(4, count_vmas(self->mem, self->size));

	/* one mprotect spanning all four VMAs, starting/ending mid-folio */
	ASSERT_EQ(0, mb_mprotect(self, F / 4 + 1, N - F / 4 - 1, PROT_READ));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "cross-VMA RO"));
	ASSERT_EQ(0, mb_mprotect(self, F / 2 + 1, N - 2,
				 PROT_READ | PROT_WRITE | PROT_EXEC));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "cross-VMA RWX"));
	ASSERT_EQ(0, mb_mprotect(self, 0, N, PROT_READ | PROT_WRITE));
	mb_write(self, 0, N, 3);
	if (!self->may_unmap)
		ASSERT_EQ(0, mb_faulted(self, 0, N, false, "cross-VMA RW"));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "cross-VMA RW"));

	ASSERT_EQ(0, madvise(self->mem, self->size, MADV_NORMAL));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "after merge"));
}

/* ------------------------------------------------------------------ */
/* 4. RO->RW on exclusive/dirty pages: writing takes no fault */

TEST_F_TIMEOUT(mb, write_no_fault, 300)
{
	size_t lo = F / 2 + 1;

	if (self->may_unmap)
		lo = 0;	/* a partial range would zap the file PMD */
	ASSERT_EQ(0, mb_mprotect(self, lo, N, PROT_READ));
	ASSERT_EQ(0, mb_mprotect(self, lo, N, PROT_READ | PROT_WRITE));
	mb_write(self, 0, N, 4);
	ASSERT_EQ(0, mb_faulted(self, 0, N, false, "RO->RW write"));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "RO->RW"));
	if (self->private) {
		/* nobody else maps these pages: exclusive per pagemap */
		uint64_t *pm = calloc(N, sizeof(*pm));
		size_t i;
		int errs = 0;

		ASSERT_NE(NULL, pm);
		ASSERT_EQ(0, pagemap_read(self->mem, N, pm));
		for (i = 0; i < N; i++)
			if (!(pm[i] & PM_MMAP_EXCLUSIVE)) {
				LOG_ERR("page %zu not exclusive", i);
				errs++;
			}
		free(pm);
		ASSERT_EQ(0, errs);
	}
}

/* ------------------------------------------------------------------ */
/* COW tests: child verifies its view after the parent wrote */

struct child {
	pid_t pid;
	int to_child, from_child;
};

/* In the child: which pages it still maps and must see unchanged. */
enum { C_SHARED = 1, C_DROPPED = 2, C_UNMAPPED = 0 };

static int child_body(MB *self, const unsigned char *cmap, bool dontneed,
		      int rd, int wr)
{
	char c = 0;
	size_t i;
	int bad = 0;

	/* the inherited fd still reads the parent's pagemap */
	close(pagemap_fd);
	pagemap_fd = -1;
	if (pagemap_open())
		return 13;
	if (dontneed) {
		for (i = 0; i < N; i++)
			if (cmap[i] == C_DROPPED &&
			    madvise(self->mem + i * pagesize, pagesize,
				    MADV_DONTNEED))
				return 10;
	}
	if (write(wr, &c, 1) != 1)
		return 11;
	if (read(rd, &c, 1) != 1)
		return 12;
	for (i = 0; i < N; i++) {
		const char *p = self->mem + i * pagesize;
		uint64_t e;

		if (cmap[i] == C_SHARED) {
			if (check_page(p, 1, i) >= 0) {
				if (bad++ < MAX_LOG)
					ksft_print_msg("child: page %zu changed under the child: %#llx\n",
						       i, (unsigned long long)*(uint64_t *)p);
			}
			e = pagemap_one(p);
			if ((e & PM_PRESENT) &&
			    (e & PM_PFN_MASK) != self->pfn[i]) {
				if (bad++ < MAX_LOG)
					ksft_print_msg("child: page %zu pfn moved\n", i);
			}
		} else if (cmap[i] == C_DROPPED) {
			/* anon: zero-fill; private file: the file's content */
			bool ok = self->memfd < 0 ? page_is_zero(p) :
				  check_page(p, 0, i) < 0;

			if (!ok && bad++ < MAX_LOG)
				ksft_print_msg("child: dropped page %zu neither zero-filled nor file content\n",
					       i);
		}
	}
	return bad ? 1 : 0;
}

static int start_child(MB *self, struct child *ch, const unsigned char *cmap,
		       bool dontneed)
{
	int p2c[2], c2p[2];
	char c;

	if (pipe(p2c) || pipe(c2p))
		return -1;
	ch->pid = fork();
	if (ch->pid < 0)
		return -1;
	if (ch->pid == 0) {
		close(p2c[1]);
		close(c2p[0]);
		_exit(child_body(self, cmap, dontneed, p2c[0], c2p[1]));
	}
	close(p2c[0]);
	close(c2p[1]);
	ch->to_child = p2c[1];
	ch->from_child = c2p[0];
	/* wait until the child has done its setup */
	if (read(ch->from_child, &c, 1) != 1)
		return -1;
	return 0;
}

/* returns the child's exit code, or -1 */
static int finish_child(struct child *ch)
{
	char c = 0;
	int st;

	if (write(ch->to_child, &c, 1) != 1)
		return -1;
	if (waitpid(ch->pid, &st, 0) != ch->pid)
		return -1;
	close(ch->to_child);
	close(ch->from_child);
	if (!WIFEXITED(st))
		return -1;
	return WEXITSTATUS(st);
}

/* Check per page: shared -> faulted + new PFN; exclusive -> no fault, same */
static int check_cow_writes(MB *self, size_t lo, size_t hi,
			    const unsigned char *shared,
			    const unsigned char *excl, const char *step)
{
	uint64_t *pm = calloc(N, sizeof(*pm));
	int errs = 0;
	size_t i;

	if (!pm || pagemap_read(self->mem, N, pm)) {
		free(pm);
		return 1;
	}
	for (i = lo; i < hi; i++) {
		uint64_t pfn = pm[i] & PM_PFN_MASK;

		if (!(pm[i] & PM_PRESENT)) {
			LOG_ERR("%s: page %zu not present after write", step, i);
			errs++;
			continue;
		}
		if (shared[i]) {
			if (self->flt[i] < 1 || pfn == self->pfn[i]) {
				LOG_ERR("%s: child-shared page %zu: %ld faults, pfn %s: write reached the shared page",
					step, i, self->flt[i],
					pfn == self->pfn[i] ? "unchanged" : "changed");
				errs++;
			}
		} else if (excl && excl[i]) {
			if (self->flt[i] != 0 || pfn != self->pfn[i]) {
				LOG_ERR("%s: exclusive page %zu: %ld faults, pfn %s",
					step, i, self->flt[i],
					pfn == self->pfn[i] ? "unchanged" : "changed");
				errs++;
			}
		}
	}
	free(pm);
	return errs;
}

TEST_F_TIMEOUT(mb, cow_fork, 300)
{
	unsigned char *cmap, *shared;
	size_t lo = F / 4 + 1, hi = N - F / 4 - 1, i;
	struct child ch;
	uint64_t *pm;

	if (!self->private)
		SKIP(return, "MAP_SHARED: no COW");
	cmap = calloc(N, 1);
	shared = calloc(N, 1);
	pm = calloc(N, sizeof(*pm));
	ASSERT_NE(NULL, cmap);
	ASSERT_NE(NULL, shared);
	ASSERT_NE(NULL, pm);
	memset(cmap, C_SHARED, N);
	memset(shared, 1, N);
	ASSERT_EQ(0, start_child(self, &ch, cmap, false));

	/* all pages are mapped by the child too: none is exclusive */
	ASSERT_EQ(0, pagemap_read(self->mem, N, pm));
	for (i = 0; i < N; i++)
		EXPECT_FALSE(!!(pm[i] & PM_MMAP_EXCLUSIVE));

	ASSERT_EQ(0, mb_mprotect(self, 0, N, PROT_READ));
	ASSERT_EQ(0, mb_mprotect(self, lo, hi, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL & ~VF_PROT, "fork RO->RW"));
	mb_write(self, lo, hi, 5);
	EXPECT_EQ(0, check_cow_writes(self, lo, hi, shared, NULL,
				      "fork RO->RW"));
	mb_refresh_pfns(self);
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "parent after COW"));
	ASSERT_EQ(0, finish_child(&ch));
	free(cmap);
	free(shared);
	free(pm);
}

/*
 * Folios whose pages differ in PageAnonExclusive in one VMA: mark parts
 * of each folio MADV_DONTFORK, fork (those parts stay exclusive, the rest
 * becomes COW-shared with the child), MADV_DOFORK again to merge the VMAs.
 * Even folios: first half exclusive, odd folios: second half exclusive.
 */
static int make_mixed(MB *self, unsigned char *excl, unsigned char *cmap)
{
	size_t i, run;

	for (i = 0; i < N; i++) {
		if (F == 1)
			excl[i] = i % 2;
		else if ((i / F) % 2 == 0)
			excl[i] = i % F < F / 2;
		else
			excl[i] = i % F >= F / 2;
		cmap[i] = excl[i] ? C_UNMAPPED : C_SHARED;
	}
	for (i = 0; i < N; i += run) {
		for (run = 1; i + run < N && excl[i + run] == excl[i]; run++)
			;
		if (excl[i] && madvise(self->mem + i * pagesize,
				       run * pagesize, MADV_DONTFORK))
			return -1;
	}
	return 0;
}

static void cow_mixed(struct __test_metadata *_metadata, MB *self,
		      int first_prot, bool keep_write)
{
	unsigned char *excl, *cmap;
	size_t lo = F / 4, hi = N - F / 4, i;
	struct child ch;
	uint64_t *pm;

	if (!self->private)
		SKIP(return, "MAP_SHARED: no COW");
	excl = calloc(N, 1);
	cmap = calloc(N, 1);
	pm = calloc(N, sizeof(*pm));
	ASSERT_NE(NULL, excl);
	ASSERT_NE(NULL, cmap);
	ASSERT_NE(NULL, pm);
	ASSERT_EQ(0, make_mixed(self, excl, cmap));
	ASSERT_EQ(0, start_child(self, &ch, cmap, false));
	ASSERT_EQ(0, madvise(self->mem, self->size, MADV_DOFORK));
	if (count_vmas(self->mem, self->size) != 1)
		ksft_print_msg("note: VMAs did not merge after MADV_DOFORK (%d)\n",
			       count_vmas(self->mem, self->size));

	/* pages the child maps must not be reported exclusive */
	ASSERT_EQ(0, pagemap_read(self->mem, N, pm));
	for (i = 0; i < N; i++)
		if (!excl[i])
			EXPECT_FALSE(!!(pm[i] & PM_MMAP_EXCLUSIVE));

	if (keep_write) {
		/* write permission stays: exclusive PTEs are still writable */
		ASSERT_EQ(0, mb_mprotect(self, lo, hi, first_prot));
	} else {
		ASSERT_EQ(0, mb_mprotect(self, lo + 1, hi - 1, first_prot));
		ASSERT_EQ(0, mb_mprotect(self, lo, hi, PROT_READ | PROT_WRITE));
	}
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_PFN | VF_CONTENT, "mixed"));
	mb_write(self, 0, N, 6);
	EXPECT_EQ(0, check_cow_writes(self, 0, N, cmap, excl, "mixed"));
	mb_refresh_pfns(self);
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL & ~VF_PROT, "parent after"));
	ASSERT_EQ(0, finish_child(&ch));
	free(excl);
	free(cmap);
	free(pm);
}

/* RO -> RW starting mid-folio at an exclusive page followed by shared ones */
TEST_F_TIMEOUT(mb, cow_mixed_ro_rw, 300)
{
	cow_mixed(_metadata, self, PROT_READ, false);
}

/* PROT_NONE -> RW over mixed folios */
TEST_F_TIMEOUT(mb, cow_mixed_none_rw, 300)
{
	cow_mixed(_metadata, self, PROT_NONE, false);
}

/* RW -> RWX: batch mixes writable (exclusive) and COW (read-only) PTEs */
TEST_F_TIMEOUT(mb, cow_mixed_rwx, 300)
{
	cow_mixed(_metadata, self, PROT_READ | PROT_WRITE | PROT_EXEC, true);
}

/*
 * Child drops the second half of each folio; parent COW-breaks one page
 * per folio before mprotect; parent RO -> RW from mid-folio, writes all.
 */
TEST_F_TIMEOUT(mb, cow_child_dontneed, 300)
{
	unsigned char *cmap, *shared, *excl;
	size_t lo = F / 4, hi = N - F / 4, i;
	struct child ch;

	if (!self->private)
		SKIP(return, "MAP_SHARED: no COW");
	cmap = calloc(N, 1);
	shared = calloc(N, 1);
	excl = calloc(N, 1);
	ASSERT_NE(NULL, cmap);
	ASSERT_NE(NULL, shared);
	ASSERT_NE(NULL, excl);
	for (i = 0; i < N; i++) {
		bool drop = F > 1 ? i % F >= F / 2 : i % 2 == 1;

		cmap[i] = drop ? C_DROPPED : C_SHARED;
	}
	ASSERT_EQ(0, start_child(self, &ch, cmap, true));

	/* parent unshares one still-shared page per folio before mprotect */
	for (i = 0; i < N; i++) {
		bool pw = F > 1 ? i % F == F / 2 - 1 : i % 4 == 2;

		if (!pw)
			continue;
		fill_page(self->mem + i * pagesize, 7, i);
		self->tag[i] = 7;
		excl[i] = 1;
	}
	mb_refresh_pfns(self);
	for (i = 0; i < N; i++) {
		shared[i] = cmap[i] == C_SHARED && !excl[i];
		if (excl[i]) {
			uint64_t e = pagemap_one(self->mem + i * pagesize);

			/* the COW copy is ours alone */
			EXPECT_TRUE(!!(e & PM_MMAP_EXCLUSIVE));
		}
	}

	ASSERT_EQ(0, mb_mprotect(self, lo + 1, hi - 1, PROT_READ));
	ASSERT_EQ(0, mb_mprotect(self, lo, hi, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_PFN | VF_CONTENT, "dontneed"));
	mb_write(self, 0, N, 8);
	EXPECT_EQ(0, check_cow_writes(self, 0, N, shared, excl, "dontneed"));
	mb_refresh_pfns(self);
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "parent after"));
	ASSERT_EQ(0, finish_child(&ch));
	free(cmap);
	free(shared);
	free(excl);
}

/* ------------------------------------------------------------------ */
/* lazyfree: a rewritten page must keep its dirty bit across mprotect */

TEST_F_TIMEOUT(mb, lazyfree_dirty, 300)
{
	size_t half = N / 2, i, discarded = 0, kept_ctrl = 0;
	unsigned char *rw;
	int errs = 0;

	if (variant->kind != K_ANON)
		SKIP(return, "MADV_FREE only works on private anon memory");
	rw = calloc(N, 1);
	ASSERT_NE(NULL, rw);
	if (madvise(self->mem, self->size, MADV_FREE)) {
		if (errno == EINVAL || errno == ENOSYS)
			SKIP(return, "MADV_FREE: %s", strerror(errno));
		ASSERT_EQ(0, errno);
	}
	/* rewrite one page per folio (not the first) in the first half */
	for (i = 0; i < half; i++) {
		rw[i] = F > 1 ? i % F == F / 2 + 1 || i % F == F - 1 :
				i % 4 == 1;
		if (rw[i]) {
			fill_page(self->mem + i * pagesize, 9, i);
			self->tag[i] = 9;
		}
	}
	ASSERT_EQ(0, mb_mprotect(self, 1, N - 1, PROT_READ));
	ASSERT_EQ(0, mb_mprotect(self, 0, N, PROT_READ | PROT_WRITE));
	if (madvise(self->mem, self->size, MADV_PAGEOUT)) {
		if (errno == EINVAL || errno == ENOSYS)
			SKIP(return, "MADV_PAGEOUT: %s", strerror(errno));
		ASSERT_EQ(0, errno);
	}
	/* control half: lazyfree and clean, so it must have been discarded */
	for (i = half; i < N; i++) {
		uint64_t e = pagemap_one(self->mem + i * pagesize);
		const char *p = self->mem + i * pagesize;

		if (!(e & (PM_PRESENT | PM_SWAP)))
			discarded++;
		if (page_is_zero(p))
			continue;
		if (check_page(p, 1, i) >= 0) {
			LOG_ERR("control page %zu neither zero nor original", i);
			errs++;
		} else {
			kept_ctrl++;
		}
	}
	ksft_print_msg("control: %zu/%zu pages discarded, %zu kept\n",
		       discarded, N - half, kept_ctrl);
	ASSERT_EQ(0, errs);
	if (kept_ctrl == N - half)
		SKIP(return, "reclaim did not discard any clean lazyfree page");
	for (i = 0; i < half; i++) {
		const char *p = self->mem + i * pagesize;

		if (rw[i]) {
			if (check_page(p, 9, i) >= 0) {
				LOG_ERR("rewritten page %zu lost its data (%s)", i,
					page_is_zero(p) ? "zero" : "garbage");
				errs++;
			}
		} else if (!page_is_zero(p) && check_page(p, 1, i) >= 0) {
			LOG_ERR("page %zu neither zero nor original", i);
			errs++;
		}
	}
	ASSERT_EQ(0, errs);
	free(rw);
}

/* ------------------------------------------------------------------ */
/* uffd-wp: protected pages stay protected across mprotect */

struct uffd_ctx {
	int uffd;
	char *mem;
	size_t npages;
	int *hits;
	volatile bool stop;
	int errors;
};

static void *uffd_handler(void *arg)
{
	struct uffd_ctx *u = arg;
	struct pollfd pfd = { .fd = u->uffd, .events = POLLIN };
	struct uffd_msg msg;

	while (!u->stop) {
		int r = poll(&pfd, 1, 50);

		if (r <= 0)
			continue;
		if (read(u->uffd, &msg, sizeof(msg)) != sizeof(msg))
			continue;
		if (msg.event == UFFD_EVENT_PAGEFAULT) {
			uintptr_t a = msg.arg.pagefault.address & ~(pagesize - 1);
			struct uffdio_writeprotect wp = {
				.range = { .start = a, .len = pagesize },
				.mode = 0,
			};
			size_t idx = (a - (uintptr_t)u->mem) / pagesize;

			if (idx < u->npages &&
			    (msg.arg.pagefault.flags & UFFD_PAGEFAULT_FLAG_WP))
				u->hits[idx]++;
			else
				u->errors++;
			if (ioctl(u->uffd, UFFDIO_WRITEPROTECT, &wp))
				u->errors++;
		}
	}
	return NULL;
}

TEST_F_TIMEOUT(mb, uffd_wp, 300)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	struct uffd_ctx u = { 0 };
	size_t lo = F / 4, hi = N - F / 4, i, run;
	unsigned char *wp;
	uint64_t *pm;
	pthread_t th;
	__u64 want = 0;
	int errs = 0;

	u.uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (u.uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));
	ASSERT_EQ(0, ioctl(u.uffd, UFFDIO_API, &api));
	close(u.uffd);
	if (variant->kind != K_ANON) {
		if (!(api.features & UFFD_FEATURE_WP_HUGETLBFS_SHMEM))
			SKIP(return, "no uffd-wp on shmem");
		want |= UFFD_FEATURE_WP_HUGETLBFS_SHMEM;
	}
	u.uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	ASSERT_LE(0, u.uffd);
	api.api = UFFD_API;
	api.features = want;
	ASSERT_EQ(0, ioctl(u.uffd, UFFDIO_API, &api));
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)self->mem;
	reg.range.len = self->size;
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	if (ioctl(u.uffd, UFFDIO_REGISTER, &reg))
		SKIP(return, "UFFDIO_REGISTER(WP): %s", strerror(errno));
	if (!(reg.ioctls & (1ULL << _UFFDIO_WRITEPROTECT)))
		SKIP(return, "no UFFDIO_WRITEPROTECT for this memory");

	wp = calloc(N, 1);
	pm = calloc(N, sizeof(*pm));
	u.hits = calloc(N, sizeof(int));
	ASSERT_NE(NULL, wp);
	ASSERT_NE(NULL, pm);
	ASSERT_NE(NULL, u.hits);
	for (i = 0; i < N; i++) {
		if (F == 1)
			wp[i] = i % 3 == 1;
		else if ((i / F) % 2 == 0)
			wp[i] = i % F >= F / 2;	/* unprotected, then protected */
		else
			wp[i] = i % F < F / 2 + 1;
	}
	for (i = 0; i < N; i += run) {
		struct uffdio_writeprotect w;

		for (run = 1; i + run < N && wp[i + run] == wp[i]; run++)
			;
		if (!wp[i])
			continue;
		w.range.start = (uintptr_t)self->mem + i * pagesize;
		w.range.len = run * pagesize;
		w.mode = UFFDIO_WRITEPROTECT_MODE_WP;
		ASSERT_EQ(0, ioctl(u.uffd, UFFDIO_WRITEPROTECT, &w));
	}
	ASSERT_EQ(0, pagemap_read(self->mem, N, pm));
	for (i = 0; i < N; i++)
		if (!!(pm[i] & PM_UFFD_WP) != wp[i]) {
			LOG_ERR("before mprotect: page %zu uffd-wp=%d, expected %d",
				i, !!(pm[i] & PM_UFFD_WP), wp[i]);
			errs++;
		}
	ASSERT_EQ(0, errs);

	ASSERT_EQ(0, mb_mprotect(self, lo + 1, hi - 1, PROT_READ));
	ASSERT_EQ(0, mb_mprotect(self, lo, hi, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_PFN | VF_CONTENT, "uffd-wp"));
	ASSERT_EQ(0, pagemap_read(self->mem, N, pm));
	for (i = 0; i < N; i++)
		if (!!(pm[i] & PM_UFFD_WP) != wp[i]) {
			LOG_ERR("after mprotect: page %zu uffd-wp=%d, expected %d",
				i, !!(pm[i] & PM_UFFD_WP), wp[i]);
			errs++;
		}
	ASSERT_EQ(0, errs);

	u.mem = self->mem;
	u.npages = N;
	ASSERT_EQ(0, pthread_create(&th, NULL, uffd_handler, &u));
	mb_write(self, 0, N, 11);
	u.stop = true;
	pthread_join(th, NULL);
	ASSERT_EQ(0, u.errors);
	for (i = 0; i < N; i++) {
		if (u.hits[i] != wp[i]) {
			LOG_ERR("page %zu: %d uffd-wp faults, expected %d",
				i, u.hits[i], wp[i]);
			errs++;
		}
		/* exclusive anon pages without uffd-wp: made writable */
		if (!wp[i] && self->private && self->flt[i] != 0) {
			LOG_ERR("page %zu (not wp) took %ld faults",
				i, self->flt[i]);
			errs++;
		}
	}
	ASSERT_EQ(0, errs);
	ASSERT_EQ(0, pagemap_read(self->mem, N, pm));
	for (i = 0; i < N; i++)
		EXPECT_FALSE(!!(pm[i] & PM_UFFD_WP));
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "after wp faults"));
	close(u.uffd);
	free(wp);
	free(pm);
	free(u.hits);
}

/*
 * Async uffd-wp + PAGEMAP_SCAN: write-protect everything, mprotect from
 * mid-folio, write a subset: PAGE_IS_WRITTEN must report exactly that set.
 */
static int scan_written(MB *self, unsigned char *written, __u64 flags)
{
	struct page_region *vec;
	struct pm_scan_arg arg;
	long n, k;
	size_t i;

	vec = calloc(N, sizeof(*vec));
	if (!vec)
		return -ENOMEM;
	memset(&arg, 0, sizeof(arg));
	arg.size = sizeof(arg);
	arg.flags = flags;
	arg.start = (uintptr_t)self->mem;
	arg.end = (uintptr_t)self->mem + self->size;
	arg.vec = (uintptr_t)vec;
	arg.vec_len = N;
	arg.category_mask = PAGE_IS_WRITTEN;
	arg.return_mask = PAGE_IS_WRITTEN;
	n = ioctl(pagemap_fd, PAGEMAP_SCAN, &arg);
	if (n < 0) {
		free(vec);
		return -errno;
	}
	if (written) {
		memset(written, 0, N);
		for (k = 0; k < n; k++)
			for (i = (vec[k].start - (uintptr_t)self->mem) / pagesize;
			     i < (vec[k].end - (uintptr_t)self->mem) / pagesize &&
			     i < N; i++)
				written[i] = 1;
	}
	free(vec);
	return arg.walk_end == arg.end ? 0 : -EAGAIN;
}

TEST_F_TIMEOUT(mb, uffd_wp_async_scan, 300)
{
	struct uffdio_api api = { .api = UFFD_API };
	struct uffdio_register reg;
	size_t lo = F / 4, hi = N - F / 4, i;
	unsigned char *w, *seen;
	int uffd, errs = 0, r;

	if (self->may_unmap)
		SKIP(return, "file PMD split drops PTEs; covered by the _pte variant");
	uffd = syscall(__NR_userfaultfd, O_CLOEXEC | O_NONBLOCK);
	if (uffd < 0)
		SKIP(return, "userfaultfd: %s", strerror(errno));
	api.features = UFFD_FEATURE_WP_ASYNC | UFFD_FEATURE_WP_UNPOPULATED;
	if (variant->kind != K_ANON)
		api.features |= UFFD_FEATURE_WP_HUGETLBFS_SHMEM;
	if (ioctl(uffd, UFFDIO_API, &api))
		SKIP(return, "UFFDIO_API(WP_ASYNC): %s", strerror(errno));
	memset(&reg, 0, sizeof(reg));
	reg.range.start = (uintptr_t)self->mem;
	reg.range.len = self->size;
	reg.mode = UFFDIO_REGISTER_MODE_WP;
	if (ioctl(uffd, UFFDIO_REGISTER, &reg))
		SKIP(return, "UFFDIO_REGISTER(WP): %s", strerror(errno));

	w = calloc(N, 1);
	seen = calloc(N, 1);
	ASSERT_NE(NULL, w);
	ASSERT_NE(NULL, seen);
	/* write-protect every page (clears "written") */
	r = scan_written(self, NULL, PM_SCAN_WP_MATCHING | PM_SCAN_CHECK_WPASYNC);
	if (r == -EINVAL || r == -ENOTTY || r == -ENOSYS)
		SKIP(return, "PAGEMAP_SCAN: %s", strerror(-r));
	ASSERT_EQ(0, r);
	ASSERT_EQ(0, scan_written(self, seen, 0));
	for (i = 0; i < N; i++)
		if (seen[i]) {
			LOG_ERR("page %zu reported written right after write-protect", i);
			errs++;
		}
	ASSERT_EQ(0, errs);

	ASSERT_EQ(0, mb_mprotect(self, lo + 1, hi - 1, PROT_READ));
	ASSERT_EQ(0, mb_mprotect(self, lo, hi, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, scan_written(self, seen, 0));
	for (i = 0; i < N; i++)
		if (seen[i]) {
			LOG_ERR("page %zu reported written after mprotect only", i);
			errs++;
		}
	ASSERT_EQ(0, errs);

	for (i = 0; i < N; i++) {
		w[i] = F > 1 ? (i % F) % 3 == 1 || i % F == F - 1 : i % 3 == 1;
		if (w[i]) {
			fill_page(self->mem + i * pagesize, 15, i);
			self->tag[i] = 15;
		}
	}
	ASSERT_EQ(0, scan_written(self, seen, 0));
	for (i = 0; i < N; i++)
		if (seen[i] != w[i]) {
			LOG_ERR("page %zu: PAGE_IS_WRITTEN=%d but written=%d",
				i, seen[i], w[i]);
			errs++;
		}
	ASSERT_EQ(0, errs);
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "async wp"));
	close(uffd);
	free(w);
	free(seen);
}

/* ------------------------------------------------------------------ */
/*
 * soft-dirty (x86, s390, powerpc book3s64): bits must match what was written
 * after the clear
 */

static bool hash_sel(size_t i, unsigned int salt)
{
	uint32_t h = (uint32_t)(i * 2654435761u) ^ (salt * 0x9e3779b9u);

	h ^= h >> 13;
	h *= 0x5bd1e995u;
	h ^= h >> 15;
	return h % 3 == 0;
}

TEST_F_TIMEOUT(mb, softdirty, 300)
{
	size_t lo = F / 4, hi = N - F / 4, i, blk;
	unsigned char *w1, *w2, *blockw;
	uint64_t *pm;
	int errs = 0;
	int fd;

#if !defined(__x86_64__) && !defined(__s390x__) && !defined(__powerpc64__)
	SKIP(return, "no soft-dirty tracking on this arch");
#endif
	if (self->may_unmap)
		SKIP(return, "file PMD split zaps PTEs; covered by the _pte variant");
	w1 = calloc(N, 1);
	w2 = calloc(N, 1);
	blockw = calloc(N / F + 1, 1);
	pm = calloc(N, sizeof(*pm));
	ASSERT_NE(NULL, w1);
	ASSERT_NE(NULL, w2);
	ASSERT_NE(NULL, blockw);
	ASSERT_NE(NULL, pm);

	/* a new VMA is all soft-dirty (VM_SOFTDIRTY) if the kernel tracks it */
	ASSERT_EQ(0, pagemap_read(self->mem, N, pm));
	for (i = 0; i < N; i++)
		if (!(pm[i] & PM_SOFT_DIRTY))
			SKIP(return, "no soft-dirty tracking (CONFIG_MEM_SOFT_DIRTY off)");
	fd = open("/proc/self/clear_refs", O_WRONLY);
	if (fd < 0)
		SKIP(return, "no /proc/self/clear_refs");
	if (write(fd, "4", 1) != 1)
		SKIP(return, "clear_refs 4: %s", strerror(errno));
	close(fd);
	ASSERT_EQ(0, pagemap_read(self->mem, N, pm));
	for (i = 0; i < N; i++)
		if (pm[i] & PM_SOFT_DIRTY)
			SKIP(return, "soft-dirty not cleared by clear_refs");

	for (i = 0; i < N; i++) {
		w1[i] = hash_sel(i, 1);
		w2[i] = hash_sel(i, 2);
	}
	for (i = 0; i < N; i++) {
		self->flt[i] = -1;
		if (w1[i]) {
			long f0 = minflt();

			fill_page(self->mem + i * pagesize, 12, i);
			self->flt[i] = minflt() - f0;
			self->tag[i] = 12;
			blockw[i / F] = 1;
		}
	}
	if (!variant->pmd_mapped)
		ASSERT_EQ(0, mb_faulted(self, 0, N, true, "soft-dirty W1"));

	ASSERT_EQ(0, mb_mprotect(self, lo + 1, hi - 1, PROT_READ));
	ASSERT_EQ(0, mb_mprotect(self, lo, hi, PROT_READ | PROT_WRITE));
	ASSERT_EQ(0, pagemap_read(self->mem, N, pm));
	for (i = 0; i < N; i++) {
		/* a write through a PMD mapping dirties the whole PMD */
		bool expect = w1[i] || (variant->pmd_mapped && blockw[i / F]);

		if (!!(pm[i] & PM_SOFT_DIRTY) != expect) {
			LOG_ERR("after mprotect: page %zu soft-dirty=%d, expected %d",
				i, !!(pm[i] & PM_SOFT_DIRTY), expect);
			errs++;
		}
	}
	ASSERT_EQ(0, errs);

	for (i = 0; i < N; i++) {
		self->flt[i] = -1;
		if (w2[i]) {
			long f0 = minflt();

			fill_page(self->mem + i * pagesize, 13, i);
			self->flt[i] = minflt() - f0;
			self->tag[i] = 13;
		}
	}
	for (i = 0, blk = 0; i < N; i++) {
		bool was_sd = w1[i] || (variant->pmd_mapped && blockw[i / F]);

		if (!w2[i])
			continue;
		/* a clean PTE must not have been made writable */
		if (!was_sd && self->flt[i] < 1) {
			LOG_ERR("page %zu: write without fault on a non-soft-dirty page",
				i);
			errs++;
		}
		/*
		 * A dirty, soft-dirty, exclusive private page is made writable
		 * by R -> RW. 6.12 does not do it for shared memory whose
		 * write-notify comes from soft-dirty tracking alone: mprotect_fixup()
		 * asks vma_wants_writenotify() with the old (read-only)
		 * vm_page_prot, which then differs from what the new flags
		 * give, so MM_CP_TRY_CHANGE_WRITABLE is not set and every
		 * page faults, on stock as on patched.
		 */
		if (w1[i] && !variant->pmd_mapped && self->flt[i] != 0) {
			if (!self->private) {
				blk++;
				continue;
			}
			LOG_ERR("page %zu: soft-dirty, dirty and exclusive, but its write after R -> RW faulted",
				i);
			errs++;
		}
	}
	if (blk)
		ksft_print_msg("%zu soft-dirty pages of shared memory took a write fault, as in 6.12 (see the test)\n",
			       blk);
	ASSERT_EQ(0, pagemap_read(self->mem, N, pm));
	for (i = 0; i < N; i++) {
		bool expect = w1[i] || w2[i] ||
			      (variant->pmd_mapped && blockw[i / F]);

		if (!!(pm[i] & PM_SOFT_DIRTY) != expect) {
			LOG_ERR("after writes: page %zu soft-dirty=%d, expected %d",
				i, !!(pm[i] & PM_SOFT_DIRTY), expect);
			errs++;
		}
	}
	ASSERT_EQ(0, errs);
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "soft-dirty"));
	free(w1);
	free(w2);
	free(blockw);
	free(pm);
}

/* ------------------------------------------------------------------ */
/* NUMA hinting: prot_numa changes over large folios keep data intact */

static int cpus_of_node(int node, cpu_set_t *set)
{
	char path[96], buf[256], *p;
	int a, b, c;

	snprintf(path, sizeof(path), "/sys/devices/system/node/node%d/cpulist",
		 node);
	if (read_file(path, buf, sizeof(buf)))
		return -1;
	CPU_ZERO(set);
	for (p = buf; *p && *p != '\n';) {
		if (sscanf(p, "%d-%d", &a, &b) != 2) {
			if (sscanf(p, "%d", &a) != 1)
				break;
			b = a;
		}
		for (c = a; c <= b; c++)
			CPU_SET(c, set);
		p = strchr(p, ',');
		if (!p)
			break;
		p++;
	}
	return CPU_COUNT(set) ? 0 : -1;
}

static void set_numa_scan_fast(void)
{
	static const char * const dirs[] = {
		"/sys/kernel/debug/sched/numa_balancing/",
		"/proc/sys/kernel/numa_balancing_",
	};
	char path[128];
	unsigned int d;

	for (d = 0; d < 2; d++) {
		snprintf(path, sizeof(path), "%sscan_delay_ms", dirs[d]);
		write_file(path, "0");
		snprintf(path, sizeof(path), "%sscan_period_min_ms", dirs[d]);
		write_file(path, "10");
		snprintf(path, sizeof(path), "%sscan_period_max_ms", dirs[d]);
		write_file(path, "100");
		snprintf(path, sizeof(path), "%sscan_size_mb", dirs[d]);
		write_file(path, "256");
	}
}

/*
 * One NUMA iteration: touch every page (all mapped and writable), and
 * optionally cycle RO -> RW from mid-folio. Returns the faults taken.
 */
static long numa_iteration(MB *self, bool cycle)
{
	size_t lo = F / 4, hi = N - F / 4, i;
	long f0 = minflt(), f;

	for (i = 0; i < N; i++)
		((volatile uint64_t *)(self->mem + i * pagesize))[0] =
			pattern_word(self->tag[i], i, 0);
	if (cycle) {
		if (mb_mprotect(self, lo + 1, hi - 1, PROT_READ))
			return -1;
		/* reading RO pages must not fault either */
		for (i = 0; i < N; i++)
			(void)((volatile uint64_t *)(self->mem + i * pagesize))[1];
		f = minflt();
		if (mb_verify(self, 0, N, VF_CONTENT | VF_PROT, "numa RO"))
			return -1;
		/* probing writes to RO pages only raise SIGSEGV */
		f0 += minflt() - f;
		if (mb_mprotect(self, lo, hi, PROT_READ | PROT_WRITE))
			return -1;
	}
	for (i = 0; i < N; i++)
		((volatile uint64_t *)(self->mem + i * pagesize))[0] =
			pattern_word(self->tag[i], i, 0);
	return minflt() - f0;
}

/*
 * Read-only zero-page PTEs for the NUMA scanner to meet: they map no folio,
 * which prot_numa must skip without looking at one. Returns the mapping of
 * ZERO_PAGES pages, each mapped to the same (zero) pfn, or NULL.
 */
#define ZERO_PAGES	64
static char *map_zero_pages(void)
{
	char *p = mmap(NULL, ZERO_PAGES * pagesize, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	uint64_t pm[ZERO_PAGES];
	size_t i;

	if (p == MAP_FAILED)
		return NULL;
	/* a PMD-mapped huge zero page would not reach change_pte_range() */
	madvise(p, ZERO_PAGES * pagesize, MADV_NOHUGEPAGE);
	for (i = 0; i < ZERO_PAGES; i++)
		(void)((volatile char *)p)[i * pagesize];
	if (pagemap_read(p, ZERO_PAGES, pm))
		goto none;
	for (i = 0; i < ZERO_PAGES; i++)
		if (!(pm[i] & PM_PRESENT) ||
		    (pm[i] & PM_PFN_MASK) != (pm[0] & PM_PFN_MASK))
			goto none;
	return p;
none:
	munmap(p, ZERO_PAGES * pagesize);
	return NULL;
}

TEST_F_TIMEOUT(mb, numa_hinting, 600)
{
	unsigned long node1 = 1UL << 1;
	long long u0, h0, u1 = 0, h1 = 0;
	char *zero;
	size_t i;
	struct timespec t0, t;
	int iter = 0, after = 0;
	char reason[160];
	long r, hint = 0;
	cpu_set_t cpus;

	if (numa_nodes_with_memory() < 2)
		SKIP(return, "needs 2 NUMA nodes with memory");
	if (access("/proc/sys/kernel/numa_balancing", F_OK))
		SKIP(return, "no CONFIG_NUMA_BALANCING");
	if (cpus_of_node(0, &cpus))
		SKIP(return, "node 0 has no CPUs");
	ASSERT_EQ(0, sched_setaffinity(0, sizeof(cpus), &cpus));

	/* move the folios to node 1 with a policy NUMA balancing scans */
	r = syscall(__NR_mbind, self->mem, self->size,
		    MPOL_BIND | MPOL_F_NUMA_BALANCING, &node1,
		    sizeof(node1) * 8, MPOL_MF_MOVE);
	if (r && (errno == ENOSYS || errno == EINVAL))
		SKIP(return, "mbind(MPOL_BIND|MPOL_F_NUMA_BALANCING): %s",
		     strerror(errno));
	ASSERT_EQ(0, r);
	if (check_folio_shape(self->mem, self->size, F * pagesize, reason,
			      sizeof(reason)))
		SKIP(return, "folios split by migration to node 1: %s", reason);
	for (i = 0; i < N; i += F) {
		int node = -1;

		ASSERT_EQ(0, syscall(__NR_get_mempolicy, &node, NULL, 0,
				     self->mem + i * pagesize,
				     MPOL_F_NODE | MPOL_F_ADDR));
		if (node != 1)
			SKIP(return, "page %zu is on node %d, not 1", i, node);
	}
	mb_refresh_pfns(self);
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "on node 1"));

	/*
	 * Control: with NUMA balancing off, touch passes + mprotect cycles
	 * must not fault at all (after a warm-up).
	 */
	for (r = 0, iter = 0; r < 6; r++) {
		long f = numa_iteration(self, r % 2 == 0);

		if (f < 0)
			ASSERT_EQ(0, f);
		if (r >= 2)
			iter += f;
	}
	if (iter)
		SKIP(return, "touching mapped, writable pages faults %d times without NUMA balancing",
		     iter);

	zero = map_zero_pages();
	if (!zero)
		SKIP(return, "reading fresh anonymous memory maps no zero page");
	ASSERT_EQ(0, write_file("/proc/sys/kernel/numa_balancing", "1"));
	set_numa_scan_fast();
	/* without CONFIG_VM_EVENT_COUNTERS these read -1 */
	u0 = vmstat_get("numa_pte_updates");
	h0 = vmstat_get("numa_huge_pte_updates");
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (iter = 0;; iter++) {
		long f = numa_iteration(self, iter % 2 == 0);

		if (f < 0)
			ASSERT_EQ(0, f);
		/* any fault here is a NUMA hinting fault */
		hint += f;
		u1 = vmstat_get("numa_pte_updates");
		h1 = vmstat_get("numa_huge_pte_updates");
		clock_gettime(CLOCK_MONOTONIC, &t);
		if ((u1 > u0 || h1 > h0 || hint > 0) && iter >= 4 &&
		    ++after > 4)
			break;
		if (t.tv_sec - t0.tv_sec > 150)
			break;
	}
	write_file("/proc/sys/kernel/numa_balancing", "0");
	ksft_print_msg("%d iterations in %ld s: numa_pte_updates +%lld, numa_huge_pte_updates +%lld, hinting faults while touching: %ld\n",
		       iter, (long)(t.tv_sec - t0.tv_sec), u1 - u0, h1 - h0,
		       hint);
	EXPECT_TRUE(u1 > u0 || h1 > h0 || hint > 0)
		TH_LOG("the NUMA scanner never made a PTE prot_numa");
	for (i = 0; i < ZERO_PAGES * pagesize; i++)
		ASSERT_EQ(0, zero[i]);
	munmap(zero, ZERO_PAGES * pagesize);
	mb_write(self, 0, N, 14);
	ASSERT_EQ(0, mb_verify(self, 0, N, VF_ALL, "numa end"));
}

/* TEST() outside a fixture: its wrapper does not use the variant. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"

/* ------------------------------------------------------------------ */
/* Dirty bits set by the CPU: the VM must have them, fork() must keep them */

/* Map @size bytes of private anon memory aligned to @align, or NULL. */
static char *map_aligned(size_t size, size_t align)
{
	char *reserve, *mem;

	reserve = mmap(NULL, size + align, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (reserve == MAP_FAILED)
		return NULL;
	mem = (char *)(((uintptr_t)reserve + align - 1) & ~(align - 1));
	if (mmap(mem, size, PROT_READ | PROT_WRITE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != mem) {
		munmap(reserve, size + align);
		return NULL;
	}
	if (mem > reserve)
		munmap(reserve, mem - reserve);
	munmap(mem + size, reserve + align - mem);
	return mem;
}

/*
 * MADV_FREE queues the folios it makes lazyfree in a per-CPU batch, and
 * MADV_PAGEOUT drains only its own CPU's batches: a folio left in another
 * CPU's batch is still swap-backed and is not discarded. Keep a test that
 * pairs the two on the CPU it runs on.
 */
static int pin_to_this_cpu(void)
{
	int cpu = sched_getcpu();
	cpu_set_t cpus;

	if (cpu < 0)
		return -1;
	CPU_ZERO(&cpus);
	CPU_SET(cpu, &cpus);
	return sched_setaffinity(0, sizeof(cpus), &cpus);
}

/*
 * After MADV_FREE every PTE of the range is clean but stays writable. Where
 * the CPU manages dirty bits (x86; arm64 with FEAT_HAFDBS and
 * CONFIG_ARM64_HW_AFDBM, as every distribution kernel and our test VMs),
 * a write through such a PTE takes no fault: the CPU sets the dirty bit.
 * Without that, the tests below cannot see a lost hardware dirty bit, so
 * this is asserted, not assumed: no fault on the writes, the rewritten
 * pages survive MADV_PAGEOUT (their dirty bit was seen), and the untouched
 * control pages are discarded (MADV_FREE made them clean, reclaim ran).
 */
TEST(hw_dirty_no_fault)
{
	size_t npages = 32, i, kept = 0, discarded = 0;
	long f0, f1, faults = 0;
	long long mig;
	int attempt;
	char *mem;

	if (!hw_dirty_expected())
		SKIP(return, "the CPU does not set dirty bits on this arch");
	if (geteuid())
		SKIP(return, "needs root (MADV_PAGEOUT of lazyfree memory)");
	/* NUMA hinting faults would count as faults too. */
	write_file("/proc/sys/kernel/numa_balancing", "0");
	ASSERT_EQ(0, pin_to_this_cpu());
	/*
	 * A page migrated in between (compaction) faults on its migration
	 * entry: try three times, the CPU must manage once without a fault.
	 */
	for (attempt = 0; attempt < 3; attempt++) {
		mig = vmstat_get("pgmigrate_success");
		mem = map_aligned(npages * pagesize, pagesize);
		ASSERT_NE(NULL, mem);
		madvise(mem, npages * pagesize, MADV_NOHUGEPAGE);
		memset(mem, 1, npages * pagesize);
		ASSERT_EQ(0, madvise(mem, npages * pagesize, MADV_FREE));
		for (i = 0, faults = 0; i < npages; i += 2) {
			f0 = minflt();
			mem[i * pagesize + 8] = 2;
			f1 = minflt();
			faults += f1 - f0;
		}
		if (!faults)
			break;
		ksft_print_msg("attempt %d: %ld faults (%lld pages migrated meanwhile)\n",
			       attempt, faults,
			       vmstat_get("pgmigrate_success") - mig);
		if (attempt < 2)
			munmap(mem, npages * pagesize);
	}
	ASSERT_EQ(0, madvise(mem, npages * pagesize, MADV_PAGEOUT));
	for (i = 0; i < npages; i++) {
		const char *p = mem + i * pagesize;

		if (i % 2 == 0 && p[8] != 2) {
			LOG_ERR("rewritten page %zu lost its data (%d)", i, p[8]);
			kept = npages;
		} else if (i % 2 == 1) {
			if (page_is_zero(p))
				discarded++;
		}
	}
	ksft_print_msg("writes to clean writable PTEs: %ld faults; %zu of %zu control pages discarded\n",
		       faults, discarded, npages / 2);
	EXPECT_EQ(0, faults) {
		TH_LOG("the CPU did not set the dirty bits: hardware dirty management is off (CONFIG_ARM64_HW_AFDBM, CPU model)");
	}
	EXPECT_EQ((size_t)0, kept);
	EXPECT_EQ(npages / 2, discarded) {
		TH_LOG("MADV_PAGEOUT did not discard clean lazyfree pages");
	}
	munmap(mem, npages * pagesize);
}

/*
 * fork() copies a private large folio's PTEs in batches that must not mix
 * dirty and clean PTEs (folio_pte_batch() compares the dirty bit there).
 * On arm64, ptep_get() of a contpte entry gathers the dirty bits of its
 * whole block; a raw read of a block's first entry misses a dirty bit the
 * CPU set on another entry. Shape: a folio of two contpte blocks, made
 * clean by MADV_FREE, then one write to a page of the second block that is
 * not its first (no fault: the CPU dirties the PTE), then fork(). The
 * parent unmaps; the child pages the range out. If the child's PTEs were
 * copied clean, reclaim discards the lazyfree folio and the child reads
 * zeros where the parent wrote before the fork. A second lazyfree folio
 * that nobody rewrites must be discarded: reclaim did run.
 */
TEST(fork_hw_dirty)
{
	size_t block = cont_pages(), fsize = 2 * block * pagesize, page;
	int round, rounds = 8, lost = 0, faulted = 0, kept_ctrl = 0, st;
	int attempt = 0;
	char reason[160], *mem;
	long long mig;
	const char *why;
	int sync[2];
	long f0, f1;
	pid_t pid;

	if (!hw_dirty_expected())
		SKIP(return, "the CPU does not set dirty bits on this arch");
	if (geteuid())
		SKIP(return, "needs root (THP knobs, pagemap PFNs)");
	if (pagemap_open() || kpageflags_fd < 0)
		SKIP(return, "no /proc/self/pagemap or /proc/kpageflags");
	if (thp_configure(fsize / 1024, false, &why))
		SKIP(return, "%zu kB folios: %s", fsize / 1024, why);
	/* The child inherits the CPU and pages out what its parent freed. */
	ASSERT_EQ(0, pin_to_this_cpu());

	/*
	 * A round whose write faulted (e.g. compaction migrated the folio in
	 * between: the migration entry faults) shows nothing: it is logged
	 * and run again, three times as many attempts as rounds at most.
	 */
	for (round = 0; round < rounds && attempt < 3 * rounds; attempt++) {
		/* The second contpte block, any page but its first. */
		page = block + 1 + round % (block - 1);
		mig = vmstat_get("pgmigrate_success");
		mem = map_aligned(2 * fsize, fsize);
		ASSERT_NE(NULL, mem);
		ASSERT_EQ(0, madvise(mem, 2 * fsize, MADV_HUGEPAGE));
		memset(mem, 0x5a, 2 * fsize);
		if (check_folio_shape(mem, 2 * fsize, fsize, reason,
				      sizeof(reason)))
			SKIP(return, "did not get %zu kB folios: %s",
			     fsize / 1024, reason);
		ASSERT_EQ(0, madvise(mem, 2 * fsize, MADV_FREE));
		f0 = minflt();
		mem[page * pagesize + 1] = 0x60 + round;
		f1 = minflt();
		if (f1 != f0) {
			ksft_print_msg("round %d: the write to page %zu took %ld faults (%lld pages migrated meanwhile); again\n",
				       round, page, f1 - f0,
				       vmstat_get("pgmigrate_success") - mig);
			faulted++;
			ASSERT_EQ(0, munmap(mem, 2 * fsize));
			continue;
		}

		ASSERT_EQ(0, pipe(sync));
		pid = fork();
		ASSERT_LE(0, pid);
		if (pid == 0) {
			char c;
			int ret = 0;

			close(sync[1]);
			if (read(sync[0], &c, 1) != 1)
				_exit(3);
			if (madvise(mem, 2 * fsize, MADV_PAGEOUT))
				_exit(3);
			if (mem[page * pagesize + 1] != 0x60 + round)
				ret |= 1;
			if (!page_is_zero(mem + fsize))
				ret |= 2;
			_exit(ret);
		}
		close(sync[0]);
		/* Only the child maps the folios now: reclaim may take them. */
		ASSERT_EQ(0, munmap(mem, 2 * fsize));
		ASSERT_EQ(1, write(sync[1], "g", 1));
		close(sync[1]);
		ASSERT_EQ(pid, waitpid(pid, &st, 0));
		ASSERT_TRUE(WIFEXITED(st));
		ASSERT_NE(3, WEXITSTATUS(st));
		if (WEXITSTATUS(st) & 1) {
			LOG_ERR("round %d: the child lost the write to page %zu of the %zu kB folio",
				round, page, fsize / 1024);
			lost++;
		}
		kept_ctrl += !!(WEXITSTATUS(st) & 2);
		round++;
	}
	ksft_print_msg("%d rounds, %zu kB folios: %d writes faulted (rounds run again), %d lost, control folio kept %d times\n",
		       round, fsize / 1024, faulted, lost, kept_ctrl);
	EXPECT_EQ(rounds, round) {
		TH_LOG("the CPU did not set the dirty bits: nothing to see here");
	}
	EXPECT_EQ(0, kept_ctrl) {
		TH_LOG("MADV_PAGEOUT did not discard a clean lazyfree folio");
	}
	EXPECT_EQ(0, lost);
}

/* ------------------------------------------------------------------ */
/* Shared file mapping with write-notify: XFS (page_mkwrite, large folios) */

#define XFS_DIR		"/mnt/xfs"
/* 1024 pages: 4 MiB with 4K pages, 64 MiB with 64K (300 MiB disk) */
#define XFS_FILE_SIZE	(1024 * pagesize)

/*
 * Why the XFS tests cannot run here, or NULL: they need the test VM's XFS
 * disk and the kernel's pagemap and kpageflags. NUMA balancing is turned
 * off: a NUMA hinting fault would pass for a write fault they look for.
 */
static const char *xfs_unavailable(void)
{
	struct statfs sfs;

	if (statfs(XFS_DIR, &sfs) || sfs.f_type != XFS_SUPER_MAGIC)
		return "no XFS file system mounted on " XFS_DIR;
	if (pagemap_open() || kpageflags_fd < 0)
		return "no /proc/self/pagemap or /proc/kpageflags";
	write_file("/proc/sys/kernel/numa_balancing", "0");
	return NULL;
}

/*
 * A new file on the test VM's XFS disk, unlinked, holding @size bytes of
 * tag-1 pages written with pwrite()s of @chunk bytes (0: 16K, 32K, 64K and
 * 256K for one quarter each: XFS then caches it mostly in folios of those
 * sizes) and fsync'ed. Returns the fd, or -1 with errno set.
 */
static int xfs_file(size_t size, size_t chunk)
{
	char path[] = XFS_DIR "/mprotect_batch.XXXXXX";
	size_t i, len;
	char *buf;
	int fd;

	buf = malloc(size);
	if (!buf)
		return -1;
	for (i = 0; i < size / pagesize; i++)
		fill_page(buf + i * pagesize, 1, i);
	fd = mkstemp(path);
	if (fd < 0 || unlink(path))
		goto fail;
	for (i = 0; i < size; i += len) {
		/* 4, 8, cont and 4 x cont pages: 16K/32K/64K/256K on 4K */
		static const unsigned int q[] = { 4, 8, 0, 0 };
		unsigned int k = i * 4 / size;

		len = chunk ? chunk : (k < 2 ? q[k] : k == 2 ? cont_pages() :
				       4 * cont_pages()) * pagesize;
		if (pwrite(fd, buf + i, len, i) != (ssize_t)len)
			goto fail;
	}
	if (fsync(fd))
		goto fail;
	free(buf);
	return fd;
fail:
	free(buf);
	if (fd >= 0)
		close(fd);
	return -1;
}

/*
 * The large folios that map [mem, mem + npages pages), from the kernel's
 * view (pagemap PFNs, kpageflags compound tails): @start[i] is the index of
 * the first page of the folio that page i belongs to (i itself for small
 * folios). Returns the number of large folios, or -1.
 */
static int folio_starts(const char *mem, size_t npages, size_t *start)
{
	uint64_t *pm = calloc(npages, sizeof(*pm)), kf;
	size_t i, j;
	int n = 0;

	if (!pm || pagemap_read(mem, npages, pm)) {
		free(pm);
		return -1;
	}
	for (i = 0; i < npages; i = j) {
		start[i] = i;
		for (j = i + 1; j < npages; j++) {
			kf = kpageflags_get(pm[j] & PM_PFN_MASK);
			if (!(pm[j] & PM_PRESENT) ||
			    !(kf & (1ULL << KPF_COMPOUND_TAIL)) ||
			    (pm[j] & PM_PFN_MASK) != (pm[i] & PM_PFN_MASK) + (j - i))
				break;
			start[j] = i;
		}
		n += j - i > 1;
	}
	free(pm);
	return n;
}

/*
 * Map @size bytes of @fd shared, read-write, 64K past a PMD boundary, so
 * that no folio of the file can be PMD-mapped and some straddle a page
 * table. *@reserve is the reservation to munmap() (@size + 2 PMDs).
 */
static char *xfs_map(int fd, size_t size, char **reserve)
{
	char *mem;

	*reserve = mmap(NULL, size + 2 * pmdsize, PROT_NONE,
			MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (*reserve == MAP_FAILED)
		return NULL;
	/*
	 * One contpte block (64K on 4K) past the start of a window that
	 * straddles a PMD boundary: folios keep their contpte alignment.
	 */
	mem = (char *)(((uintptr_t)*reserve + pmdsize - 1) & ~(pmdsize - 1));
	if (size < 2 * pmdsize)		/* 64K pages: 64M file, 512M PMD */
		mem += pmdsize - size / 2;
	mem += cont_size();
	if (mmap(mem, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED,
		 fd, 0) != mem)
		return NULL;
	return mem;
}

/*
 * Write tag 3 to every page of @mem but page @skip, and return how many of
 * them wrote without a fault though they were clean (not in @written, nor
 * in @exempt if given): each bypassed page_mkwrite, and is logged.
 */
static int write_unfaulted(char *mem, size_t npages,
			   const unsigned char *written,
			   const unsigned char *exempt, size_t skip)
{
	int errs = 0;
	size_t i;
	long f0;

	for (i = 0; i < npages; i++) {
		if (i == skip)
			continue;
		f0 = minflt();
		fill_page(mem + i * pagesize, 3, i);
		if (!written[i] && !(exempt && exempt[i]) && minflt() == f0) {
			LOG_ERR("clean page %zu written without a fault: page_mkwrite bypassed",
				i);
			errs++;
		}
	}
	return errs;
}

/*
 * What reached the disk: write the file back, drop it from the page cache
 * (and check that it is gone: a page still cached would be read from
 * memory), read it into @buf. Returns the number of pages that do not hold
 * tag @tag's pattern (each logged), or -1 if the file could not be read
 * from disk.
 */
static int disk_lacks_tag(int fd, char *buf, uint32_t tag)
{
	size_t npages = XFS_FILE_SIZE / pagesize, i, cached = 0;
	unsigned char *vec = calloc(npages, 1);
	int errs = 0;
	char *mem;

	if (!vec || fsync(fd) ||
	    posix_fadvise(fd, 0, XFS_FILE_SIZE, POSIX_FADV_DONTNEED))
		goto fail;
	mem = mmap(NULL, XFS_FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		goto fail;
	if (mincore(mem, XFS_FILE_SIZE, vec)) {
		munmap(mem, XFS_FILE_SIZE);
		goto fail;
	}
	munmap(mem, XFS_FILE_SIZE);
	for (i = 0; i < npages; i++)
		cached += vec[i] & 1;
	free(vec);
	if (cached) {
		ksft_print_msg("%zu pages still cached after fsync + POSIX_FADV_DONTNEED\n",
			       cached);
		return -1;
	}
	if (pread(fd, buf, XFS_FILE_SIZE, 0) != (ssize_t)XFS_FILE_SIZE)
		return -1;
	for (i = 0; i < npages; i++)
		if (check_page(buf + i * pagesize, tag, i) >= 0 && errs++ < 10)
			ksft_print_msg("page %zu: the disk lacks the last write\n",
				       i);
	return errs;
fail:
	ksft_print_msg("reading the file back from disk: %s\n", strerror(errno));
	free(vec);
	return -1;
}

/*
 * Where the file system wants to hear of the first write to a page
 * (page_mkwrite), a shared mapping is write-protected, and mprotect()
 * upgrades a PTE to writable only if it is dirty: that page was notified
 * already. In one large folio, a written page has a writable dirty PTE and
 * its read-only neighbours clean ones. A batch that ignored the write bit
 * would OR the dirty bits and make the clean neighbours writable, so their
 * first write would bypass page_mkwrite (no mtime update, no block
 * reservation). Here every never-written page must still take a write fault
 * after mprotect(RW -> RWX).
 *
 * The file is written with 64K and 256K pwrite()s (XFS then caches it
 * mostly in folios of those sizes) and mapped at 64K past a PMD boundary so that no
 * folio can be PMD-mapped and some straddle a page table. In each large
 * folio one page is written before the mprotect(): the first page of
 * even-numbered folios, a middle page of odd-numbered ones.
 */
TEST(xfs_write_notify)
{
	size_t npages = XFS_FILE_SIZE / pagesize, i, j, k, nlarge = 0, *start;
	size_t by_pages[10] = { 0 };	/* large folios of 2^k pages */
	unsigned char *written;
	char *buf, *reserve, *mem;
	const char *why;
	int fd, errs = 0;

	why = xfs_unavailable();
	if (why)
		SKIP(return, "%s", why);
	fd = xfs_file(XFS_FILE_SIZE, 0);	/* clean folios: read faults map RO */
	ASSERT_LE(0, fd);
	buf = malloc(XFS_FILE_SIZE);
	written = calloc(npages, 1);
	start = calloc(npages, sizeof(*start));
	ASSERT_TRUE(buf && written && start);
	mem = xfs_map(fd, XFS_FILE_SIZE, &reserve);
	ASSERT_NE(NULL, mem);
	for (i = 0; i < npages; i++)
		if (check_page(mem + i * pagesize, 1, i) >= 0) {
			LOG_ERR("page %zu: bad contents after read fault", i);
			errs++;
		}
	ASSERT_EQ(0, errs);

	/* The folios the page cache got, from the kernel's view. */
	ASSERT_LE(0, folio_starts(mem, npages, start));
	for (i = 0; i < npages; i = j) {
		for (j = i + 1; j < npages && start[j] == i; j++)
			;
		if (j - i < 4)
			continue;
		for (k = 0; k < 9 && (2UL << k) <= j - i; k++)
			;
		by_pages[k]++;
		written[nlarge % 2 ? i + (j - i) / 2 : i] = 1;
		nlarge++;
	}
	if (!nlarge)
		SKIP(return, "XFS cached the file in small folios only");
	for (i = 0; i < npages; i++)
		if (written[i])
			fill_page(mem + i * pagesize, 2, i);

	ASSERT_EQ(0, mprotect(mem, XFS_FILE_SIZE,
			      PROT_READ | PROT_WRITE | PROT_EXEC));
	ASSERT_EQ(0, write_unfaulted(mem, npages, written, NULL, npages));

	ASSERT_EQ(0, munmap(mem, XFS_FILE_SIZE));
	ASSERT_EQ(0, disk_lacks_tag(fd, buf, 3));
	TH_LOG("%zu pages; large folios of 4/8/16/32/64/128/256/512 pages: %zu/%zu/%zu/%zu/%zu/%zu/%zu/%zu",
	       npages, by_pages[2], by_pages[3], by_pages[4], by_pages[5],
	       by_pages[6], by_pages[7], by_pages[8], by_pages[9]);
	munmap(reserve, XFS_FILE_SIZE + 2 * pmdsize);
	close(fd);
	free(buf);
	free(written);
	free(start);
}
static int mtime_after(int fd, const struct timespec *t)
{
	struct stat st;

	if (fstat(fd, &st))
		return -1;
	return st.st_mtim.tv_sec > t->tv_sec ||
	       (st.st_mtim.tv_sec == t->tv_sec &&
		st.st_mtim.tv_nsec > t->tv_nsec);
}

/*
 * mprotect(R) then mprotect(RW) of a write-notify shared mapping: a PTE may
 * be made writable only if it is dirty, i.e. its page was notified through
 * page_mkwrite already; a clean PTE must stay read-only, so that its first
 * write faults, updates the file times and lets the file system account
 * for the write (6.12's can_change_pte_writable(), per PTE). A batch must
 * not make the clean PTEs of a folio writable because another PTE of it is
 * dirty. (On arm64, ptep_get() of a contpte entry reports the dirty bit of
 * its whole block, so stock 6.12 already makes a whole block writable if
 * one of its pages is dirty: pages that share a contpte block of a large
 * folio with a written page are not asserted there. The file's 16K and 32K
 * folios are smaller than a block, never mapped contiguous, and asserted.)
 *
 * Every page is written through the mapping and fsync'ed first: writeback
 * write-protects and cleans the PTEs, and on x86 leaves them all
 * soft-dirty, so soft-dirty does not split the batches. Then one page per
 * large folio is written, and the mapping goes through @prots (ending with
 * RW: R, RW here, R, NONE, RW below). After a 1 s pause, a
 * clean page is written: it must fault and the file's mtime must move.
 * Every other clean page must fault on its first write too, and the file,
 * read back from disk after the page cache was dropped, must hold every
 * last write.
 */
static void write_notify_upgrade(struct __test_metadata *_metadata,
				 const int *prots, int nprots)
{
	size_t npages = XFS_FILE_SIZE / pagesize, i, first_clean = 0, *start;
	size_t block = cont_pages(), b, exempt_n = 0;
	unsigned char *written, *exempt;
	struct timespec pause = { 1, 100000000 };
	int fd, nlarge, moved;
	char *reserve, *mem, *buf;
	const char *why;
	struct stat st;
	long f0, f1;

	why = xfs_unavailable();
	if (why)
		SKIP(return, "%s", why);
	fd = xfs_file(XFS_FILE_SIZE, 0);
	ASSERT_LE(0, fd);
	written = calloc(npages, 1);
	exempt = calloc(npages, 1);
	start = calloc(npages, sizeof(*start));
	buf = malloc(XFS_FILE_SIZE);
	ASSERT_TRUE(written && exempt && start && buf);

	mem = xfs_map(fd, XFS_FILE_SIZE, &reserve);
	ASSERT_NE(NULL, mem);
	for (i = 0; i < npages; i++)
		fill_page(mem + i * pagesize, 1, i);
	ASSERT_EQ(0, fsync(fd));	/* clean, write-protected PTEs */

	nlarge = folio_starts(mem, npages, start);
	ASSERT_LE(0, nlarge);
	if (!nlarge)
		SKIP(return, "XFS cached the file in small folios only");
	/* One page per large folio: the first, or a middle one. */
	for (i = 0, nlarge = 0; i < npages; i++) {
		size_t j = i + 1;

		if (start[i] != i)
			continue;
		while (j < npages && start[j] == i)
			j++;
		if (j - i == 1)
			continue;
		written[nlarge++ % 2 ? i + (j - i) / 2 : i] = 1;
	}
	for (i = 0; i < npages; i++)
		if (written[i])
			fill_page(mem + i * pagesize, 2, i);
#ifdef __aarch64__
	/* Contpte blocks (folio-covered, aligned) with a written page. */
	for (b = 0; b + block <= npages; b += block) {
		uintptr_t va = (uintptr_t)(mem + b * pagesize);
		bool dirty = false;

		if (va % (block * pagesize) || start[b] != start[b + block - 1])
			continue;
		for (i = b; i < b + block; i++)
			dirty |= written[i];
		for (i = b; dirty && i < b + block; i++)
			exempt_n += !written[i] && (exempt[i] = 1);
	}
#else
	(void)b;
	(void)block;
#endif
	for (i = 0; i < (size_t)nprots; i++)
		ASSERT_EQ(0, mprotect(mem, XFS_FILE_SIZE, prots[i]));

	/* A clean page's first write: a fault, and the mtime moves. */
	while (first_clean < npages && (written[first_clean] ||
					exempt[first_clean]))
		first_clean++;
	ASSERT_LT(first_clean, npages);
	ASSERT_EQ(0, fstat(fd, &st));
	nanosleep(&pause, NULL);
	f0 = minflt();
	fill_page(mem + first_clean * pagesize, 3, first_clean);
	f1 = minflt();
	moved = mtime_after(fd, &st.st_mtim);
	ASSERT_LE(0, moved);
	ksft_print_msg("%d large folios; clean page %zu: %ld faults, mtime %s; %zu pages in a contpte block with a written page not asserted\n",
		       nlarge, first_clean, f1 - f0, moved ? "moved" : "unchanged",
		       exempt_n);
	EXPECT_NE(0, f1 - f0) {
		TH_LOG("clean page %zu written without a fault", first_clean);
	}
	EXPECT_TRUE(moved) {
		TH_LOG("mtime did not move: page_mkwrite bypassed");
	}
	EXPECT_EQ(0, write_unfaulted(mem, npages, written, exempt,
				     first_clean));

	ASSERT_EQ(0, munmap(mem, XFS_FILE_SIZE));
	ASSERT_EQ(0, disk_lacks_tag(fd, buf, 3));
	munmap(reserve, XFS_FILE_SIZE + 2 * pmdsize);
	close(fd);
	free(written);
	free(exempt);
	free(start);
	free(buf);
}

TEST(xfs_write_notify_ro_rw)
{
	static const int prots[] = { PROT_READ, PROT_READ | PROT_WRITE };

	write_notify_upgrade(_metadata, prots, 2);
}

/*
 * The same with a PROT_NONE step between: a batch made PROT_NONE (no write
 * upgrade asked for) must not spread its merged dirty bit to clean PTEs
 * either, or the next upgrade takes it for theirs.
 */
TEST(xfs_write_notify_ro_none_rw)
{
	static const int prots[] = {
		PROT_READ, PROT_NONE, PROT_READ | PROT_WRITE,
	};

	write_notify_upgrade(_metadata, prots, 3);
}

/*
 * A page-cache folio as large as one page table maps (PMD size: 2 MiB on
 * x86 and arm64 with 4K pages, 1 MiB on s390), mapped by PTEs at a
 * PMD-aligned address: mprotect() of the whole table changes all its PTEs
 * as one batch (512, or 256 on s390), the largest batch there is. On s390,
 * a batch that nested the per-PTE protection transaction (which keeps
 * preemption disabled until its commit) overflows the preemption count:
 * DEBUG_PREEMPT warns on the console. Contents, PFNs and permissions are
 * checked after every step. With 64K pages, a 32 MiB folio (512 PTEs) at
 * a 32 MiB-aligned address.
 */
TEST(xfs_table_batch)
{
	/*
	 * At most 512 PTEs and the page cache's largest folio: with 64K
	 * pages a table maps 512 MiB, above the largest file folio (128M,
	 * order 11, which XFS gave in pieces): 32M there.
	 */
	size_t tsize = pmdsize < 512 * pagesize ? pmdsize : 512 * pagesize;
	size_t npages, i, *start;
	static const int prots[] = {
		PROT_READ, PROT_NONE, PROT_READ | PROT_WRITE, PROT_READ,
	};
	uint64_t *pm0, *pm1;
	char *reserve, *mem;
	const char *why;
	unsigned int s;
	int fd, errs = 0;

	why = xfs_unavailable();
	if (why)
		SKIP(return, "%s", why);
	if (max_file_folio() && max_file_folio() < tsize)
		tsize = max_file_folio();
	npages = tsize / pagesize;
	if (tsize > (128UL << 20))
		SKIP(return, "a %zu MiB folio: too large a file for the 300 MiB test disk",
		     tsize >> 20);
	ASSERT_EQ(0, probe_install());
	fd = xfs_file(tsize, tsize);
	ASSERT_LE(0, fd);
	start = calloc(npages, sizeof(*start));
	pm0 = calloc(npages, sizeof(*pm0));
	pm1 = calloc(npages, sizeof(*pm1));
	ASSERT_TRUE(start && pm0 && pm1);
	reserve = mmap(NULL, 2 * tsize, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	ASSERT_NE(MAP_FAILED, reserve);
	mem = (char *)(((uintptr_t)reserve + tsize - 1) & ~(tsize - 1));
	ASSERT_EQ(mem, mmap(mem, tsize, PROT_READ | PROT_WRITE,
			    MAP_SHARED | MAP_FIXED, fd, 0));
	/* PTEs, not a PMD mapping (no-op where THP is off). */
	madvise(mem, tsize, MADV_NOHUGEPAGE);
	for (i = 0; i < npages; i++)
		if (check_page(mem + i * pagesize, 1, i) >= 0)
			errs++;
	ASSERT_EQ(0, errs);
	ASSERT_EQ(1, folio_starts(mem, npages, start));
	if (start[npages - 1] != 0)
		SKIP(return, "XFS did not cache the file in one %zu kB folio",
		     tsize >> 10);
	ASSERT_EQ(0, pagemap_read(mem, npages, pm0));

	for (s = 0; s < sizeof(prots) / sizeof(prots[0]); s++) {
		ASSERT_EQ(0, mprotect(mem, tsize, prots[s]));
		for (i = 0; i < npages; i++) {
			char *p = mem + i * pagesize;
			bool r = probe_read(p), w;

			w = r && probe_write(p, ((char *)&(uint64_t){
				pattern_word(1, i, 0) })[0]);
			if (r != !!(prots[s] & PROT_READ) ||
			    w != !!(prots[s] & PROT_WRITE) ||
			    (r && check_page(p, 1, i) >= 0)) {
				LOG_ERR("prot %d: page %zu read=%d write=%d", prots[s],
					i, r, w);
				errs++;
			}
		}
		ASSERT_EQ(0, pagemap_read(mem, npages, pm1));
		for (i = 0; i < npages; i++)
			if ((pm1[i] & PM_PRESENT) && (pm1[i] & PM_PFN_MASK) !=
			    (pm0[i] & PM_PFN_MASK)) {
				LOG_ERR("prot %d: page %zu moved", prots[s], i);
				errs++;
			}
	}
	ksft_print_msg("one %zu kB folio, %zu PTEs, %zu mprotect() calls over the whole table\n",
		       tsize >> 10, npages, sizeof(prots) / sizeof(prots[0]));
	ASSERT_EQ(0, errs);
	munmap(reserve, 2 * tsize);
	close(fd);
	free(start);
	free(pm0);
	free(pm1);
}
#pragma GCC diagnostic pop

TEST_HARNESS_MAIN
