// SPDX-License-Identifier: GPL-2.0
/*
 * mprotect_bench: cost of mprotect() over small and large folios.
 *
 * Each case sets the THP/mTHP knobs it needs, populates a region (untimed),
 * checks that the region is backed by folios of the size it asked for, then
 * times a loop of mprotect() toggles with CLOCK_MONOTONIC (under QEMU
 * "-icount shift=0" one ns is one guest instruction) and prints one line:
 *
 *   BENCH case=<name> insns=<n> calls=<n> ptes=<n> per_pte=<x.xx>
 *         faults=<n> per_call=<n> folio=<size> ...
 *
 * and, on a kernel with bench/tlbcount.patch, the user TLB flushes per
 * mprotect() call: tlb_range=<x> tlb_pages=<x> tlb_mm=<x>.
 *
 * A case that cannot get the folio size it asked for prints
 * "BENCH case=<name> skipped reason=<why>" and makes the exit status 1.
 * Usage errors exit 2.  All knobs are restored at exit.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/personality.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "marker.h"
#include "thp_settings.h"

#ifndef MADV_NOHUGEPAGE
#define MADV_NOHUGEPAGE 15
#endif
#ifndef MADV_HUGEPAGE
#define MADV_HUGEPAGE 14
#endif
#ifndef MADV_COLLAPSE
#define MADV_COLLAPSE 25
#endif
#ifndef PR_SET_THP_DISABLE
#define PR_SET_THP_DISABLE 41
#define PR_GET_THP_DISABLE 42
#endif
#ifndef MFD_CLOEXEC
#define MFD_CLOEXEC 0x0001U
#endif

#define THP_DIR		"/sys/kernel/mm/transparent_hugepage"
#define NUMA_KNOB	"/proc/sys/kernel/numa_balancing"
#define KPF_COMPOUND_HEAD	15
#define KPF_COMPOUND_TAIL	16
#define PM_PRESENT	(1ULL << 63)
#define PM_PFN_MASK	((1ULL << 55) - 1)

enum kind { K_ANON, K_SHMEM, K_MEMFD };

enum map_shape {
	SHAPE_PTE,	/* folios mapped by PTEs (small folios, mTHP) */
	SHAPE_PMD,	/* PMD-mapped THP */
	SHAPE_PMD_SPLIT,	/* PMD THP, PMD split: PTE-mapped THP */
	/*
	 * shmem populated with small folios while every THP setting is
	 * "never", made PMD THPs by MADV_COLLAPSE, then PTE-mapped as above.
	 */
	SHAPE_COLLAPSE,
};

/*
 * What changes after the region is populated, before the timed loop: large
 * folios in a VMA or process whose THP settings now forbid new ones.
 */
enum after_populate {
	AFTER_NONE,
	AFTER_NOHUGEPAGE,	/* madvise(MADV_NOHUGEPAGE) on the region */
	AFTER_THP_DISABLE,	/* prctl(PR_SET_THP_DISABLE), reset after */
};

/*
 * Which folio_kb slots of a region of large folios hold order-0 pages
 * instead (slot_is_small()).
 */
enum mix {
	MIX_NONE,
	/* the first, the middle and the last slot of each PMD-sized span */
	MIX_EDGES,
	/* all but every fourth slot */
	MIX_SPARSE,
};

struct bcase {
	const char *name;
	enum kind kind;
	unsigned long folio_kb;	/* 4 means small (order-0) folios */
	enum map_shape shape;
	int prot_a;		/* first mprotect of each iteration */
	int prot_b;		/* second one: back to read-write */
	int write;		/* write one byte per page after each cycle */
	size_t size;		/* default region size */
	unsigned int iters;	/* default iterations */
	int fixed_size;		/* --size does not apply */
	const char *desc;
	/*
	 * mTHP size enabled after the region is populated, for the timed
	 * loop: small folios in a VMA where large ones are allowed.
	 */
	unsigned long thp_on_kb;
	enum after_populate after;
	/*
	 * THP "enabled" is "always" (PMD size "inherit") and the region gets
	 * no MADV_HUGEPAGE; the setting stays for the timed loop.
	 */
	int thp_always;
	/*
	 * The ranges each mprotect() changes, when not the whole region: from
	 * @off_kb, @len_kb long (0: the region less @off_kb at both ends),
	 * every @stride_kb (0: one range). Each range is a VMA of its own: the
	 * gaps between them are made MADV_DONTFORK, so they never merge.
	 */
	unsigned long off_kb, len_kb, stride_kb;
	/*
	 * Folios of @folio_kb in a page table that also maps order-0 pages:
	 * see slot_is_small().
	 */
	enum mix mix;
	/*
	 * Order-0 pages faulted in a scattered order, so that neighbouring
	 * PTEs map PFNs that are not consecutive (populate_scattered()).
	 */
	int scatter;
};

#define KiB(x)	((size_t)(x) << 10)
#define MiB(x)	((size_t)(x) << 20)
#define RO	PROT_READ
#define RW	(PROT_READ | PROT_WRITE)
#define NONE	PROT_NONE
#define DEF_SIZE	MiB(32)
#define DEF_ITERS	40

#define ANON_RORW(n, kb) \
	{ n, K_ANON, kb, SHAPE_PTE, RO, RW, 0, DEF_SIZE, DEF_ITERS, 0, \
	  "anon " #kb "K folios, RO<->RW", .thp_on_kb = 0 }
#define ANON_NONERW(n, kb) \
	{ n, K_ANON, kb, SHAPE_PTE, NONE, RW, 0, DEF_SIZE, DEF_ITERS, 0, \
	  "anon " #kb "K folios, NONE<->RW", .thp_on_kb = 0 }
/* 4K pages in a fixed small region (--size does not apply): cost per call */
#define FIXED_4K(n, a, w, sz, it, d) \
	{ n, K_ANON, 4, SHAPE_PTE, a, RW, w, sz, it, 1, d, .thp_on_kb = 0 }
#define NONERW_4K(n, sz, it) \
	FIXED_4K(n, NONE, 0, sz, it, \
		 "anon 4K pages, NONE<->RW, fixed small region")
/*
 * Small calls, the mprotect() of guard pages, JIT code toggles and GC
 * barriers: a region of 1, 2 or 4 pages, with or without a write to each
 * page after it is made read-write again.
 */
#define SMALL_4K(n, a, w, sz, d) \
	FIXED_4K(n, a, w, sz, 2000, "anon 4K pages, small call, " d)

/* RO<->RW of THPs, 64K mTHP: the shape's fields after the description */
#define THP_RORW(n, kind, shape, d, ...) \
	{ n, kind, 2048, shape, RO, RW, 0, DEF_SIZE, DEF_ITERS, 0, d, \
	  __VA_ARGS__ }
#define MTHP64_RORW(n, d, ...) \
	{ n, K_ANON, 64, SHAPE_PTE, RO, RW, 0, DEF_SIZE, DEF_ITERS, 0, d, \
	  __VA_ARGS__ }

/*
 * The fields after the description are named: a case names those it sets
 * (-Wmissing-field-initializers is quiet about lists with a designator).
 */
static const struct bcase cases[] = {
	/* Dev Jain's cover letter's cases T1..T3 */
	{ "rorw-thp-pte", K_ANON, 2048, SHAPE_PMD_SPLIT, RO, RW, 0,
	  DEF_SIZE, DEF_ITERS, 0, "PMD THP split to PTE mappings, RO<->RW",
	  .thp_on_kb = 0 },
	ANON_RORW("rorw-64k", 64),
	ANON_RORW("rorw-4k", 4),
	/* mTHP size sweep */
	ANON_RORW("rorw-16k", 16),
	ANON_RORW("rorw-32k", 32),
	ANON_RORW("rorw-128k", 128),
	ANON_RORW("rorw-256k", 256),
	ANON_RORW("rorw-512k", 512),
	ANON_RORW("rorw-1m", 1024),
	/* A contpte block's worth with 64K pages (a PMD with 4K: n/a) */
	ANON_RORW("rorw-2m", 2048),
	{ "rorw-2m-pmd", K_ANON, 2048, SHAPE_PMD, RO, RW, 0,
	  DEF_SIZE, DEF_ITERS, 0, "PMD-mapped THP, RO<->RW", .thp_on_kb = 0 },
	/* MM_CP_TRY_CHANGE_WRITABLE: RO, RW, write one byte per page */
	{ "rorw-write-4k", K_ANON, 4, SHAPE_PTE, RO, RW, 1,
	  DEF_SIZE, DEF_ITERS, 0, "4K pages, RO, RW, write each page",
	  .thp_on_kb = 0 },
	{ "rorw-write-64k", K_ANON, 64, SHAPE_PTE, RO, RW, 1,
	  DEF_SIZE, DEF_ITERS, 0, "64K mTHP, RO, RW, write each page",
	  .thp_on_kb = 0 },
	THP_RORW("rorw-thp-nohuge", K_ANON, SHAPE_PMD_SPLIT,
		 "PTE-mapped THP, VMA made MADV_NOHUGEPAGE after, RO<->RW",
		 .after = AFTER_NOHUGEPAGE),
	{ "rorw-write-thp", K_ANON, 2048, SHAPE_PMD_SPLIT, RO, RW, 1,
	  DEF_SIZE, DEF_ITERS, 0,
	  "PTE-mapped THP, RO, RW, write each page", .thp_on_kb = 0 },
	/* Small-folio regression shapes */
	NONERW_4K("nonerw-4k-4KiB", KiB(4), 2000),
	NONERW_4K("nonerw-4k-40KiB", KiB(40), 1000),
	NONERW_4K("nonerw-4k-400KiB", KiB(400), 200),
	NONERW_4K("nonerw-4k-4000KiB", KiB(4000), 40),
	SMALL_4K("nonerw-4k-8KiB", NONE, 0, KiB(8), "NONE<->RW"),
	SMALL_4K("nonerw-4k-16KiB", NONE, 0, KiB(16), "NONE<->RW"),
	SMALL_4K("nonerw-4k-w-4KiB", NONE, 1, KiB(4), "NONE<->RW, write"),
	SMALL_4K("nonerw-4k-w-8KiB", NONE, 1, KiB(8), "NONE<->RW, write"),
	SMALL_4K("nonerw-4k-w-16KiB", NONE, 1, KiB(16), "NONE<->RW, write"),
	SMALL_4K("rorw-4k-4KiB", RO, 0, KiB(4), "RO<->RW"),
	SMALL_4K("rorw-4k-8KiB", RO, 0, KiB(8), "RO<->RW"),
	SMALL_4K("rorw-4k-16KiB", RO, 0, KiB(16), "RO<->RW"),
	SMALL_4K("rorw-4k-w-4KiB", RO, 1, KiB(4), "RO<->RW, write"),
	SMALL_4K("rorw-4k-w-8KiB", RO, 1, KiB(8), "RO<->RW, write"),
	SMALL_4K("rorw-4k-w-16KiB", RO, 1, KiB(16), "RO<->RW, write"),
	{ "nonerw-4k-mthp-on", K_ANON, 4, SHAPE_PTE, NONE, RW, 0, KiB(4000), 40,
	  1, "anon 4K pages, NONE<->RW, 64K mTHP enabled after population",
	  .thp_on_kb = 64 },
	{ "memfd-rorw-4k", K_MEMFD, 4, SHAPE_PTE, RO, RW, 0,
	  DEF_SIZE, DEF_ITERS, 0, "dirty shared memfd, 4K pages, RO<->RW",
	  .thp_on_kb = 0 },
	/* The shared-dirty toggle of an upstream regression report (16 MiB) */
	{ "shmem-rorw-write-4k", K_SHMEM, 4, SHAPE_PTE, RO, RW, 1,
	  MiB(16), DEF_ITERS, 0,
	  "MAP_SHARED|MAP_ANONYMOUS 4K pages, RO, RW, write each page",
	  .thp_on_kb = 0 },
	ANON_NONERW("nonerw-16k", 16),
	ANON_NONERW("nonerw-32k", 32),
	ANON_NONERW("nonerw-64k", 64),
	{ "nonerw-thp-pte", K_ANON, 2048, SHAPE_PMD_SPLIT, NONE, RW, 0,
	  DEF_SIZE, DEF_ITERS, 0, "PTE-mapped THP, NONE<->RW", .thp_on_kb = 0 },
	/* Shared anonymous memory (shmem) with 64K mTHP */
	{ "shmem-rorw-64k", K_SHMEM, 64, SHAPE_PTE, RO, RW, 0,
	  DEF_SIZE, DEF_ITERS, 0, "MAP_SHARED|MAP_ANONYMOUS 64K mTHP, RO<->RW",
	  .thp_on_kb = 0 },
	/*
	 * Changes that no write upgrade looks a page up for: PROT_NONE of
	 * shared memory, and of private memory back to read-only.
	 */
	{ "shmem-nonerw-64k", K_SHMEM, 64, SHAPE_PTE, NONE, RW, 0,
	  DEF_SIZE, DEF_ITERS, 0, "MAP_SHARED|MAP_ANONYMOUS 64K mTHP, NONE<->RW",
	  .thp_on_kb = 0 },
	{ "nonero-64k", K_ANON, 64, SHAPE_PTE, NONE, RO, 0, DEF_SIZE, DEF_ITERS,
	  0, "anon 64K folios, NONE<->RO", .thp_on_kb = 0 },
	/*
	 * Large folios where the VMA's or the process's THP settings say
	 * that none can be mapped (a test in mprotect() that asked them
	 * would not batch these).
	 */
	THP_RORW("rorw-thp-prctl", K_ANON, SHAPE_PMD_SPLIT,
		 "PTE-mapped THP, then prctl(PR_SET_THP_DISABLE), RO<->RW",
		 .after = AFTER_THP_DISABLE),
	THP_RORW("shmem-rorw-thp-pte", K_SHMEM, SHAPE_PMD_SPLIT,
		 "MAP_SHARED|MAP_ANONYMOUS PTE-mapped THP, RO<->RW",
		 .after = AFTER_NONE),
	THP_RORW("shmem-rorw-thp-nohuge", K_SHMEM, SHAPE_PMD_SPLIT,
		 "shmem PTE-mapped THP, VMA made MADV_NOHUGEPAGE after, RO<->RW",
		 .after = AFTER_NOHUGEPAGE),
	THP_RORW("shmem-rorw-thp-collapse", K_SHMEM, SHAPE_COLLAPSE,
		 "shmem THP made by MADV_COLLAPSE, shmem THP never, PTE-mapped, RO<->RW",
		 .after = AFTER_NONE),
	/* 1 MiB into each 4 MiB: VMAs of 2 MiB that hold no aligned 2 MiB */
	THP_RORW("rorw-thp-unaligned", K_ANON, SHAPE_PMD_SPLIT,
		 "THP always, no madvise; 2M VMAs 1M off PMD alignment, RO<->RW",
		 .thp_always = 1, .off_kb = 1024, .len_kb = 2048,
		 .stride_kb = 4096),
	MTHP64_RORW("rorw-64k-unaligned",
		    "64K mTHP, range 32K off 64K alignment at both ends, RO<->RW",
		    .off_kb = 32),
	/* 64K calls, each over the halves of two 64K folios */
	MTHP64_RORW("rorw-64k-straddle",
		    "64K mTHP, 64K VMAs 32K off alignment, one call each, RO<->RW",
		    .off_kb = 32, .len_kb = 64, .stride_kb = 128),
	/* 32K calls, each over the first half of a 64K folio */
	MTHP64_RORW("rorw-64k-half",
		    "64K mTHP, the first half of each folio, one call each, RO<->RW",
		    .len_kb = 32, .stride_kb = 64),
	/* Page tables that map large folios and order-0 pages */
	MTHP64_RORW("rorw-64k-mixed",
		    "64K mTHP, order-0 pages in the first, middle and last 64K of each 2M, RO<->RW",
		    .mix = MIX_EDGES),
	MTHP64_RORW("rorw-64k-sparse",
		    "64K mTHP in one 64K of every four, order-0 pages in the rest, RO<->RW",
		    .mix = MIX_SPARSE),
	/* One call per folio, or over a few of its pages */
	MTHP64_RORW("rorw-64k-each",
		    "64K mTHP, every other folio, one call each, RO<->RW",
		    .len_kb = 64, .stride_kb = 128),
	{ "rorw-16k-each", K_ANON, 16, SHAPE_PTE, RO, RW, 0, DEF_SIZE,
	  DEF_ITERS, 0, "16K mTHP, every other folio, one call each, RO<->RW",
	  .len_kb = 16, .stride_kb = 32 },
	/* 8K calls: two PTEs of a folio smaller than a contpte block */
	{ "rorw-16k-half", K_ANON, 16, SHAPE_PTE, RO, RW, 0, DEF_SIZE,
	  DEF_ITERS, 0,
	  "16K mTHP, the first half of each folio, one call each, RO<->RW",
	  .len_kb = 8, .stride_kb = 16 },
	/* One call per 2M folio, or per half: a contpte block with 16K or 64K pages */
	{ "rorw-2m-each", K_ANON, 2048, SHAPE_PTE, RO, RW, 0, DEF_SIZE,
	  DEF_ITERS, 0, "2M mTHP, every other folio, one call each, RO<->RW",
	  .len_kb = 2048, .stride_kb = 4096 },
	{ "rorw-2m-half", K_ANON, 2048, SHAPE_PTE, RO, RW, 0, DEF_SIZE,
	  DEF_ITERS, 0,
	  "2M mTHP, the first half of each folio, one call each, RO<->RW",
	  .len_kb = 1024, .stride_kb = 2048 },
	{ "rorw-2m-sparse", K_ANON, 2048, SHAPE_PTE, RO, RW, 0, DEF_SIZE,
	  DEF_ITERS, 0,
	  "2M mTHP in one 2M of every four, order-0 pages in the rest, RO<->RW",
	  .mix = MIX_SPARSE },
	MTHP64_RORW("rorw-64k-3pages",
		    "64K mTHP, the first 3 pages of each folio, one call each, RO<->RW",
		    .len_kb = 12, .stride_kb = 64),
	MTHP64_RORW("rorw-64k-2pages",
		    "64K mTHP, the first 2 pages of each folio, one call each, RO<->RW",
		    .len_kb = 8, .stride_kb = 64),
	/* Order-0 pages whose neighbours map PFNs far apart */
	{ "rorw-4k-scattered", K_ANON, 4, SHAPE_PTE, RO, RW, 0, DEF_SIZE,
	  DEF_ITERS, 0, "4K pages faulted in a scattered order, RO<->RW",
	  .scatter = 1 },
	{ "nonerw-4k-scattered", K_ANON, 4, SHAPE_PTE, NONE, RW, 0, KiB(4000),
	  40, 1, "4K pages faulted in a scattered order, NONE<->RW, 4000 KiB",
	  .scatter = 1 },
};

#define ARRAY_SIZE(a)	(sizeof(a) / sizeof((a)[0]))
#define NR_CASES	ARRAY_SIZE(cases)

static size_t page_size;
static unsigned long pmd_kb;

/* ---------------------------------------------------------------- */
/* Helpers */

/*
 * The KiB of one folio of case @c: the "4K" cases are of order-0 pages,
 * which are one page of whatever size the kernel's pages are, and the THP
 * shapes are of PMD-sized folios, 2M with 4K pages, 512M with 64K.
 */
static unsigned long case_folio_kb(const struct bcase *c)
{
	if (c->folio_kb == 4)
		return page_size / 1024;
	return c->shape == SHAPE_PTE ? c->folio_kb : pmd_kb;
}

static size_t folio_size(const struct bcase *c)
{
	return KiB(case_folio_kb(c));
}

static void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "mprotect_bench: ");
	vfprintf(stderr, fmt, ap);
	fprintf(stderr, ": %s\n", strerror(errno));
	va_end(ap);
	exit(1);
}

static const char *fmt_kb(unsigned long kb, char *buf, size_t len)
{
	if (kb >= 1024 && kb % 1024 == 0)
		snprintf(buf, len, "%luM", kb / 1024);
	else
		snprintf(buf, len, "%luK", kb);
	return buf;
}

/* Returns the counter value, or -1 if it cannot be read. */
static long long read_counter(const char *path)
{
	char buf[64];
	char *end;
	long long v;

	if (!read_file(path, buf, sizeof(buf)))
		return -1;
	errno = 0;
	v = strtoll(buf, &end, 10);
	if (errno || end == buf)
		return -1;
	return v;
}

/* ---------------------------------------------------------------- */
/*
 * Knobs: the tree's thp_settings, saved at start and restored at exit, and
 * numa_balancing, which every case turns off.
 */

static struct thp_settings thp_saved;	/* as found, if THP has sysfs */
static bool have_thp;
static char numa_saved[16];		/* as found, or "" if none */

static void save_knobs(void)
{
	have_thp = !access(THP_DIR "/enabled", F_OK);
	if (have_thp) {
		thp_save_settings();
		thp_read_settings(&thp_saved);
	}
	read_file(NUMA_KNOB, numa_saved, sizeof(numa_saved));
}

static void restore_knobs(void)
{
	if (have_thp)
		thp_restore_settings();
	if (numa_saved[0])
		write_file(NUMA_KNOB, numa_saved, strlen(numa_saved) + 1);
}

/* The folio order of @kb, if it is a THP size of this kernel; else -1. */
static int thp_order(unsigned long kb, unsigned long orders)
{
	int o;

	for (o = 0; o < NR_ORDERS; o++)
		if ((page_size << o) / 1024 == kb)
			return orders & (1UL << o) ? o : -1;
	return -1;
}

/*
 * Why case @c has no such shape with this kernel's page size ("na-..."),
 * or NULL: its ranges are written for 4K pages and 2M PMDs, a large folio
 * must span two pages at least, anonymous mTHP has no order 1, a PTE-mapped
 * mTHP is smaller than a PMD, and shmem has PMD-sized folios only where the
 * page cache does (not with 64K pages: its largest folio is 128M).
 */
static const char *case_not_applicable(const struct bcase *c)
{
	size_t fsize = folio_size(c);

	if ((KiB(c->off_kb) | KiB(c->len_kb) | KiB(c->stride_kb)) % page_size)
		return "na-range-not-page-aligned";
	if (c->shape != SHAPE_PTE && c->stride_kb && pmd_kb != 2048)
		return "na-ranges-for-2m-pmd";
	if (c->thp_on_kb && KiB(c->thp_on_kb) <= page_size)
		return "na-folio-not-above-page";
	if (c->shape != SHAPE_PTE && c->kind == K_SHMEM && have_thp &&
	    thp_order(pmd_kb, thp_supported_orders()) >= 0 &&
	    thp_order(pmd_kb, thp_shmem_supported_orders()) < 0)
		return "na-no-shmem-pmd-folio";
	if (c->folio_kb == 4 || c->shape != SHAPE_PTE)
		return NULL;
	if (fsize <= page_size || fsize % page_size)
		return "na-folio-not-above-page";
	if (c->kind == K_ANON && fsize == 2 * page_size)
		return "na-no-order-1-anon-mthp";
	if (fsize >= KiB(pmd_kb))
		return "na-folio-not-below-pmd";
	return NULL;
}

/*
 * THP settings as found, but with "enabled" at @enabled, every size off
 * except @anon_kb for anonymous memory (0: none, or inherit with
 * THP_INHERIT) and @shmem_kb for anonymous shared memory (0: none), and
 * NUMA balancing off.
 */
static int set_thp_sizes(enum thp_enabled enabled, unsigned long anon_kb,
			 enum thp_enabled anon, unsigned long shmem_kb,
			 const char **reason)
{
	unsigned long orders, shmem_orders;
	struct thp_settings s;
	int o, ao, so;

	if (numa_saved[0])
		write_file(NUMA_KNOB, "0", 2);
	if (!have_thp) {
		if (!anon_kb && !shmem_kb)
			return 0;
		*reason = "no-thp-sysfs";
		return -1;
	}
	orders = thp_supported_orders();
	shmem_orders = thp_shmem_supported_orders();
	ao = anon_kb ? thp_order(anon_kb, orders) : -1;
	so = shmem_kb ? thp_order(shmem_kb, shmem_orders) : -1;
	if ((anon_kb && ao < 0) || (shmem_kb && so < 0)) {
		*reason = "no-such-mthp-size";
		return -1;
	}
	s = thp_saved;
	s.thp_enabled = enabled;
	s.shmem_enabled = SHMEM_NEVER;
	for (o = 0; o < NR_ORDERS; o++) {
		s.hugepages[o].enabled = o == ao ? anon : THP_NEVER;
		s.shmem_hugepages[o].enabled = o == so ? SHMEM_ALWAYS :
							 SHMEM_NEVER;
	}
	thp_write_settings(&s);
	return 0;
}

/*
 * Put every THP knob in a known state: everything off except the one
 * size @anon_kb for anonymous memory (0: none) and @shmem_kb for anonymous
 * shared memory (0: none).
 */
static int set_thp(unsigned long anon_kb, unsigned long shmem_kb,
		   const char **reason)
{
	return set_thp_sizes(anon_kb ? THP_MADVISE : THP_NEVER, anon_kb,
			     THP_ALWAYS, shmem_kb, reason);
}

/*
 * THP "enabled" at "always", with the PMD size inheriting it, and every
 * other size and shmem at "never": THP as distributions that enable it for
 * all memory run it.
 */
static int set_thp_always(const char **reason)
{
	if (!have_thp) {
		*reason = "no-thp-sysfs";
		return -1;
	}
	return set_thp_sizes(THP_ALWAYS, pmd_kb, THP_INHERIT, 0, reason);
}

/* ---------------------------------------------------------------- */
/* Folio checks */

struct counters {
	long long alloc;
	long long fallback;
	long long all_alloc;	/* all sizes */
};

static int read_counters(const struct bcase *c, struct counters *ct)
{
	const char *an = c->kind == K_ANON ? "anon_fault_alloc" : "shmem_alloc";
	const char *fn = c->kind == K_ANON ? "anon_fault_fallback" :
					     "shmem_fallback";
	char path[192];
	long long v;
	int o;

	memset(ct, 0, sizeof(*ct));
	for (o = 1; o < NR_ORDERS; o++) {
		unsigned long kb = (page_size << o) / 1024;

		snprintf(path, sizeof(path),
			 THP_DIR "/hugepages-%lukB/stats/%s", kb, an);
		v = read_counter(path);
		if (v < 0)
			continue;	/* no such size, or no anon stats for 8kB */
		ct->all_alloc += v;
		if (kb != case_folio_kb(c))
			continue;
		ct->alloc = v;
		snprintf(path, sizeof(path),
			 THP_DIR "/hugepages-%lukB/stats/%s", kb, fn);
		v = read_counter(path);
		if (v < 0)
			return -1;
		ct->fallback = v;
	}
	return 0;
}

/* What /proc/self/smaps says of the VMAs that lie in a region. */
struct smaps_region {
	long long pmd_kb;	/* mapped by PMDs */
	size_t nr_vmas;
	size_t bytes;		/* the bytes they span */
	size_t nohuge;		/* how many are VM_NOHUGEPAGE ("nh") */
};

/*
 * Scan /proc/self/smaps for the VMAs that lie in [@start, @start + @size):
 * the memory they map with PMDs (AnonHugePages, or ShmemPmdMapped for
 * shmem), their number and span, and how many are VM_NOHUGEPAGE.
 * Returns 0, or -1 if smaps cannot be read.
 */
static int scan_smaps(const struct bcase *c, char *start, size_t size,
		      struct smaps_region *sr)
{
	const char *field = c->kind == K_ANON ? "AnonHugePages:" :
						"ShmemPmdMapped:";
	unsigned long lo, hi, want = (unsigned long)start;
	char line[512];
	int in_vma = 0;
	long long v;
	FILE *f;

	memset(sr, 0, sizeof(*sr));
	f = fopen("/proc/self/smaps", "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *dash = strchr(line, '-'), *sp = strchr(line, ' ');

		if (dash && sp && dash < sp &&
		    sscanf(line, "%lx-%lx ", &lo, &hi) == 2) {
			in_vma = lo >= want && hi <= want + size;
			if (in_vma) {
				sr->nr_vmas++;
				sr->bytes += hi - lo;
			}
			continue;
		}
		if (!in_vma)
			continue;
		if (!strncmp(line, field, strlen(field)) &&
		    sscanf(line + strlen(field), "%lld kB", &v) == 1)
			sr->pmd_kb += v;
		if (!strncmp(line, "VmFlags:", 8) && strstr(line, " nh"))
			sr->nohuge++;
	}
	if (fclose(f))
		return -1;
	return 0;
}

/* The PMD-mapped kB of the region, or -1 if its VMAs do not cover it. */
static long long smaps_pmd_mapped(const struct bcase *c, char *start,
				  size_t size)
{
	struct smaps_region sr;

	if (scan_smaps(c, start, size, &sr) || sr.bytes != size)
		return -1;
	return sr.pmd_kb;
}

/*
 * Read the pagemap entries of [p, p + npages pages) into pm.
 * Returns 0, or -1 if /proc/self/pagemap cannot be opened.
 */
static int read_pagemap(char *p, size_t npages, uint64_t *pm)
{
	int fd = open("/proc/self/pagemap", O_RDONLY);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = pread(fd, pm, npages * sizeof(*pm),
		  (off_t)((uintptr_t)p / page_size) * sizeof(*pm));
	if (n < 0)
		die("pread pagemap");
	if ((size_t)n != npages * sizeof(*pm)) {
		errno = EIO;
		die("short pagemap read");
	}
	if (close(fd))
		die("close pagemap");
	return 0;
}

/* Pages of pm[0..npages) that would sit at the last page of a 64K block
 * of virtual addresses (the region starts 64K-aligned) and whose PFN is the
 * last of a 64K-aligned physical block: see check_layout(). */
static size_t count_congruent(const uint64_t *pm, size_t npages)
{
	const uint64_t last = 65536 / page_size - 1;
	size_t i, n = 0;

	for (i = last; i < npages; i += last + 1)
		if ((pm[i] & PM_PFN_MASK & last) == last)
			n++;
	return n;
}

/* Whether folio slot @i (of @folio_kb each) of the region holds order-0 pages. */
static int slot_is_small(const struct bcase *c, size_t i)
{
	size_t per_pmd = KiB(pmd_kb) / folio_size(c);

	switch (c->mix) {
	case MIX_EDGES:
		return i % per_pmd == 0 || i % per_pmd == per_pmd / 2 ||
		       i % per_pmd == per_pmd - 1;
	case MIX_SPARSE:
		return i % 4 != 0;
	default:
		return 0;
	}
}

/*
 * Check that the @n pages of @pm are present order-0 pages. Returns 0, or
 * -1 with @reason set.
 */
static int check_small_pages(int kffd, const uint64_t *pm, size_t n,
			     const char **reason)
{
	uint64_t kf;
	size_t j;

	for (j = 0; j < n; j++) {
		if (!(pm[j] & PM_PRESENT)) {
			*reason = "page-not-present";
			return -1;
		}
		if (pread(kffd, &kf, sizeof(kf),
			  (off_t)(pm[j] & PM_PFN_MASK) * sizeof(kf)) != sizeof(kf))
			die("pread kpageflags");
		if (kf & ((1ULL << KPF_COMPOUND_HEAD) |
			  (1ULL << KPF_COMPOUND_TAIL))) {
			*reason = "large-folio-in-small-slot";
			return -1;
		}
	}
	return 0;
}

/*
 * Check the folio layout of [p, p + size) with /proc/self/pagemap and
 * /proc/kpageflags: every page present, each folio_pages-aligned chunk one
 * compound folio with contiguous PFNs (or order-0 pages for 4K).
 * Counts in @congruent (unless NULL) the 64K blocks whose last page has a
 * PFN that is also the last of a 64K-aligned physical block: there arm64's
 * set_ptes() tries to fold a contpte block, so a per-PTE loop costs more
 * there, and which blocks qualify depends on the page allocator's history.
 * Returns 1 if checked and good, 0 if the files are unusable (not root,
 * no PROC_PAGE_MONITOR), -1 on a bad layout.
 */
static int check_layout(const struct bcase *c, char *p, size_t size,
			const char **reason, size_t *congruent)
{
	size_t npages = size / page_size;
	size_t fpages = folio_size(c) / page_size;
	uint64_t *pm = NULL, *kf = NULL;
	int kffd = -1, ret = -1;
	size_t i, j;
	ssize_t n;

	pm = malloc(npages * sizeof(*pm));
	kf = malloc(fpages * sizeof(*kf));
	if (!pm || !kf)
		die("malloc");
	kffd = open("/proc/kpageflags", O_RDONLY);
	if (kffd < 0 || read_pagemap(p, npages, pm)) {
		ret = 0;
		goto out;
	}
	if (congruent)
		*congruent = count_congruent(pm, npages);
	for (i = 0; i < npages; i += fpages) {
		uint64_t pfn0 = pm[i] & PM_PFN_MASK;

		if (slot_is_small(c, i / fpages)) {
			if (check_small_pages(kffd, pm + i, fpages, reason) < 0)
				goto out;
			continue;
		}
		for (j = 0; j < fpages; j++) {
			if (!(pm[i + j] & PM_PRESENT)) {
				*reason = "page-not-present";
				goto out;
			}
			if ((pm[i + j] & PM_PFN_MASK) == 0) {
				ret = 0;	/* PFNs hidden: no CAP_SYS_ADMIN */
				goto out;
			}
			if (fpages > 1 &&
			    (pm[i + j] & PM_PFN_MASK) != pfn0 + j) {
				*reason = "folio-pfns-not-contiguous";
				goto out;
			}
		}
		n = pread(kffd, kf, fpages * sizeof(*kf),
			  (off_t)pfn0 * sizeof(*kf));
		if (n < 0)
			die("pread kpageflags");
		if ((size_t)n != fpages * sizeof(*kf)) {
			errno = EIO;
			die("short kpageflags read");
		}
		if (fpages == 1) {
			if (kf[0] & ((1ULL << KPF_COMPOUND_HEAD) |
				     (1ULL << KPF_COMPOUND_TAIL))) {
				*reason = "large-folio-in-4k-case";
				goto out;
			}
			continue;
		}
		if (!(kf[0] & (1ULL << KPF_COMPOUND_HEAD))) {
			*reason = "folio-too-small";
			goto out;
		}
		for (j = 1; j < fpages; j++) {
			if (!(kf[j] & (1ULL << KPF_COMPOUND_TAIL))) {
				*reason = "folio-too-small";
				goto out;
			}
		}
		/* The next page must start a new folio. */
		if (i + fpages < npages && !slot_is_small(c, i / fpages + 1)) {
			uint64_t next;

			n = pread(kffd, &next, sizeof(next),
				  (off_t)(pm[i + fpages] & PM_PFN_MASK) *
				  sizeof(next));
			if (n != sizeof(next))
				die("pread kpageflags");
			if (!(next & (1ULL << KPF_COMPOUND_HEAD))) {
				*reason = "folio-too-large";
				goto out;
			}
		}
	}
	ret = 1;
out:
	if (kffd >= 0 && close(kffd))
		die("close kpageflags");
	free(pm);
	free(kf);
	return ret;
}

/* ---------------------------------------------------------------- */
/* The cases */

struct region {
	char *resv;		/* PROT_NONE reservation around the region */
	size_t resv_len;
	char *p;
	size_t size;
	int fd;
	size_t nr_vmas;		/* the VMAs it consists of */
};

static void map_region(const struct bcase *c, size_t size, struct region *r)
{
	size_t align = pmd_kb * 1024;
	int flags = MAP_FIXED;
	size_t lead, tail;

	r->size = size;
	r->fd = -1;
	r->nr_vmas = 1;
	r->resv_len = size + 2 * align;
	r->resv = mmap(NULL, r->resv_len, PROT_NONE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (r->resv == MAP_FAILED)
		die("mmap reservation of %zu bytes", r->resv_len);
	r->p = (char *)(((uintptr_t)r->resv + page_size + align - 1) &
			~(uintptr_t)(align - 1));
	/*
	 * The guard VMAs on both sides carry VM_DONTCOPY, which the region
	 * never has, so the region never merges with them whatever its
	 * protection: each mprotect() covers exactly one VMA.
	 */
	lead = r->p - r->resv;
	tail = r->resv_len - lead - size;
	if (madvise(r->resv, lead, MADV_DONTFORK) ||
	    madvise(r->p + size, tail, MADV_DONTFORK))
		die("madvise(MADV_DONTFORK)");

	switch (c->kind) {
	case K_ANON:
		flags |= MAP_PRIVATE | MAP_ANONYMOUS;
		break;
	case K_SHMEM:
		flags |= MAP_SHARED | MAP_ANONYMOUS;
		break;
	case K_MEMFD:
		r->fd = syscall(SYS_memfd_create, "mprotect_bench",
				MFD_CLOEXEC);
		if (r->fd < 0)
			die("memfd_create");
		if (ftruncate(r->fd, size))
			die("ftruncate memfd");
		flags |= MAP_SHARED;
		break;
	}
	if (mmap(r->p, size, RW, flags, r->fd, 0) != r->p)
		die("mmap region of %zu bytes", size);
	if (c->folio_kb > 4 && c->kind == K_ANON && !c->thp_always &&
	    madvise(r->p, size, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE)");
}

static void unmap_region(struct region *r)
{
	if (munmap(r->resv, r->resv_len))
		die("munmap");
	if (r->fd >= 0 && close(r->fd))
		die("close memfd");
}

static void touch(char *p, size_t size)
{
	volatile char *v = p;
	size_t i;

	/* Write only: a read first would map the shared zero page. */
	for (i = 0; i < size; i += page_size)
		v[i] = 1;
}

/*
 * Fault the pages of [p, p + size) in the order k * 97 mod n: the page
 * allocator hands out the PFNs of a run of faults one after the other, so
 * neighbouring pages then get PFNs 97 faults apart.
 */
static void populate_scattered(char *p, size_t size)
{
	size_t n = size / page_size, k;
	volatile char *v = p;

	for (k = 0; k < n; k++)
		v[(k * 97 % n) * page_size] = 1;
}

/*
 * Replace the large folios of the slots slot_is_small() names with order-0
 * pages: unmapped, then faulted in again with every mTHP size off.
 */
static int populate_small_slots(const struct bcase *c, struct region *r,
				const char **reason)
{
	size_t fsize = folio_size(c), i;

	if (c->mix == MIX_NONE)
		return 0;
	if (set_thp(0, 0, reason))
		return -1;
	for (i = 0; i < r->size / fsize; i++) {
		if (!slot_is_small(c, i))
			continue;
		if (madvise(r->p + i * fsize, fsize, MADV_DONTNEED))
			die("madvise(MADV_DONTNEED)");
		touch(r->p + i * fsize, fsize);
	}
	return 0;
}

/*
 * Populate the region. Anon private folios smaller than 64K are placed so
 * that as few 64K blocks as possible are congruent (see check_layout()):
 * otherwise the page allocator's history -- everything the guest did
 * before -- decides whether stock arm64 pays a contpte fold attempt every
 * 16 PTEs, which moves its rorw-16k cost by 1.7% between boots. The pages
 * are populated in a scratch mapping 64K longer than the region, and the
 * folio-aligned window with the fewest congruent blocks is moved onto the
 * region with mremap(), which keeps folios and PFNs.
 */
static void populate(const struct bcase *c, struct region *r)
{
	size_t size = r->size, fsize = folio_size(c), span = 65536;
	size_t npages = (size + span) / page_size, o, best = 0, nbest = ~(size_t)0;
	char *resv, *s;
	uint64_t *pm;

	if (c->scatter) {
		populate_scattered(r->p, size);
		return;
	}
	if (c->kind != K_ANON || fsize >= span || c->shape != SHAPE_PTE) {
		touch(r->p, size);
		return;
	}
	/* A 64K-aligned scratch mapping, so its folios are as in the region. */
	resv = mmap(NULL, size + 2 * span, PROT_NONE,
		    MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (resv == MAP_FAILED)
		die("mmap scratch reservation");
	s = (char *)(((uintptr_t)resv + span - 1) & ~(uintptr_t)(span - 1));
	if (mmap(s, size + span, RW, MAP_FIXED | MAP_PRIVATE | MAP_ANONYMOUS,
		 -1, 0) != s)
		die("mmap scratch");
	if (fsize > page_size && madvise(s, size + span, MADV_HUGEPAGE))
		die("madvise(MADV_HUGEPAGE) scratch");
	touch(s, size + span);
	pm = malloc(npages * sizeof(*pm));
	if (!pm)
		die("malloc");
	if (read_pagemap(s, npages, pm) == 0) {
		for (o = 0; o < span; o += fsize) {
			size_t n = count_congruent(pm + o / page_size,
						   size / page_size);

			if (n < nbest) {
				nbest = n;
				best = o;
			}
		}
	}
	free(pm);
	if (mremap(s + best, size, size, MREMAP_MAYMOVE | MREMAP_FIXED,
		   r->p) != r->p)
		die("mremap scratch onto the region");
	if (munmap(resv, size + 2 * span))
		die("munmap scratch");
}

/*
 * Split every PMD mapping in the region, leaving PTE-mapped THPs: an
 * mprotect() of its first page splits the VMA there, and with it the PMD.
 * Splitting a shmem PMD only unmaps it: its pages are faulted in again
 * while the VMA holds no whole PMD range, so by PTEs.
 */
static void split_pmds(const struct bcase *c, char *p, size_t size)
{
	size_t pmd = pmd_kb * 1024;
	size_t off;

	for (off = 0; off < size; off += pmd) {
		if (mprotect(p + off, page_size, RO))
			die("mprotect split");
		if (c->kind != K_ANON)
			touch(p + off + page_size, pmd - page_size);
		if (mprotect(p + off, page_size, RW))
			die("mprotect unsplit");
	}
	/* The first page of each, now in a page table that is there. */
	if (c->kind != K_ANON)
		touch(p, size);
}

/* The ranges that each half of a cycle changes, one mprotect() each. */
struct ranges {
	size_t off, len, step, n;
};

static void get_ranges(const struct bcase *c, size_t size, struct ranges *rg)
{
	rg->off = KiB(c->off_kb);
	rg->len = c->len_kb ? KiB(c->len_kb) : size - 2 * rg->off;
	rg->step = c->stride_kb ? KiB(c->stride_kb) : size;
	rg->n = size / rg->step;
}

/*
 * Make each range a VMA of its own, for good: the gaps around the ranges
 * get VM_DONTCOPY, so that a range never merges with them whatever its
 * protection. Splitting the VMA splits the PMD mappings across the gaps'
 * edges. Counts the VMAs, ranges and gaps, in @r->nr_vmas.
 */
static void make_range_vmas(const struct bcase *c, struct region *r)
{
	struct ranges rg;
	size_t k, at = 0;

	if (!c->off_kb && !c->len_kb)
		return;
	get_ranges(c, r->size, &rg);
	r->nr_vmas = rg.n;
	for (k = 0; k <= rg.n; k++) {
		size_t next = k < rg.n ? rg.off + k * rg.step : r->size;

		if (next > at) {
			if (madvise(r->p + at, next - at, MADV_DONTFORK))
				die("madvise(MADV_DONTFORK) gap");
			r->nr_vmas++;
		}
		at = next + rg.len;
	}
}

static long long minflt(void)
{
	struct rusage ru;

	if (getrusage(RUSAGE_SELF, &ru))
		die("getrusage");
	return ru.ru_minflt;
}

/*
 * User TLB flushes, from the vm events that bench/tlbcount.patch (a
 * measurement-only kernel patch) adds: ranged flushes, the base pages they
 * span, flushes of the whole address space. -1 where the kernel does not
 * count them.
 */
struct tlb_flushes {
	long long range, pages, mm;
};

static void read_tlb_flushes(struct tlb_flushes *t)
{
	char name[64];
	long long v;
	FILE *f = fopen("/proc/vmstat", "r");

	t->range = t->pages = t->mm = -1;
	if (!f)
		return;
	while (fscanf(f, "%63s %lld", name, &v) == 2) {
		if (!strcmp(name, "tlb_flush_range"))
			t->range = v;
		else if (!strcmp(name, "tlb_flush_range_pages"))
			t->pages = v;
		else if (!strcmp(name, "tlb_flush_mm"))
			t->mm = v;
	}
	fclose(f);
}

static uint64_t now_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_MONOTONIC, &ts))
		die("clock_gettime");
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * One cycle: every range to prot_a, then every range to prot_b. @rg is
 * worked out once per case, outside the timed loop: what the loop adds to
 * each call is then the same for every case and kernel, and small.
 */
static void cycle(const struct bcase *c, char *p, const struct ranges *rg)
{
	size_t k;

	for (k = 0; k < rg->n; k++)
		if (mprotect(p + rg->off + k * rg->step, rg->len, c->prot_a))
			die("mprotect(%d)", c->prot_a);
	for (k = 0; k < rg->n; k++)
		if (mprotect(p + rg->off + k * rg->step, rg->len, c->prot_b))
			die("mprotect(%d)", c->prot_b);
	if (c->write)
		for (k = 0; k < rg->n; k++)
			touch(p + rg->off + k * rg->step, rg->len);
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/*
 * What a case's timed loops measured, over all rounds (--rounds): each
 * timed block's cost scaled to the case's whole loop, their sum, and the
 * faults and TLB flushes of the timed loops.
 */
struct tally {
	uint64_t *cost;
	unsigned int nr;
	uint64_t sum;
	long long faults;
	struct tlb_flushes tlb;
	int no_tlb;	/* the kernel does not count them */
	unsigned int window;	/* the last timed loop's, for the cache model */
	int done;	/* skipped, or printed */
};

/*
 * Run @n cycles in up to BLOCKS timed blocks, each block's cost scaled to
 * @iters cycles (the case's whole loop) into @cost, which is on the stack:
 * the tally's array, on the heap, could fault in the timed loop. @prev is
 * the clock at the start; returns the clock after the last block and the
 * number of blocks in @nb.
 */
#define BLOCKS 10
static uint64_t timed_loop(const struct bcase *c, char *p,
			   const struct ranges *rg, unsigned int n,
			   unsigned int iters, uint64_t prev,
			   uint64_t cost[BLOCKS], unsigned int *nb)
{
	unsigned int b, i, k;
	uint64_t t;

	*nb = n < BLOCKS ? n : BLOCKS;
	for (b = 0; b < *nb; b++) {
		k = n / *nb + (b < n % *nb);
		for (i = 0; i < k; i++)
			cycle(c, p, rg);
		t = now_ns();
		cost[b] = (t - prev) * iters / k;
		prev = t;
	}
	return prev;
}

/*
 * The median block (insns=): a timer tick, a kworker or an RCU callback
 * that lands in one block does not count, whichever case it happens to
 * fall in (under icount they land in a place that depends on all the guest
 * did before). The cheapest (min_block=): in wall time, where the host can
 * only slow a block down, the estimate least touched by the host.
 */
static void block_stats(struct tally *tl, uint64_t *median, uint64_t *fastest)
{
	unsigned int nr = tl->nr;

	qsort(tl->cost, nr, sizeof(*tl->cost), cmp_u64);
	*median = nr % 2 ? tl->cost[nr / 2] :
			   (tl->cost[nr / 2 - 1] + tl->cost[nr / 2]) / 2;
	*fastest = tl->cost[0];
}

static void skip(const struct bcase *c, const char *reason)
{
	printf("BENCH case=%s skipped reason=%s\n", c->name, reason);
	fflush(stdout);
}

/*
 * Check the region after population (and again after the timed loop).
 * Fills @how with the checks that were done.
 */
static int verify(const struct bcase *c, struct region *r,
		  const char **reason, const char **how, size_t *congruent,
		  int after_loop)
{
	size_t size = r->size;
	struct smaps_region sr;
	long long ah;
	int lay;

	if (scan_smaps(c, r->p, size, &sr) || sr.bytes != size) {
		*reason = "region-not-covered-by-its-vmas";
		return -1;
	}
	/* The ranges and gaps did not merge, nor the split PMDs' VMAs stay. */
	if (sr.nr_vmas != r->nr_vmas) {
		*reason = "unexpected-vma-count";
		return -1;
	}
	if (after_loop && c->after == AFTER_NOHUGEPAGE &&
	    sr.nohuge != sr.nr_vmas) {
		*reason = "not-madv-nohugepage";
		return -1;
	}
	ah = sr.pmd_kb;
	if (c->shape == SHAPE_PMD && (size_t)ah * 1024 != size) {
		*reason = "not-pmd-mapped";
		return -1;
	}
	if (c->shape != SHAPE_PMD && ah != 0) {
		*reason = "unexpected-pmd-mapping";
		return -1;
	}
	lay = check_layout(c, r->p, size, reason, congruent);
	if (lay < 0)
		return -1;
	/* Only the page flags tell what MADV_COLLAPSE made. */
	if (!lay && c->shape == SHAPE_COLLAPSE) {
		*reason = "folios-unverifiable";
		return -1;
	}
	*how = lay ? "kpageflags+stats" : "stats";
	return 0;
}

/* --scale: every case's iterations times this (longer timed windows). */
static unsigned int iter_scale = 1;
/*
 * --rounds: every case's iterations are split over this many rounds
 * through all the cases, each with its own setup. In wall time a slow
 * phase of the host then meets only a part of a case's blocks.
 */
static unsigned int nr_rounds = 1;

/*
 * Timed loops run so far, each between the markers of marker.h: the
 * cache model numbers its windows the same way (window= of a case is its
 * last round's).
 */
static unsigned int nr_windows;

/*
 * Round @round of case @c into @tl; the last round prints the case's line.
 * Returns -1 if the case is skipped (once), 0 otherwise.
 */
static int run_case(const struct bcase *c, size_t size_opt,
		    unsigned int iters_opt, unsigned int round,
		    struct tally *tl)
{
	size_t size = c->fixed_size || !size_opt ? c->size : size_opt;
	unsigned int iters = (iters_opt ? iters_opt : c->iters) * iter_scale;
	unsigned int n = iters / nr_rounds + (round < iters % nr_rounds);
	/* The rounds it runs in: fewer than --rounds if it has fewer cycles */
	unsigned int rounds_run = iters < nr_rounds ? iters : nr_rounds;
	unsigned long anon_kb = 0, shmem_kb = 0;
	size_t nfolios;
	const char *reason = NULL, *how = "stats";
	size_t congruent = 0;
	struct counters before, after;
	struct tlb_flushes tlb0, tlb1;
	long long f0, f1;
	uint64_t t0, calls, ptes, insns, fastest, cost[BLOCKS];
	unsigned int nb;
	struct ranges rg;
	struct region r;
	char fb[24];

	if (tl->done || !n)
		return 0;
	tl->done = 1;
	reason = case_not_applicable(c);
	if (reason) {
		skip(c, reason);
		return -1;
	}
	/* Whole pages, one at least: a size in KiB is of 4K pages. */
	size = size < page_size ? page_size : size - size % page_size;
	/* One PMD-sized folio at least (larger pages, larger PMDs). */
	if (c->shape != SHAPE_PTE && size < KiB(pmd_kb))
		size = KiB(pmd_kb);
	nfolios = size / folio_size(c);
	/* MADV_COLLAPSE makes the large folios of SHAPE_COLLAPSE. */
	if (c->folio_kb > 4 && c->shape != SHAPE_COLLAPSE) {
		if (c->kind == K_ANON)
			anon_kb = case_folio_kb(c);
		else
			shmem_kb = case_folio_kb(c);
	}
	if (c->thp_always ? set_thp_always(&reason) :
			    set_thp(anon_kb, shmem_kb, &reason)) {
		skip(c, reason);
		return -1;
	}
	map_region(c, size, &r);
	if (read_counters(c, &before)) {
		reason = "no-mthp-stats";
		goto skipped;
	}
	populate(c, &r);
	if (read_counters(c, &after)) {
		reason = "no-mthp-stats";
		goto skipped;
	}
	if (c->shape == SHAPE_COLLAPSE) {
		int tries = 3, err;

		/* Populated with small folios only: MADV_COLLAPSE makes them. */
		if (after.all_alloc != before.all_alloc) {
			reason = "large-folio-before-collapse";
			goto skipped;
		}
		while ((err = madvise(r.p, size, MADV_COLLAPSE)) &&
		       errno == EAGAIN && --tries)
			;
		if (err) {
			reason = errno == EINVAL ? "no-madv-collapse" :
						   "madv-collapse-failed";
			goto skipped;
		}
		/* Fault the new folios in: PMD-mapped. */
		touch(r.p, size);
	} else if (c->folio_kb > 4) {
		if (after.alloc - before.alloc < (long long)nfolios) {
			reason = "too-few-large-folios-allocated";
			goto skipped;
		}
		if (after.fallback != before.fallback) {
			reason = "large-folio-allocation-fell-back";
			goto skipped;
		}
	}
	if (populate_small_slots(c, &r, &reason))
		goto skipped;
	if (c->shape == SHAPE_PMD_SPLIT || c->shape == SHAPE_COLLAPSE) {
		/* Populated as PMD THP: check, then PTE-map it. */
		long long ah = smaps_pmd_mapped(c, r.p, size);

		if (ah < 0 || (size_t)ah * 1024 != size) {
			reason = "thp-not-pmd-mapped-before-split";
			goto skipped;
		}
		/*
		 * Keep khugepaged away from the PTE-mapped THPs. With THP
		 * "always" it stays on: make_range_vmas() splits every PMD
		 * again if it collapsed one meanwhile, and then the VMAs hold
		 * no aligned PMD range for it.
		 */
		if (!c->thp_always && set_thp(0, 0, &reason))
			goto skipped;
		split_pmds(c, r.p, size);
	}
	make_range_vmas(c, &r);
	if (verify(c, &r, &reason, &how, &congruent, 0))
		goto skipped;
	if (c->folio_kb == 4 && !strcmp(how, "stats") &&
	    after.all_alloc != before.all_alloc) {
		reason = "large-folio-in-4k-case";
		goto skipped;
	}

	if (c->thp_on_kb && set_thp(c->thp_on_kb, 0, &reason))
		goto skipped;
	if (c->after == AFTER_NOHUGEPAGE &&
	    madvise(r.p, size, MADV_NOHUGEPAGE))
		die("madvise(MADV_NOHUGEPAGE)");
	if (c->after == AFTER_THP_DISABLE &&
	    (prctl(PR_SET_THP_DISABLE, 1UL, 0UL, 0UL, 0UL) ||
	     prctl(PR_GET_THP_DISABLE, 0UL, 0UL, 0UL, 0UL) != 1))
		die("prctl(PR_SET_THP_DISABLE)");

	/* One untimed warm-up cycle, then the timed loop. */
	get_ranges(c, size, &rg);
	cycle(c, r.p, &rg);
	(void)now_ns();		/* fault in whatever the timing calls touch */
	read_tlb_flushes(&tlb0);
	f0 = minflt();
	t0 = now_ns();
	bench_mark(MARK_BEGIN);
	tl->sum += timed_loop(c, r.p, &rg, n, iters, t0, cost, &nb) - t0;
	bench_mark(MARK_END);
	tl->window = nr_windows++;
	f1 = minflt();
	read_tlb_flushes(&tlb1);
	memcpy(tl->cost + tl->nr, cost, nb * sizeof(*cost));
	tl->nr += nb;
	tl->faults += f1 - f0;
	if (tlb0.range < 0 || tlb1.range < 0)
		tl->no_tlb = 1;
	tl->tlb.range += tlb1.range - tlb0.range;
	tl->tlb.pages += tlb1.pages - tlb0.pages;
	tl->tlb.mm += tlb1.mm - tlb0.mm;
	if (c->after == AFTER_THP_DISABLE &&
	    prctl(PR_SET_THP_DISABLE, 0UL, 0UL, 0UL, 0UL))
		die("prctl(PR_SET_THP_DISABLE, 0)");

	if (verify(c, &r, &reason, &how, NULL, 1)) {
		reason = reason ? reason : "layout-changed";
		goto skipped;
	}
	/*
	 * The last round this case runs in prints it (rounds=rounds_run);
	 * verify= and congruent64k= are that round's, each round having
	 * passed the same checks.
	 */
	if (round + 1 < rounds_run) {
		tl->done = 0;
		unmap_region(&r);
		return 0;
	}
	block_stats(tl, &insns, &fastest);
	calls = (uint64_t)2 * iters * rg.n;
	ptes = calls * (rg.len / page_size);
	printf("BENCH case=%s insns=%" PRIu64 " calls=%" PRIu64 " ptes=%" PRIu64
	       " per_pte=%.2f faults=%lld per_call=%" PRIu64
	       " folio=%s size=%zu iters=%u map=%s kind=%s prot=%s verify=%s"
	       " congruent64k=%zu/%zu insns_sum=%" PRIu64 " min_block=%" PRIu64
	       " rounds=%u window=%u",
	       c->name, insns, calls, ptes,
	       (double)insns / (double)ptes, tl->faults, insns / calls,
	       fmt_kb(case_folio_kb(c), fb, sizeof(fb)), size, iters,
	       c->shape == SHAPE_PMD ? "pmd" : "pte",
	       c->kind == K_ANON ? "anon" :
	       c->kind == K_SHMEM ? "shmem" : "memfd",
	       c->prot_a == NONE ? (c->write ? "none-rw-write" : "none-rw") :
	       (c->write ? "ro-rw-write" : "ro-rw"), how,
	       congruent, size / 65536, tl->sum, fastest, rounds_run,
	       tl->window);
	/* Flushes per mprotect() call (all that the timed loops issued). */
	if (!tl->no_tlb)
		printf(" tlb_range=%.3f tlb_pages=%.3f tlb_mm=%.3f",
		       (double)tl->tlb.range / calls,
		       (double)tl->tlb.pages / calls,
		       (double)tl->tlb.mm / calls);
	printf("\n");
	fflush(stdout);
	unmap_region(&r);
	return 0;

skipped:
	skip(c, reason ? reason : "unknown");
	unmap_region(&r);
	return -1;
}

/* ---------------------------------------------------------------- */

static void usage(FILE *f)
{
	fprintf(f,
		"usage: mprotect_bench [--case NAME[,NAME...]|all] [--size BYTES[K|M|G]]\n"
		"                      [--iters N] [--scale N] [--rounds N] [--list]\n"
		"  --size applies to every case but the fixed nonerw-4k-* shapes;\n"
		"         a THP case maps one PMD at least\n"
		"  --scale multiplies every case's iterations (longer timed windows)\n"
		"  --rounds splits every case's iterations over N rounds through\n"
		"           all the cases, each round with its own setup\n");
}

static int parse_size(const char *s, size_t *out)
{
	unsigned long long v;
	char *end;

	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || end == s || *s == '-')
		return -1;
	switch (*end) {
	case 'K': case 'k':
		v <<= 10; end++; break;
	case 'M': case 'm':
		v <<= 20; end++; break;
	case 'G': case 'g':
		v <<= 30; end++; break;
	}
	if (*end || !v || v > (1ULL << 40))
		return -1;
	*out = v;
	return 0;
}

/*
 * Same virtual layout on every run: address space randomisation changes the
 * shape of the page tables and of the VMA tree under the region, and with
 * it the instruction count by a few instructions per call.  Re-exec once
 * with ADDR_NO_RANDOMIZE; if that is impossible, go on randomised.
 */
static void no_aslr(char **argv)
{
	int pers = personality(0xffffffff);

	if (pers == -1) {
		perror("mprotect_bench: personality");
		return;
	}
	if (pers & ADDR_NO_RANDOMIZE)
		return;
	if (personality(pers | ADDR_NO_RANDOMIZE) == -1) {
		perror("mprotect_bench: personality(ADDR_NO_RANDOMIZE)");
		return;
	}
	execv("/proc/self/exe", argv);
	perror("mprotect_bench: execv(/proc/self/exe)");
	if (personality(pers) == -1)
		perror("mprotect_bench: personality restore");
}

static const struct bcase *find_case(const char *name, size_t len)
{
	size_t i;

	for (i = 0; i < NR_CASES; i++)
		if (strlen(cases[i].name) == len &&
		    !strncmp(cases[i].name, name, len))
			return &cases[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const char *sel = "all";
	unsigned int iters = 0;
	int selected[NR_CASES] = { 0 };
	struct tally tally[NR_CASES] = { 0 };
	unsigned int round;
	size_t size = 0, i;
	int failed = 0;
	long ps;
	int a;

	for (a = 1; a < argc; a++) {
		const char *opt = argv[a];
		const char *val = a + 1 < argc ? argv[a + 1] : NULL;

		if (!strcmp(opt, "--list")) {
			for (i = 0; i < NR_CASES; i++)
				printf("%-20s %s\n", cases[i].name,
				       cases[i].desc);
			return 0;
		}
		if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
			usage(stdout);
			return 0;
		}
		if (!val || (strcmp(opt, "--case") && strcmp(opt, "--size") &&
			     strcmp(opt, "--iters") && strcmp(opt, "--scale") &&
			     strcmp(opt, "--rounds"))) {
			fprintf(stderr, "mprotect_bench: bad option '%s'\n",
				opt);
			usage(stderr);
			return 2;
		}
		a++;
		if (!strcmp(opt, "--case")) {
			sel = val;
		} else if (!strcmp(opt, "--size")) {
			if (parse_size(val, &size)) {
				fprintf(stderr,
					"mprotect_bench: bad size '%s'\n", val);
				return 2;
			}
		} else {
			unsigned long v;
			char *end;

			errno = 0;
			v = strtoul(val, &end, 10);
			if (errno || *end || end == val || !v ||
			    v > (strcmp(opt, "--iters") ? 1000 : 100000000) ||
			    *val == '-') {
				fprintf(stderr, "mprotect_bench: bad %s '%s'\n",
					opt + 2, val);
				return 2;
			}
			if (!strcmp(opt, "--scale"))
				iter_scale = v;
			else if (!strcmp(opt, "--rounds"))
				nr_rounds = v;
			else
				iters = v;
		}
	}

	if (!strcmp(sel, "all")) {
		for (i = 0; i < NR_CASES; i++)
			selected[i] = 1;
	} else {
		const char *s = sel;

		while (*s) {
			size_t len = strcspn(s, ",");
			const struct bcase *c = find_case(s, len);

			if (!c) {
				fprintf(stderr,
					"mprotect_bench: unknown case '%.*s' (see --list)\n",
					(int)len, s);
				return 2;
			}
			selected[c - cases] = 1;
			s += len;
			if (*s == ',')
				s++;
		}
	}

	/* A block's cost is scaled by its case's cycles in 64 bits. */
	for (i = 0; i < NR_CASES; i++)
		if (selected[i] &&
		    (uint64_t)(iters ? iters : cases[i].iters) * iter_scale >
		    100000000) {
			fprintf(stderr,
				"mprotect_bench: case %s: over 100000000 cycles (--iters times --scale)\n",
				cases[i].name);
			return 2;
		}

	ps = sysconf(_SC_PAGESIZE);
	if (ps <= 0)
		die("sysconf(_SC_PAGESIZE)");
	page_size = ps;
	pmd_kb = 2048;
	{
		long long v = read_counter(THP_DIR "/hpage_pmd_size");

		if (v > 0)
			pmd_kb = v / 1024;
	}

	for (i = 0; i < NR_CASES; i++) {
		const struct bcase *c = &cases[i];
		size_t unit = folio_size(c);

		if (!selected[i] || c->fixed_size || !size)
			continue;
		/* run_case() maps one PMD-sized folio at least. */
		if (c->shape != SHAPE_PTE && size < KiB(pmd_kb))
			continue;
		if (c->shape != SHAPE_PTE || c->kind == K_SHMEM)
			unit = pmd_kb * 1024 > unit ? pmd_kb * 1024 : unit;
		if (KiB(c->stride_kb) > unit)
			unit = KiB(c->stride_kb);
		if (c->off_kb && !c->len_kb && size <= 2 * KiB(c->off_kb)) {
			fprintf(stderr,
				"mprotect_bench: --size %zu leaves case %s no range\n",
				size, c->name);
			return 2;
		}
		if (unit < page_size)
			unit = page_size;
		if (size % unit) {
			fprintf(stderr,
				"mprotect_bench: --size %zu is not a multiple of %zu (case %s)\n",
				size, unit, c->name);
			return 2;
		}
	}

	no_aslr(argv);
	save_knobs();
	if (atexit(restore_knobs))
		die("atexit");
	for (i = 0; i < NR_CASES; i++) {
		tally[i].cost = calloc((size_t)nr_rounds * BLOCKS,
				       sizeof(*tally[i].cost));
		if (!tally[i].cost)
			die("calloc");
	}
	for (round = 0; round < nr_rounds; round++)
		for (i = 0; i < NR_CASES; i++)
			if (selected[i] &&
			    run_case(&cases[i], size, iters, round, &tally[i]))
				failed++;
	if (failed)
		fprintf(stderr, "mprotect_bench: %d case(s) failed or skipped\n",
			failed);
	return failed ? 1 : 0;
}
