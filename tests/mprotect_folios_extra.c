// SPDX-License-Identifier: GPL-2.0-only
/*
 * Checks on mprotect_folios' memory shapes that do not test mprotect()
 * itself, so its selftests/mm patch leaves them out:
 * - fork() of lazyfree folios that the CPU dirtied: fork() must copy the
 *   dirty bit of each PTE, read through arm64's contpte_ptep_get();
 * - writes to clean writable PTEs, which that test needs;
 * - NUMA hinting of remote folios: change_prot_numa(), the other caller of
 *   change_protection().
 * The program is mprotect_folios.c with its own table of cases.
 */
#define main mprotect_folios_main
#include "selftest-mm/mprotect_folios.c"
#undef main

/* The NUMA scanner's knobs, for the NUMA hinting test */
enum { SCAN_DELAY, SCAN_MIN, SCAN_MAX, SCAN_SIZE, NR_SCAN };

static struct knob scan_knobs[NR_SCAN] = {
	[SCAN_DELAY] = { "/sys/kernel/debug/sched/numa_balancing/scan_delay_ms" },
	[SCAN_MIN] = { "/sys/kernel/debug/sched/numa_balancing/scan_period_min_ms" },
	[SCAN_MAX] = { "/sys/kernel/debug/sched/numa_balancing/scan_period_max_ms" },
	[SCAN_SIZE] = { "/sys/kernel/debug/sched/numa_balancing/scan_size_mb" },
};

static void restore_scan(void)
{
	if (getpid() == main_pid)
		restore_knobs(scan_knobs, NR_SCAN);
}

/* ------------------------------------------------------------------ */
/* Dirty bits the CPU sets */

/* x86 CPUs set the dirty bit of a writable PTE; elsewhere they may. */
#ifdef __x86_64__
#define CPU_SETS_DIRTY	true
#else
#define CPU_SETS_DIRTY	false
#endif

/* Write to every other page of lazyfree (clean, writable) PTEs. */
static int write_clean_ptes(struct region *r)
{
	int attempt, faulted = 0;
	size_t i;

	/* A write may fault on a page migrated meanwhile: retry twice. */
	for (attempt = 0; attempt < 3; attempt++) {
		populate(r, true);
		if (madvise(r->mem, r->size, MADV_FREE))
			return -1;
		for (i = 0, faulted = 0; i < r->npages; i += 2)
			faulted += write_page(r, i, 2) + (r->faults[i] > 0);
		if (!faulted)
			break;
	}
	return faulted;
}

/*
 * Writes to clean writable PTEs take no fault where the CPU sets dirty
 * bits; reclaim keeps those pages and discards the untouched ones. The
 * test below needs this.
 */
static int test_clean_writable_ptes(struct region *r)
{
	int faulted = write_clean_ptes(r), errs = 0;
	size_t i;

	if (faulted < 0)
		return skip("MADV_FREE failed");
	if (faulted && !CPU_SETS_DIRTY)
		return skip("the CPU does not set dirty bits");
	if (faulted)
		return fail_msg("%d writes to clean PTEs faulted\n", faulted);
	if (madvise(r->mem, r->size, MADV_PAGEOUT))
		return skip("MADV_PAGEOUT failed");
	for (i = 0; i < r->npages; i++)
		if (i % 2 ? !page_is_zero(page_addr(r, i)) :
		    !page_has(page_addr(r, i), 2, i))
			errs += fail_msg("page %zu: %s\n", i, i % 2 ?
					 "not discarded" : "data lost");
	return errs;
}

/* In the child: page out what it alone maps, check what survives. */
static int pageout_child(struct region *r, const unsigned char *wrote,
			 int rd)
{
	size_t f = r->fpages, i;
	int ret = 0;
	char c;

	if (read(rd, &c, 1) != 1 || madvise(r->mem, r->size, MADV_PAGEOUT))
		return 4;
	for (i = 0; i < r->npages; i++) {
		if (wrote[i] && !page_has(page_addr(r, i), 9, i))
			ret |= 1;
		if ((i / f) % 2 && !page_is_zero(page_addr(r, i)))
			ret |= 2;
	}
	return ret;
}

/*
 * Lazyfree folios, a write (dirtied by the CPU, no fault) to one page in
 * the second half of even folios, after a read of its block's first page,
 * then fork(). The parent unmaps, the child pages out: fork() must have
 * copied the dirty bit of that PTE, or reclaim discards the folio; the odd
 * folios must be discarded.
 */
static int test_fork_hw_dirty_lazyfree_folios(struct region *r)
{
	size_t f = r->fpages, i, page;
	unsigned char *wrote = r->mark[0];
	int sync[2], status = 0, clean = 0;
	pid_t pid;

	if (f < 4 || madvise(r->mem, r->size, MADV_FREE))
		return skip("MADV_FREE failed, or folios below 4 pages");
	for (i = 0; i < r->npages; i += 2 * f) {
		page = i + f / 2 + 1 + (i / f / 2) % (f / 2 - 1);
		/*
		 * First a read of the first page of the written page's
		 * contpte block (arm64): that entry is young but clean, and
		 * gathering the block's bits must read on to the dirty one.
		 */
		try_read(page_addr(r, page - page % cont_pages()));
		wrote[page] = 1;
		clean += !write_page(r, page, 9) && !r->faults[page];
	}
	if (!clean)
		return skip("the CPU does not set dirty bits");
	if (pipe(sync))
		return fail_msg("pipe() failed\n");
	fflush(stdout);
	pid = fork();
	if (!pid) {
		close(sync[1]);
		_exit(pageout_child(r, wrote, sync[0]));
	}
	/* Now only the child maps the folios: reclaim may take them. */
	munmap(r->mem, r->size);
	if (pid < 0 || write(sync[1], "", 1) != 1 ||
	    waitpid(pid, &status, 0) != pid)
		status = -1;
	close(sync[0]);
	close(sync[1]);
	if (!WIFEXITED(status) || WEXITSTATUS(status))
		return fail_msg("child: status %#x (1: a write lost, 2: a clean folio kept)\n",
				WIFEXITED(status) ? WEXITSTATUS(status) : status);
	return 0;
}

/* ------------------------------------------------------------------ */
/* NUMA hinting: change_prot_numa() */

/*
 * The number after @name, blanks and a colon on @name's line of @path
 * (/proc/vmstat's "name value", /proc/PID/sched's "name : value"); -1 if
 * there is none.
 */
static long long file_value(const char *path, const char *name)
{
	size_t len = strlen(name);
	long long val = -1;
	char line[128];
	FILE *f = fopen(path, "r");

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, name, len) && line[len] &&
		    strchr(" :", line[len]))
			val = atoll(line + len + strspn(line + len, " :"));
	if (f)
		fclose(f);
	return val;
}

static long long vmstat_get(const char *name)
{
	return file_value("/proc/vmstat", name);
}

/* The scanner's passes over this mm; -1 if the kernel does not say. */
static long long numa_scan_seq(void)
{
	return file_value("/proc/self/sched", "mm->numa_scan_seq");
}

/* Parse a sysfs list ("0-3,8") into @set; returns how many are set. */
static int read_list(const char *path, cpu_set_t *set)
{
	char buf[256] = "", *p = buf;
	long a, b;

	CPU_ZERO(set);
	if (read_file(path, buf, sizeof(buf)) <= 0)
		return 0;
	while (*p >= '0' && *p <= '9') {
		a = strtol(p, &p, 10);
		b = *p == '-' ? strtol(p + 1, &p, 10) : a;
		while (a <= b && a < CPU_SETSIZE)
			CPU_SET(a++, set);
		if (*p++ != ',')
			break;
	}
	return CPU_COUNT(set);
}

/* Bind the region to node 1 (MPOL_F_NUMA_BALANCING), moving it there. */
static const char *move_to_node1(struct region *r)
{
	unsigned long node1 = 2;
	size_t i;
	int node;

	if (syscall(__NR_mbind, r->mem, r->size, MPOL_BIND | MPOL_F_NUMA_BALANCING,
		    &node1, sizeof(node1) * 8, MPOL_MF_MOVE))
		return "mbind(MPOL_F_NUMA_BALANCING) failed";
	if (check_folios(r))
		return "migration to node 1 split the folios";
	for (i = 0; i < r->npages; i += r->fpages)
		if (syscall(__NR_get_mempolicy, &node, NULL, 0, page_addr(r, i),
			    MPOL_F_NODE | MPOL_F_ADDR) || node != 1)
			return "the folios did not move to node 1";
	return NULL;
}

/*
 * Touch every page, and on @cycle change part of the region R and back to
 * RW from mid-folio, checking it. Returns the faults taken.
 */
static long numa_round(struct region *r, bool cycle, int *errs)
{
	size_t n = r->npages, lo = r->fpages / 4, hi = n - lo, i;
	long f = minflt(), probes;

	for (i = 0; i < n; i++)
		*(uint64_t *)page_addr(r, i) = pattern(r->tag[i], i, 0);
	if (cycle) {
		*errs += set_prot(r, lo + 1, hi - 1, PROT_READ);
		probes = minflt();
		*errs += check_pages(r, 0, n, CHK_PROT | CHK_DATA);
		f += minflt() - probes;
		*errs += set_prot(r, lo, hi, PROT_READ | PROT_WRITE);
	}
	for (i = 0; i < n; i++)
		*(uint64_t *)page_addr(r, i) = pattern(r->tag[i], i, 0);
	return minflt() - f;
}

/*
 * Let the NUMA scanner change the protection of remote folios while the
 * region also goes through mprotect() from mid-folio: the hinting must be
 * seen (PTE updates, or hinting faults), the data and PFNs stay.
 */
static int numa_hinting(struct region *r)
{
	long long upd = vmstat_get("numa_pte_updates") +
			vmstat_get("numa_huge_pte_updates");
	long hinted = 0, iter, after = 0, baseline = 0, f;
	long long seq;
	time_t end = time(NULL) + 30;
	int errs = check_pages(r, 0, r->npages, CHK_ALL);

	/* Warm up; then, with NUMA balancing off, nothing may fault. */
	for (iter = 0; iter < 6; iter++) {
		f = numa_round(r, iter % 2 == 0, &errs);
		baseline += iter >= 2 ? f : 0;
	}
	if (baseline)
		return skip("faults on mapped, writable pages without NUMA balancing");
	set_knob(&knobs[KNOB_NUMA], 1);
	set_knob(&scan_knobs[SCAN_DELAY], 0);
	set_knob(&scan_knobs[SCAN_MIN], 10);
	set_knob(&scan_knobs[SCAN_MAX], 100);
	set_knob(&scan_knobs[SCAN_SIZE], 256);
	seq = numa_scan_seq();
	for (iter = 0; time(NULL) < end && after <= 4; iter++) {
		hinted += numa_round(r, iter % 2 == 0, &errs);
		if (iter >= 4 && (hinted || vmstat_get("numa_pte_updates") +
				  vmstat_get("numa_huge_pte_updates") > upd))
			after++;
	}
	set_knob(&knobs[KNOB_NUMA], 0);
	/* The scan sequence says whether the scanner ran at all. */
	ksft_print_msg("%ld rounds, %ld hinting faults, scan sequence %lld -> %lld\n",
		       iter, hinted, seq, numa_scan_seq());
	if (!after)
		errs += fail_msg("the NUMA scanner changed no PTE\n");
	errs += write_pages(r, 0, r->npages, 14);
	return errs + check_pages(r, 0, r->npages, CHK_ALL);
}

static int test_numa_remote_folios(struct region *r)
{
	cpu_set_t old, set;
	const char *why;
	int ret;

	if (read_list("/sys/devices/system/node/has_memory", &set) < 2)
		return skip("needs two NUMA nodes with memory");
	if (!knobs[KNOB_NUMA].present)
		return skip("no NUMA balancing");
	if (!read_list("/sys/devices/system/node/node0/cpulist", &set))
		return skip("node 0 has no CPUs");
	sched_getaffinity(0, sizeof(old), &old);
	sched_setaffinity(0, sizeof(set), &set);
	why = move_to_node1(r);
	ret = why ? skip(why) : numa_hinting(r);
	sched_setaffinity(0, sizeof(old), &old);
	return ret;
}

static const struct test_case extra_cases[] = {
	{ "NUMA hinting on remote folios", test_numa_remote_folios,
	  ON_MEMORY, FOLIO_ANY },
	{ "writes to clean writable PTEs", test_clean_writable_ptes,
	  ON(ANON), FOLIO_BASE },
	{ "fork() of lazyfree folios dirtied by the CPU",
	  test_fork_hw_dirty_lazyfree_folios, ON(ANON), FOLIO_PTE },
};

int main(int argc, char **argv)
{
	/* Saved before setup() forks: the parent's exit() restores them. */
	save_knobs(scan_knobs, NR_SCAN);
	atexit(restore_scan);
	setup(argc, argv);
	run_test_cases(extra_cases, ARRAY_SIZE(extra_cases));
	ksft_finished();
}
