/*
 * cachesim.c: QEMU TCG plugin that runs every guest data access (load or
 * store) through a model of two cache levels, an L1 data cache and a last
 * level cache (LLC), and reports the accesses and misses of each timed
 * loop of mprotect_bench, for scripts/cachesim.sh.
 *
 *	qemu-system-... -plugin libcachesim.so,out=PATH[,ARG=VALUE...]
 *
 * Arguments (defaults: one Arm Neoverse N1 core, its L1D and its private
 * L2, the last level a core has to itself):
 *
 *	line=64		line size in bytes, both levels
 *	l1d_size=64K	L1D capacity (K and M suffixes: KiB, MiB)
 *	l1d_ways=4	L1D associativity
 *	llc_size=1M	LLC capacity
 *	llc_ways=8	LLC associativity
 *
 * The model: both levels set associative with exact LRU replacement,
 * write-allocate (a store that misses fills the line like a load),
 * indexed and tagged by guest physical address. Each access is looked up
 * in the L1D; an L1D miss is looked up in the LLC, which fills on a miss.
 * An access that spans several lines looks up each and counts as one
 * access; its misses are counted per line. Nothing else is modelled: no dirty
 * lines or write-backs, no back-invalidation of the L1D when the LLC
 * evicts, no prefetchers, no instruction fetches, no coherence traffic, no
 * TLBs and no page-table walks (QEMU's soft MMU walks the guest's page
 * tables without guest loads the plugin could see), and no access QEMU
 * makes without calling the plugin (arm64 DC ZVA is one). Accesses to I/O
 * memory bypass the caches and are counted apart.
 *
 * The caches see every data access of the boot and start empty at boot; a
 * boot under -icount is a pure function of its inputs, so the same boot
 * gives the same counts.
 *
 * Windows: the guest marks the start and the end of each timed loop with
 * the instructions of bench/marker.h. A window is what happened between a
 * MARK_BEGIN and the next MARK_END, the caches as warm as the loop keeps
 * them. An access is the kernel's if the instruction making it lies in the
 * upper half of the address space, where x86_64 and arm64 keep kernel
 * text; the rest is the user's.
 *
 * At exit PATH gets:
 *
 *	config line=64 l1d_size=65536 l1d_ways=4 llc_size=1048576 llc_ways=8
 *	window N kernel ACCESSES STORES L1D_MISSES LLC_MISSES IO user ACCESSES STORES L1D_MISSES LLC_MISSES IO
 *	...
 *	windows N unmatched M
 *
 * one window line per MARK_END in order, numbered from 0; "unmatched"
 * counts markers out of order (an END with no BEGIN, a BEGIN in a window),
 * which make the windows untrustworthy.
 *
 * "Physical" is what QEMU 7.2's qemu_plugin_hwaddr_phys_addr() gives: the
 * offset in the RAM block plus the block's guest base, the guest physical
 * address for the RAM of the machines we boot (and elsewhere a uniform
 * shift, which keeps which lines share a set).
 *
 * Built for the plugin API of QEMU 7.2 (Debian 12) by scripts/tcg-plugin.sh,
 * against qemu-plugin.h from Debian's qemu source package.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qemu-plugin.h>

#define MARK_HOST_ONLY
#include "../marker.h"

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/*
 * A cache: sets * ways line numbers (address >> line_shift). Each set is
 * kept in LRU order, most recently used first, so that a lookup is one
 * scan and one memmove of at most ways - 1 entries, and the victim is
 * always the last entry. NO_LINE marks an empty way: no address shifted
 * right by the line size reaches it.
 */
#define NO_LINE UINT64_MAX

struct cache {
	uint64_t *lines;
	uint64_t nr_sets;	/* a power of two: the set is the low bits */
	unsigned int ways;
};

/* What a window reports, per mode. */
struct counts {
	uint64_t accesses;
	uint64_t stores;
	uint64_t l1d_misses;
	uint64_t llc_misses;
	uint64_t io;		/* accesses to I/O memory: not cached */
};

enum { MODE_KERNEL, MODE_USER, NR_MODES };

/* Since boot, and at the window's MARK_BEGIN. */
static struct counts counts[NR_MODES], at_begin[NR_MODES];
static bool in_window;

/* The windows that ended, in order: kernel and user counts each. */
static struct counts (*windows)[NR_MODES];
static size_t nr_windows, windows_cap;
static uint64_t unmatched;
static bool out_of_memory;

static struct cache l1d, llc;
static unsigned int line_shift;
static const char *out_path;
static bool x86;		/* else arm64: which marker encoding */

/* Settings as given, kept for the config line of the output. */
static uint64_t line_size = 64;
static uint64_t l1d_size = 64 << 10, l1d_ways = 4;
static uint64_t llc_size = 1 << 20, llc_ways = 8;

/* Look up one line; on a miss, fill it in the LRU way. True on a hit. */
static bool cache_access(struct cache *c, uint64_t line)
{
	uint64_t *set = &c->lines[(line & (c->nr_sets - 1)) * c->ways];
	unsigned int i;
	bool hit;

	for (i = 0; i < c->ways; i++)
		if (set[i] == line)
			break;
	hit = i < c->ways;
	if (!hit)
		i = c->ways - 1;	/* evict the least recently used */
	memmove(set + 1, set, i * sizeof(*set));
	set[0] = line;
	return hit;
}

static void access_line(struct counts *n, uint64_t line)
{
	if (cache_access(&l1d, line))
		return;
	n->l1d_misses++;
	if (!cache_access(&llc, line))
		n->llc_misses++;
}

/*
 * The guest physical address of vaddr, from the soft TLB entry QEMU used
 * for the access just made; false for I/O memory (or if QEMU has no entry,
 * which it then reports as I/O too).
 */
static bool phys_of(qemu_plugin_meminfo_t info, uint64_t vaddr, uint64_t *pa)
{
	struct qemu_plugin_hwaddr *hw = qemu_plugin_get_hwaddr(info, vaddr);

	if (!hw || qemu_plugin_hwaddr_is_io(hw))
		return false;
	*pa = qemu_plugin_hwaddr_phys_addr(hw);
	return true;
}

/* Look up the lines of physical bytes first..last, one page at most. */
static void access_lines(struct counts *n, uint64_t first, uint64_t last)
{
	uint64_t line;

	for (line = first >> line_shift; line <= last >> line_shift; line++)
		access_line(n, line);
}

/*
 * Called after each data access of an instruction; udata is the counts of
 * the instruction's mode.
 */
static void mem_access(unsigned int vcpu, qemu_plugin_meminfo_t info,
		       uint64_t vaddr, void *udata)
{
	struct counts *n = udata;
	uint64_t size = 1ull << qemu_plugin_mem_size_shift(info);
	uint64_t end = vaddr + size - 1, first, last;
	/*
	 * An access that crosses into another 4K page is looked up in each:
	 * guest pages are at least 4K on both arches, so within one the
	 * physical address is the virtual one plus an offset.
	 */
	bool other_page = (vaddr ^ end) >> 12;

	if (!phys_of(info, vaddr, &first) ||
	    (other_page && !phys_of(info, end, &last))) {
		n->io++;
		return;
	}
	n->accesses++;
	if (qemu_plugin_mem_is_store(info))
		n->stores++;
	if (!other_page) {
		access_lines(n, first, first + size - 1);
		return;
	}
	access_lines(n, first, first | 0xfff);
	access_lines(n, last & ~0xfffull, last);
}

static void end_window(void)
{
	int m;

	if (nr_windows == windows_cap) {
		size_t cap = windows_cap ? 2 * windows_cap : 256;
		void *p = realloc(windows, cap * sizeof(*windows));

		if (!p) {
			out_of_memory = true;
			return;
		}
		windows = p;
		windows_cap = cap;
	}
	for (m = 0; m < NR_MODES; m++) {
		struct counts *w = &windows[nr_windows][m];
		const struct counts *now = &counts[m], *then = &at_begin[m];

		w->accesses = now->accesses - then->accesses;
		w->stores = now->stores - then->stores;
		w->l1d_misses = now->l1d_misses - then->l1d_misses;
		w->llc_misses = now->llc_misses - then->llc_misses;
		w->io = now->io - then->io;
	}
	nr_windows++;
}

/* Called before a marker instruction runs; udata is its value. */
static void mark(unsigned int vcpu, void *udata)
{
	bool begin = (uintptr_t)udata == MARK_BEGIN;

	if (begin == in_window) {
		unmatched++;
		return;
	}
	if (begin)
		memcpy(at_begin, counts, sizeof(counts));
	else
		end_window();
	in_window = begin;
}

/* The marker value of a user instruction, or 0 if it is none. */
static unsigned int marker_of(struct qemu_plugin_insn *insn)
{
	const uint8_t *b = qemu_plugin_insn_data(insn);
	size_t size = qemu_plugin_insn_size(insn);
	uint32_t v;

	if (x86) {
		if (size != 7 || b[0] != 0x0f || b[1] != 0x1f || b[2] != 0x80)
			return 0;
		v = b[3] | b[4] << 8 | (uint32_t)b[5] << 16 | (uint32_t)b[6] << 24;
	} else {
		if (size != 4)
			return 0;
		v = b[0] | b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
		if (v == MARK_ARM64_INSN(MARK_BEGIN))
			return MARK_BEGIN;
		if (v == MARK_ARM64_INSN(MARK_END))
			return MARK_END;
		return 0;
	}
	return v == MARK_BEGIN || v == MARK_END ? v : 0;
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	size_t i, n = qemu_plugin_tb_n_insns(tb);

	for (i = 0; i < n; i++) {
		struct qemu_plugin_insn *insn = qemu_plugin_tb_get_insn(tb, i);
		bool kernel = qemu_plugin_insn_vaddr(insn) >> 63;
		unsigned int v = kernel ? 0 : marker_of(insn);

		if (v)
			qemu_plugin_register_vcpu_insn_exec_cb(insn, mark,
							       QEMU_PLUGIN_CB_NO_REGS,
							       (void *)(uintptr_t)v);
		qemu_plugin_register_vcpu_mem_cb(insn, mem_access,
						 QEMU_PLUGIN_CB_NO_REGS,
						 QEMU_PLUGIN_MEM_RW,
						 &counts[kernel ? MODE_KERNEL : MODE_USER]);
	}
}

static void write_counts(FILE *f, const struct counts *c)
{
	fprintf(f, " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64 " %" PRIu64,
		c->accesses, c->stores, c->l1d_misses, c->llc_misses, c->io);
}

static void plugin_exit(qemu_plugin_id_t id, void *userdata)
{
	FILE *f;
	size_t i;
	int err;

	if (out_of_memory) {
		/* No file: a window missing would shift every later one. */
		fprintf(stderr, "cachesim: out of memory, no counts written\n");
		return;
	}
	f = fopen(out_path, "w");
	if (!f) {
		perror(out_path);
		return;
	}
	fprintf(f, "config line=%" PRIu64 " l1d_size=%" PRIu64 " l1d_ways=%" PRIu64
		" llc_size=%" PRIu64 " llc_ways=%" PRIu64 "\n",
		line_size, l1d_size, l1d_ways, llc_size, llc_ways);
	for (i = 0; i < nr_windows; i++) {
		fprintf(f, "window %zu kernel", i);
		write_counts(f, &windows[i][MODE_KERNEL]);
		fprintf(f, " user");
		write_counts(f, &windows[i][MODE_USER]);
		fprintf(f, "\n");
	}
	fprintf(f, "windows %zu unmatched %" PRIu64 "\n", nr_windows, unmatched);
	err = ferror(f);
	if (fclose(f) || err) {
		/* No half-written counts for the script to trust. */
		fprintf(stderr, "cachesim: cannot write %s\n", out_path);
		unlink(out_path);
	}
}

/* "64", "64K", "1M": bytes; 0 if not a positive number of that form. */
static uint64_t parse_size(const char *s)
{
	char *end;
	uint64_t v;

	if (*s < '0' || *s > '9')
		return 0;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || v == 0)
		return 0;
	if (*end == 'K' || *end == 'k')
		v <<= 10, end++;
	else if (*end == 'M' || *end == 'm')
		v <<= 20, end++;
	return *end ? 0 : v;
}

static bool is_pow2(uint64_t v)
{
	return v && !(v & (v - 1));
}

/*
 * Set up one cache; false (with a message) if the geometry is not one the
 * model indexes: a whole power-of-two number of sets, 1..64 ways.
 */
static bool cache_init(struct cache *c, const char *name, uint64_t size,
		       uint64_t ways)
{
	uint64_t i, n;

	if (!ways || ways > 64 || size % (line_size * ways) ||
	    !is_pow2(size / (line_size * ways))) {
		fprintf(stderr, "cachesim: %s: %" PRIu64 " bytes, %" PRIu64
			" ways, %" PRIu64 "-byte lines is not a power-of-two number of sets (1 to 64 ways)\n",
			name, size, ways, line_size);
		return false;
	}
	c->ways = ways;
	c->nr_sets = size / (line_size * ways);
	n = c->nr_sets * ways;
	c->lines = malloc(n * sizeof(*c->lines));
	if (!c->lines) {
		fprintf(stderr, "cachesim: %s: out of memory\n", name);
		return false;
	}
	for (i = 0; i < n; i++)
		c->lines[i] = NO_LINE;
	return true;
}

/* One KEY=VALUE argument; false if unknown or malformed. */
static bool parse_arg(const char *arg)
{
	const char *v = strchr(arg, '=');
	size_t k = v ? (size_t)(v - arg) : 0;
	uint64_t *num = NULL;

	if (!v || !v[1])
		return false;
	v++;
	if (k == 3 && !strncmp(arg, "out", k)) {
		out_path = v;	/* argv outlives the plugin: no copy */
		return true;
	}
	if (k == 4 && !strncmp(arg, "line", k))
		num = &line_size;
	else if (k == 8 && !strncmp(arg, "l1d_size", k))
		num = &l1d_size;
	else if (k == 8 && !strncmp(arg, "l1d_ways", k))
		num = &l1d_ways;
	else if (k == 8 && !strncmp(arg, "llc_size", k))
		num = &llc_size;
	else if (k == 8 && !strncmp(arg, "llc_ways", k))
		num = &llc_ways;
	if (!num)
		return false;
	*num = parse_size(v);
	return *num != 0;
}

#define USAGE "usage: -plugin libcachesim.so,out=PATH[,line=64][,l1d_size=64K][,l1d_ways=4][,llc_size=1M][,llc_ways=8]"

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		if (!parse_arg(argv[i])) {
			fprintf(stderr, "cachesim: bad argument '%s' (%s)\n", argv[i], USAGE);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "cachesim: no output file (%s)\n", USAGE);
		return -1;
	}
	if (!is_pow2(line_size) || line_size < 8 || line_size > 4096) {
		fprintf(stderr, "cachesim: line=%" PRIu64 ": a power of two from 8 to 4096\n",
			line_size);
		return -1;
	}
	line_shift = __builtin_ctzll(line_size);
	if (!cache_init(&l1d, "l1d", l1d_size, l1d_ways) ||
	    !cache_init(&llc, "llc", llc_size, llc_ways))
		return -1;
	if (!info->system_emulation) {
		fprintf(stderr, "cachesim: needs system emulation (physical addresses, kernel mode)\n");
		return -1;
	}
	if (!strcmp(info->target_name, "x86_64")) {
		x86 = true;
	} else if (strcmp(info->target_name, "aarch64")) {
		fprintf(stderr, "cachesim: no markers for %s (x86_64, aarch64)\n",
			info->target_name);
		return -1;
	}
	/*
	 * Nothing here is locked: under -icount QEMU runs all vCPUs in one
	 * thread, so callbacks never run concurrently. One model for several
	 * vCPUs would be neither private caches nor exact.
	 */
	if (info->system.smp_vcpus > 1) {
		fprintf(stderr, "cachesim: %d vCPUs: the model is of one core\n",
			info->system.smp_vcpus);
		return -1;
	}

	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
