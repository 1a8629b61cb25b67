// SPDX-License-Identifier: GPL-2.0
/*
 * insnprof.c: QEMU TCG plugin that counts how often each translation block
 * (TB) of guest kernel code runs, for scripts/insnprof.sh, which turns the
 * counts into guest instructions per kernel function.
 *
 *	qemu-system-... -plugin libinsnprof.so,out=PATH ...
 *
 * At exit PATH gets one line per (TB start address, TB length) pair:
 *
 *	vaddr_hex n_insns exec_count mem_accesses
 *
 * mem_accesses: the loads and stores its instructions made, all executions
 * together (an emulator spends much of its time on each guest memory
 * access, so they weigh in emulated wall time beyond their share of the
 * instructions).
 *
 * vaddr_hex is 16 lowercase hex digits, so that the script can sort it
 * together with `nm -n` output as plain strings (awk cannot hold 64-bit
 * addresses exactly).
 *
 * Why a TB counter and not a per-instruction one: one inline add per TB
 * costs little emulation time, and n_insns * exec_count is exact for every
 * TB that runs to its end. A TB left early (an exception in the middle of
 * it, or an I/O access under icount, which QEMU re-executes as a shorter TB)
 * is counted as if it had run whole; the timed loop of mprotect_bench takes
 * no faults, so that is rare there.
 *
 * Built for the plugin API of QEMU 7.2 (Debian 12); the script fetches
 * qemu-plugin.h from Debian's qemu source package, as it is not installed.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <qemu-plugin.h>

QEMU_PLUGIN_EXPORT int qemu_plugin_version = QEMU_PLUGIN_VERSION;

/*
 * One record per translation. The same code may be translated more than
 * once (a TB cache flush, or a TB cut short by icount's instruction budget,
 * which gets its own shorter translation); the exit handler merges records
 * with the same start and length.
 */
struct tb_rec {
	uint64_t vaddr;
	uint64_t count;		/* executions: target of the inline add */
	uint64_t n_insns;
	uint64_t mem;		/* memory accesses: another inline add */
};

/*
 * Records live in fixed-size chunks that never move: QEMU keeps the
 * address of each record's counter in the generated code, so the storage
 * cannot be a realloc()ed array. Only the array of chunk pointers grows.
 *
 * Nothing here is locked: under -icount QEMU runs all vCPUs in one thread
 * (round-robin TCG, no MTTCG), which also does every translation, so the
 * translation callback and the inline adds never run concurrently. Without
 * icount and with several vCPUs (MTTCG) the records would race; the
 * install function warns then.
 */
#define CHUNK_RECS 4096

static struct tb_rec **chunks;
static size_t nr_chunks, chunks_cap;
static size_t nr_recs;
static size_t nr_dropped;	/* translations not recorded (out of memory) */
static const char *out_path;

static struct tb_rec *new_rec(void)
{
	size_t c = nr_recs / CHUNK_RECS, i = nr_recs % CHUNK_RECS;

	if (c == nr_chunks) {
		struct tb_rec *chunk;

		if (nr_chunks == chunks_cap) {
			size_t cap = chunks_cap ? 2 * chunks_cap : 64;
			struct tb_rec **p = realloc(chunks, cap * sizeof(*p));

			if (!p)
				return NULL;
			chunks = p;
			chunks_cap = cap;
		}
		chunk = calloc(CHUNK_RECS, sizeof(*chunk));
		if (!chunk)
			return NULL;
		chunks[nr_chunks++] = chunk;
	}
	nr_recs++;
	return &chunks[c][i];
}

static void tb_trans(qemu_plugin_id_t id, struct qemu_plugin_tb *tb)
{
	uint64_t vaddr = qemu_plugin_tb_vaddr(tb);
	struct tb_rec *r;
	size_t i;

	/*
	 * Kernel code only: on x86_64 and arm64 (and the other 64-bit
	 * arches the harness boots) the kernel lives in the upper half of the
	 * address space, user space in the lower.
	 */
	if (!(vaddr >> 63))
		return;
	r = new_rec();
	if (!r) {
		/* Reported at exit: a profile with holes must not pass. */
		nr_dropped++;
		return;
	}
	r->vaddr = vaddr;
	r->n_insns = qemu_plugin_tb_n_insns(tb);
	qemu_plugin_register_vcpu_tb_exec_inline(tb, QEMU_PLUGIN_INLINE_ADD_U64,
						 &r->count, 1);
	for (i = 0; i < r->n_insns; i++)
		qemu_plugin_register_vcpu_mem_inline(qemu_plugin_tb_get_insn(tb, i),
						     QEMU_PLUGIN_MEM_RW,
						     QEMU_PLUGIN_INLINE_ADD_U64,
						     &r->mem, 1);
}

static int cmp_rec(const void *a, const void *b)
{
	const struct tb_rec *x = a, *y = b;

	if (x->vaddr != y->vaddr)
		return x->vaddr < y->vaddr ? -1 : 1;
	if (x->n_insns != y->n_insns)
		return x->n_insns < y->n_insns ? -1 : 1;
	return 0;
}

/* Sort a flat copy of the records and write one line per (vaddr, n_insns). */
static int write_profile(FILE *f)
{
	struct tb_rec *all;
	size_t i, j, n = 0;

	all = malloc((nr_recs ? nr_recs : 1) * sizeof(*all));
	if (!all)
		return -1;
	for (i = 0; i < nr_recs; i++) {
		struct tb_rec *r = &chunks[i / CHUNK_RECS][i % CHUNK_RECS];

		/* Translated but never run (or not in the window): no line. */
		if (r->count)
			all[n++] = *r;
	}
	qsort(all, n, sizeof(*all), cmp_rec);
	for (i = 0; i < n; i = j) {
		uint64_t count = 0, mem = 0;

		for (j = i; j < n && !cmp_rec(&all[i], &all[j]); j++) {
			count += all[j].count;
			mem += all[j].mem;
		}
		if (fprintf(f, "%016" PRIx64 " %" PRIu64 " %" PRIu64 " %" PRIu64 "\n",
			    all[i].vaddr, all[i].n_insns, count, mem) < 0) {
			free(all);
			return -1;
		}
	}
	free(all);
	return 0;
}

static void plugin_exit(qemu_plugin_id_t id, void *userdata)
{
	FILE *f;
	int err;

	if (nr_dropped) {
		fprintf(stderr, "insnprof: out of memory, %zu translations not recorded; no profile written\n",
			nr_dropped);
		return;
	}
	f = fopen(out_path, "w");
	if (!f) {
		perror(out_path);
		return;
	}
	err = write_profile(f);
	if (fclose(f))
		err = -1;
	if (err) {
		/* No half-written profile for the script to trust. */
		fprintf(stderr, "insnprof: cannot write %s\n", out_path);
		unlink(out_path);
	}
}

QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id,
					   const qemu_info_t *info,
					   int argc, char **argv)
{
	int i;

	for (i = 0; i < argc; i++) {
		/* argv stays valid for the plugin's lifetime: no copy. */
		if (!strncmp(argv[i], "out=", 4) && argv[i][4]) {
			out_path = argv[i] + 4;
		} else {
			fprintf(stderr, "insnprof: unknown argument '%s' (usage: -plugin libinsnprof.so,out=PATH)\n",
				argv[i]);
			return -1;
		}
	}
	if (!out_path) {
		fprintf(stderr, "insnprof: no output file (usage: -plugin libinsnprof.so,out=PATH)\n");
		return -1;
	}
	if (info->system_emulation && info->system.smp_vcpus > 1)
		fprintf(stderr, "insnprof: %d vCPUs: the counters are only exact under -icount (single-threaded TCG)\n",
			info->system.smp_vcpus);

	qemu_plugin_register_vcpu_tb_trans_cb(id, tb_trans);
	qemu_plugin_register_atexit_cb(id, plugin_exit, NULL);
	return 0;
}
