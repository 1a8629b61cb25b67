/* SPDX-License-Identifier: GPL-2.0 */
/*
 * marker.h: the instructions by which mprotect_bench tells the cache model
 * (bench/tcg/cachesim.c) where its timed loops begin and end.
 *
 * A marker is an instruction that does nothing and that no compiler emits:
 * on x86_64 a multi-byte NOP whose displacement is the marker's value
 * ("nopl VALUE(%rax)", 0f 1f 80 and the value as 32 bits little-endian),
 * on arm64 a MOVZ into the zero register ("movz xzr, #VALUE"). On hardware
 * and under QEMU without the plugin it is a NOP.
 */
#ifndef BENCH_TCG_MARKER_H
#define BENCH_TCG_MARKER_H

#define MARK_BEGIN	0x6d62	/* a timed loop starts */
#define MARK_END	0x6d65	/* the timed loop that started ends */

/* arm64: MOVZ Xd, #imm16 (LSL 0) with Xd = XZR (31). */
#define MARK_ARM64_INSN(v)	(0xd2800000u | ((unsigned int)(v) << 5) | 31u)

#ifndef MARK_HOST_ONLY
#define MARK_STR_(v)	#v
#define MARK_STR(v)	MARK_STR_(v)
#if defined(__x86_64__)
#define bench_mark(v)	asm volatile("nopl " MARK_STR(v) "(%%rax)" ::: "memory")
#elif defined(__aarch64__)
#define bench_mark(v)	asm volatile("movz xzr, #" MARK_STR(v) ::: "memory")
#else
#define bench_mark(v)	asm volatile("" ::: "memory")
#endif
#endif

#endif
