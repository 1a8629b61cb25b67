#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# selftest.sh: checks bench/report, plot.sh and cover-check.sh on synthetic
# console logs, tables, check logs and documents, bench/native's
# statistics and refusals on synthetic results files, and mprotect_bench's
# argument handling.  No
# kernel or root needed.
#
#   bench/selftest.sh [--run-bench]
#
# --run-bench also runs every case of mprotect_bench on this machine (root,
# THP/mTHP sysfs needed; knobs are restored) and feeds two runs through the
# scripts as a fake stock/patched pair, and bench/native run twice on two
# cases.
# Ends with "N passed, N failed"; exit status 1 if any check failed.
set -u

here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0
run_bench=0
[ "${1:-}" = --run-bench ] && run_bench=1

ok() {
	pass=$((pass + 1))
	echo "ok - $1"
}

not_ok() {
	fail=$((fail + 1))
	echo "not ok - $1"
	[ -f "$tmp/out" ] && sed 's/^/#   /' "$tmp/out"
}

# expect RC DESCRIPTION CMD...: run CMD, check its exit status.
expect() {
	want=$1
	desc=$2
	shift 2
	"$@" >"$tmp/out" 2>&1
	rc=$?
	if [ "$rc" -eq "$want" ]; then
		ok "$desc"
	else
		not_ok "$desc (exit $rc, want $want)"
	fi
}

# grep_out PATTERN DESCRIPTION: the last command's output matches.
grep_out() {
	if grep -Eq -- "$1" "$tmp/out"; then
		ok "$2"
	else
		not_ok "$2 (no /$1/)"
	fi
}

# log FILE SCALE_LARGE SCALE_SMALL [FAULTS]: a synthetic console log.
# Large-folio cases cost 10 insns/pte times SCALE_LARGE, the others 50
# times SCALE_SMALL.
log() {
	awk -v sl="$2" -v ss="$3" -v fl="${4:-0}" 'BEGIN {
		printf "[    0.000000] Linux version 6.12.0\r\n@@@ BEGIN mprotect_bench\r\n"
		n = split("rorw-thp-pte:2M rorw-thp-nohuge:2M rorw-64k:64K " \
			  "rorw-4k:4K rorw-16k:16K " \
			  "rorw-32k:32K rorw-128k:128K rorw-256k:256K " \
			  "rorw-512k:512K rorw-1m:1M rorw-2m-pmd:2M " \
			  "rorw-write-4k:4K rorw-write-thp:2M " \
			  "nonerw-4k-4KiB:4K nonerw-4k-40KiB:4K " \
			  "nonerw-4k-400KiB:4K nonerw-4k-4000KiB:4K " \
			  "nonerw-4k-8KiB:4K nonerw-4k-16KiB:4K " \
			  "nonerw-4k-w-4KiB:4K nonerw-4k-w-8KiB:4K " \
			  "nonerw-4k-w-16KiB:4K rorw-4k-4KiB:4K " \
			  "rorw-4k-8KiB:4K rorw-4k-16KiB:4K rorw-4k-w-4KiB:4K " \
			  "rorw-4k-w-8KiB:4K rorw-4k-w-16KiB:4K " \
			  "memfd-rorw-4k:4K shmem-rorw-write-4k:4K " \
			  "nonerw-16k:16K nonerw-32k:32K " \
			  "shmem-rorw-64k:64K rorw-thp-prctl:2M " \
			  "shmem-rorw-thp-pte:2M shmem-rorw-thp-nohuge:2M " \
			  "shmem-rorw-thp-collapse:2M rorw-thp-unaligned:2M " \
			  "rorw-64k-unaligned:64K rorw-64k-straddle:64K " \
			  "rorw-64k-half:64K rorw-64k-mixed:64K rorw-64k-sparse:64K " \
			  "rorw-64k-each:64K rorw-16k-each:16K rorw-64k-3pages:64K " \
			  "rorw-16k-half:16K rorw-64k-2pages:64K " \
			  "rorw-4k-scattered:4K nonerw-4k-scattered:4K " \
			  "shmem-nonerw-64k:64K nonero-64k:64K", c, " ")
		for (i = 1; i <= n; i++) {
			split(c[i], f, ":")
			large = f[2] != "4K" && f[2] != "16K" && f[2] != "32K"
			ptes = 655360
			insns = int(ptes * (large ? 10 * sl : 50 * ss))
			flt = f[1] ~ /write/ ? fl : 0
			printf "BENCH case=%s insns=%d calls=80 ptes=%d per_pte=%.2f " \
			       "faults=%d folio=%s\r\n", f[1], insns, ptes,
			       insns / ptes, flt, f[2]
		}
		# What the bench prints, with 4K pages, for the 2M mTHP cases.
		n = split("rorw-2m rorw-2m-each rorw-2m-half rorw-2m-sparse", c, " ")
		for (i = 1; i <= n; i++)
			printf "BENCH case=%s skipped reason=na-folio-not-below-pmd\r\n", c[i]
		printf "[   12.345678] random: crng init done\r\n"
		printf "BENCH case=garbled insns=12[   1.0] oops calls=80\r\n"
		printf "@@@ END mprotect_bench rc=0\r\n@@@ DONE\r\n"
	}' >"$1"
}

R=$here/report
P=$here/plot.sh

# --- report csv ----------------------------------------------------------
log "$tmp/stock.log" 1 1
log "$tmp/good.log" 0.1 1
expect 2 "report csv: no arguments" "$R" csv
expect 2 "report csv: bad variant" "$R" csv x86_64:foo:"$tmp/stock.log"
expect 2 "report csv: unreadable log" "$R" csv x86_64:stock:"$tmp/nope"
expect 2 "report csv: bad BENCH_MODE" env BENCH_MODE=x "$R" csv \
	x86_64:stock:"$tmp/stock.log"
expect 0 "report csv: two arches" env BENCH_KERNEL=6.12.0 \
	BENCH_SERIES_HASH=abc "$R" csv -o "$tmp/good.csv" \
	x86_64:stock:"$tmp/stock.log" x86_64:patched:"$tmp/good.log" \
	arm64:stock:"$tmp/stock.log" arm64:patched:"$tmp/good.log"
cp "$tmp/good.csv" "$tmp/out"
grep_out '^# series_hash=abc$' "report csv: metadata line"
grep_out '^x86_64,patched,1,rorw-64k,655360,80,655360,1.00,0,64K,ok$' \
	"report csv: CRLF stripped, record complete"
if grep -q garbled "$tmp/good.csv"; then
	not_ok "report csv: garbled line dropped"
else
	ok "report csv: garbled line dropped"
fi

printf 'BENCH case=rorw-64k insns=800 calls=80 ptes=160 per_pte=5.00 faults=0 folio=64K min_block=480\r\n' >"$tmp/min.log"
expect 0 "report csv: BENCH_STAT=min" env BENCH_STAT=min "$R" csv -o "$tmp/min.csv" \
	x86_64:stock:"$tmp/min.log"
cp "$tmp/min.csv" "$tmp/out"
grep_out '^x86_64,stock,1,rorw-64k,480,80,160,3.00,0,64K,ok$' \
	"report csv: BENCH_STAT=min takes the cheapest block"
expect 2 "report csv: bad BENCH_STAT" env BENCH_STAT=x "$R" csv \
	x86_64:stock:"$tmp/min.log"

# --- report table --------------------------------------------------------
expect 0 "report table: all targets met" "$R" table "$tmp/good.csv"
grep_out '^rorw-thp-pte +2M +insns/pte +10.00 +1.00 +0.100 +1 <=0.20 +met$' \
	"report table: row format"
grep_out '^rorw-2m-pmd .* info$' "report table: case without target is info"
grep_out '^rorw-2m-half .* - +n/a \(folio-not-below-pmd\)$' \
	"report table: a shape both kernels skip as na- is n/a"
sed 's/case=rorw-2m-half skipped reason=na-folio-not-below-pmd/case=rorw-2m-half skipped reason=no-such-mthp-size/' \
	"$tmp/good.log" >"$tmp/na1.log"
"$R" csv -o "$tmp/na1.csv" x86_64:stock:"$tmp/stock.log" \
	x86_64:patched:"$tmp/na1.log" 2>/dev/null
expect 1 "report table: na- from one kernel only fails" "$R" table "$tmp/na1.csv"
grep_out '^rorw-2m-half .* missing \(skipped-stock:na-folio-not-below-pmd\)$' \
	"report table: ... as missing"
grep_out 'guest instructions' "report table: icount label"

log "$tmp/slow.log" 0.1 1.05
"$R" csv -o "$tmp/slow.csv" x86_64:stock:"$tmp/stock.log" \
	x86_64:patched:"$tmp/slow.log"
expect 1 "report table: 4K regression misses" "$R" table "$tmp/slow.csv"
grep_out '^rorw-4k .* 1.050 .* missed$' "report table: 4K regression row"
expect 0 "report table: --report-only" "$R" table --report-only "$tmp/slow.csv"

log "$tmp/meh.log" 0.3 1
"$R" csv -o "$tmp/meh.csv" x86_64:stock:"$tmp/stock.log" \
	x86_64:patched:"$tmp/meh.log" arm64:stock:"$tmp/stock.log" \
	arm64:patched:"$tmp/meh.log"
expect 1 "report table: arm64 0.30 misses 0.20" "$R" table "$tmp/meh.csv"
grep_out '^== arm64' "report table: arm64 table"
if awk '/^== x86_64/ { x = 1 } x && /rorw-64k/ && / met$/ { f = 1 }
	END { exit !f }' "$tmp/out"; then
	ok "report table: x86_64 0.30 meets 0.60"
else
	not_ok "report table: x86_64 0.30 meets 0.60"
fi

# Configs of the matrix (ARCH-FLAVOR) take their arch's targets; the worst
# config of each case is listed.
"$R" csv -o "$tmp/cfg.csv" arm64:stock:"$tmp/stock.log" \
	arm64:patched:"$tmp/good.log" arm64-os:stock:"$tmp/stock.log" \
	arm64-os:patched:"$tmp/meh.log"
expect 1 "report table: arm64-os takes arm64's targets" "$R" table "$tmp/cfg.csv"
grep_out '^== arm64-os' "report table: a table per config"
grep_out '^== arm64: worst config per case ==$' "report table: worst-config table"
grep_out '^rorw-64k +arm64-os +0.300 <=0.20$' "report table: worst config row"
expect 2 "report csv: bad arch name" "$R" csv 'arm64/os:stock:'"$tmp/stock.log"

# A third kernel (mainline): its columns beside the ratio, paired run by
# run; the targets stay on patched/stock.
log "$tmp/ml.log" 0.2 1.25
"$R" csv -o "$tmp/ml.csv" arm64:stock:"$tmp/stock.log" \
	arm64:patched:"$tmp/good.log" arm64:mainline:"$tmp/ml.log" \
	arm64-os:stock:"$tmp/stock.log" arm64-os:patched:"$tmp/meh.log" \
	arm64-os:mainline:"$tmp/ml.log"
cp "$tmp/ml.csv" "$tmp/out"
grep_out '^arm64,mainline,1,rorw-64k,1310720,80,655360,2.00,0,64K,ok$' \
	"report csv: mainline variant"
expect 1 "report table: mainline does not change the result" "$R" table "$tmp/ml.csv"
grep_out 'ratio +mainline +ml/stock +pat/ml +n target' \
	"report table: mainline columns"
grep_out '^rorw-64k +64K +insns/pte +10.00 +1.00 +0.100 +2.00 +0.200 +0.500 +1 <=0.20 +met$' \
	"report table: mainline row"
grep_out '^rorw-4k +4K +insns/pte +50.00 +50.00 +1.000 +62.50 +1.250 +0.800 +1 <=1.01 +met$' \
	"report table: mainline row, small folio"
grep_out '^rorw-64k +arm64-os +0.300 <=0.20 +1.500 arm64-os' \
	"report table: worst config row with pat/ml"

grep -v '^BENCH case=rorw-64k ' "$tmp/good.log" >"$tmp/miss.log"
printf 'BENCH case=rorw-128k skipped reason=too-few-large-folios-allocated\n' \
	>>"$tmp/miss.log"
grep -v '^BENCH case=rorw-128k insns' "$tmp/miss.log" >"$tmp/miss2.log"
"$R" csv -o "$tmp/miss.csv" x86_64:stock:"$tmp/stock.log" \
	x86_64:patched:"$tmp/miss2.log"
expect 1 "report table: missing result fails" "$R" table "$tmp/miss.csv"
grep_out '^rorw-64k .* missing \(no-patched\)$' "report table: missing row"
grep_out '^rorw-128k .*missing \(skipped-patched:too-few' \
	"report table: skipped row"
expect 1 "report table: absent arch is missing" "$R" table --arches x86_64,arm64 \
	"$tmp/slow.csv"
grep_out '^rorw-thp-pte .* missing \(no-result\)$' \
	"report table: absent arch rows"

log "$tmp/flt.log" 0.1 1 7
"$R" csv -o "$tmp/flt.csv" x86_64:stock:"$tmp/stock.log" \
	x86_64:patched:"$tmp/flt.log"
expect 1 "report table: more write faults misses" "$R" table "$tmp/flt.csv"
grep_out '^rorw-write-4k .*missed \(faults 0->7\)$' "report table: faults row"

# Gate: a large-folio ratio equal to the target passes the table but not
# the gate; the gate only looks at its cases.
log "$tmp/edge.log" 0.6 1
"$R" csv -o "$tmp/edge.csv" x86_64:stock:"$tmp/stock.log" \
	x86_64:patched:"$tmp/edge.log"
expect 0 "report table: ratio == target meets" "$R" table "$tmp/edge.csv"
expect 1 "report table --gate: ratio == target fails" "$R" table --gate "$tmp/edge.csv"
expect 0 "report table --gate=LIST: only listed cases" "$R" table \
	--gate=rorw-4k,memfd-rorw-4k "$tmp/edge.csv"
if grep -q rorw-64k "$tmp/out"; then
	not_ok "report table --gate=LIST: other cases hidden"
else
	ok "report table --gate=LIST: other cases hidden"
fi
expect 1 "report table --gate: missing gate case fails" "$R" table \
	--gate=rorw-4k,no-such-case "$tmp/edge.csv"
expect 2 "report table: unknown option" "$R" table --bogus "$tmp/edge.csv"
expect 2 "report table: unreadable csv" "$R" table "$tmp/nope.csv"

# Wall-clock mode: A B A B A B, median of paired ratios.
log "$tmp/w_s1.log" 1 1
log "$tmp/w_p1.log" 0.1 0.9
log "$tmp/w_s2.log" 1 1
log "$tmp/w_p2.log" 0.1 1.0
log "$tmp/w_s3.log" 1 1
log "$tmp/w_p3.log" 0.1 5.0
BENCH_MODE=wall "$R" csv -o "$tmp/wall.csv" \
	x86_64:stock:"$tmp/w_s1.log" x86_64:patched:"$tmp/w_p1.log" \
	x86_64:stock:"$tmp/w_s2.log" x86_64:patched:"$tmp/w_p2.log" \
	x86_64:stock:"$tmp/w_s3.log" x86_64:patched:"$tmp/w_p3.log"
expect 0 "report table wall: median of paired ratios" "$R" table "$tmp/wall.csv"
grep_out 'emulated wall time' "report table wall: label"
grep_out '^rorw-4k .* 1.000 0.900-5.000 +3 <=1.01 +met$' "report table wall: 3 pairs, median and the pairs' range"

# --- plot.sh --------------------------------------------------------------
if command -v gnuplot >/dev/null 2>&1; then
	expect 0 "plot.sh: png and svg" "$P" -o "$tmp/r.png" -s "$tmp/r.svg" \
		"$tmp/meh.csv"
	if [ -s "$tmp/r.png" ] && [ -s "$tmp/r.svg" ]; then
		ok "plot.sh: files written"
	else
		not_ok "plot.sh: files written"
	fi
else
	echo "# gnuplot not installed: plot.sh not tested"
fi
expect 2 "plot.sh: no arguments" "$P"

# --- mprotect_bench -------------------------------------------------------
# It links the kernel tree's mm selftest helpers on the tree's uapi
# headers, as guest.sh builds it; only its own file is held to -Werror (the
# helpers' headers are -isystem).
cc=${CC:-cc}
b=${BUILD:-$here/../build}
kst=$b/src/stock/tools/testing/selftests
hdr=$b/headers/$(uname -m)/include
if [ ! -f "$kst/mm/thp_settings.c" ] || [ ! -f "$hdr/linux/userfaultfd.h" ]; then
	# Not a pass: make check installs both first (scripts/guest.sh).
	echo "# no $kst or $hdr (scripts/guest.sh $(uname -m) makes both): mprotect_bench not tested"
elif command -v "$cc" >/dev/null 2>&1 &&
   "$cc" -O2 -Wall -Wextra -Werror -isystem "$kst/mm" -I "$kst" -c \
	-o "$tmp/mb.o" "$here/mprotect_bench.c" >"$tmp/out" 2>&1 &&
   "$cc" -O2 -isystem "$hdr" -isystem "$kst/mm" -I "$kst" -o "$tmp/mb" \
	"$tmp/mb.o" "$kst/mm/vm_util.c" "$kst/mm/thp_settings.c" \
	>>"$tmp/out" 2>&1; then
	ok "mprotect_bench: builds with -Wall -Wextra -Werror"
	expect 0 "mprotect_bench --list" "$tmp/mb" --list
	grep_out '^shmem-rorw-64k ' "mprotect_bench --list: names"
	expect 2 "mprotect_bench: unknown case" "$tmp/mb" --case nope
	expect 2 "mprotect_bench: unknown option" "$tmp/mb" --nope
	expect 2 "mprotect_bench: bad size" "$tmp/mb" --size 12x
	expect 2 "mprotect_bench: size not a folio multiple" "$tmp/mb" \
		--case rorw-64k --size 96K
	expect 2 "mprotect_bench: bad iters" "$tmp/mb" --iters 0
	expect 2 "mprotect_bench: bad scale" "$tmp/mb" --scale 0
	expect 2 "mprotect_bench: bad rounds" "$tmp/mb" --rounds 0
	expect 2 "mprotect_bench: iters times scale too large" "$tmp/mb" \
		--iters 67108864 --scale 64
	expect 2 "mprotect_bench: missing value" "$tmp/mb" --case
	if [ "$run_bench" -eq 1 ]; then
		(cd "$tmp" && ./mb >h1.log 2>&1 && ./mb >h2.log 2>&1)
		rc=$?
		if [ "$rc" -eq 0 ]; then
			ok "mprotect_bench: all cases run on this machine"
		else
			cp "$tmp/h1.log" "$tmp/out" 2>/dev/null
			not_ok "mprotect_bench: all cases run on this machine"
		fi
		# 40 cycles over three rounds (14, 13, 13): one line.
		expect 0 "mprotect_bench --rounds 3 runs" "$tmp/mb" \
			--case rorw-4k --size 4M --rounds 3
		grep_out '^BENCH case=rorw-4k .* rounds=3( |$)' \
			"mprotect_bench --rounds 3: three rounds"
		if [ "$(grep -c '^BENCH case=rorw-4k ' "$tmp/out")" = 1 ]; then
			ok "mprotect_bench --rounds 3: one line"
		else
			not_ok "mprotect_bench --rounds 3: one line"
		fi
		# Two cycles cannot fill five rounds: two rounds of one.
		expect 0 "mprotect_bench --iters 2 --rounds 5 runs" "$tmp/mb" \
			--case rorw-4k --size 4M --iters 2 --rounds 5
		grep_out '^BENCH case=rorw-4k .* rounds=2( |$)' \
			"mprotect_bench --iters 2 --rounds 5: rounds=2"
		"$R" csv -o "$tmp/host.csv" x86_64:stock:"$tmp/h1.log" \
			x86_64:patched:"$tmp/h2.log"
		expect 0 "report table on host runs (report-only)" "$R" table \
			--report-only "$tmp/host.csv"
		cat "$tmp/out"
	fi
else
	not_ok "mprotect_bench: builds with -Wall -Wextra -Werror"
fi

# report tlb: TLB flushes per call, patched against stock.
tlblog() {	# tlblog FILE RANGE PAGES MM: two cases with those counts
	{
		echo "BENCH case=rorw-4k insns=1 calls=2 tlb_range=0.000 tlb_pages=0.000 tlb_mm=1.000"
		echo "BENCH case=nonerw-4k-4KiB insns=1 calls=2 tlb_range=$2 tlb_pages=$3 tlb_mm=$4"
	} >"$1"
}
tlblog "$tmp/ts.log" 0.500 0.500 0.000
tlblog "$tmp/tp.log" 0.500 0.500 0.000
expect 0 "report tlb: equal counts pass" "$R" tlb "$tmp/ts.log" "$tmp/tp.log"
grep_out '^nonerw-4k-4KiB .* ok$' "report tlb: a row per case"
tlblog "$tmp/tp.log" 0.500 1.000 0.000
expect 1 "report tlb: more pages than stock fail" "$R" tlb "$tmp/ts.log" "$tmp/tp.log"
grep_out '^nonerw-4k-4KiB .* MORE$' "report tlb: the case is named"
tlblog "$tmp/tp.log" 0.000 0.000 1.000
expect 1 "report tlb: a whole-mm flush for a ranged one fails" "$R" tlb "$tmp/ts.log" "$tmp/tp.log"
echo "BENCH case=rorw-4k insns=1 calls=2" >"$tmp/tn.log"
expect 1 "report tlb: a log without counts fails" "$R" tlb "$tmp/tn.log" "$tmp/tp.log"
expect 2 "report tlb: usage" "$R" tlb "$tmp/ts.log"

# A record after other output on its console line still counts (a kernel
# message without its newline); one in the middle of a word does not.
printf '[    1.0] BIOS-e820BENCH case=rorw-4k insns=1 calls=2 tlb_range=0.500 tlb_pages=0.500 tlb_mm=0.000\r\n' >"$tmp/tq.log"
expect 0 "report tlb: a record after other output counts" "$R" tlb "$tmp/tq.log" "$tmp/tq.log"
grep_out '^rorw-4k .* ok$' "report tlb: the record is read"

# report cache: the plugin's windows joined to the BENCH records.
cachelog() {	# cachelog NAME L1D LLC: a log and counts, two cases, 100 PTEs each
	{
		echo "BENCH case=rorw-4k insns=1 calls=2 ptes=100 folio=4K rounds=1 window=0"
		echo "BENCH case=rorw-thp-pte skipped reason=no-thp"
		echo "BENCH case=rorw-64k insns=1 calls=2 ptes=100 folio=64K rounds=1 window=1"
	} >"$tmp/$1.log"
	{
		echo "config line=64 l1d_size=65536 l1d_ways=4 llc_size=1048576 llc_ways=8"
		echo "window 0 kernel 900 300 100 10 0 user 5 5 1 1 0"
		echo "window 1 kernel 900 300 $2 $3 0 user 5 5 1 1 0"
		echo "windows 2 unmatched 0"
	} >"$tmp/$1.counts"
}
cachelog cs 200 20
cachelog cp 200 20
expect 0 "report cache: equal counts pass" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" patched:"$tmp/cp.log:$tmp/cp.counts"
grep_out '^rorw-64k .*   2.0000 .* ok$' "report cache: misses per PTE of the case's own window"
cachelog cp 202 20
expect 0 "report cache: within 1% + 0.005 per PTE passes" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" patched:"$tmp/cp.log:$tmp/cp.counts"
cachelog cp 204 20
expect 1 "report cache: beyond 1% + 0.005 per PTE fails" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" patched:"$tmp/cp.log:$tmp/cp.counts"
# Layouts: stock's highest boot is the bound, each figure the median.
cachelog cs2 240 20
cachelog cs3 190 20
expect 0 "report cache: below stock's highest layout passes" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" stock:"$tmp/cs2.log:$tmp/cs2.counts" stock:"$tmp/cs3.log:$tmp/cs3.counts" patched:"$tmp/cp.log:$tmp/cp.counts"
grep_out '^rorw-64k .*   2.0000   2.4000   2.0400 ' "report cache: stock's median and highest, patched's median"
cachelog cp 200 22
expect 1 "report cache: more LLC misses than stock fail" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" patched:"$tmp/cp.log:$tmp/cp.counts"
grep_out '^rorw-64k .* MORE$' "report cache: the case is named"
sed -i 's/unmatched 0/unmatched 1/' "$tmp/cp.counts"
expect 1 "report cache: markers out of order fail" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" patched:"$tmp/cp.log:$tmp/cp.counts"
cachelog cp 200 20
sed -i 's/window=1/window=7/' "$tmp/cp.log"
expect 1 "report cache: a record without its window fails" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" patched:"$tmp/cp.log:$tmp/cp.counts"
cachelog cp 200 20
sed -i 's/window=0/window=1/' "$tmp/cp.log"
expect 1 "report cache: two records of one window fail" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" patched:"$tmp/cp.log:$tmp/cp.counts"
grep_out 'window-twice' "report cache: says why"
cachelog cp 200 20
cachelog cm 200 20
sed -i 's/window=1/window=9/' "$tmp/cm.log"
expect 0 "report cache: a problem of 7.2 only blanks its cells" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" patched:"$tmp/cp.log:$tmp/cp.counts" mainline:"$tmp/cm.log:$tmp/cm.counts"
: >"$tmp/empty.log"
expect 1 "report cache: a log without records fails" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" patched:"$tmp/empty.log:$tmp/cp.counts"
# Stock's spread widens the bound: 2.40 + (2.40 - 1.90) + 1% + 0.005 = 2.929.
cachelog cp 292 20
expect 0 "report cache: within stock's spread passes" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" stock:"$tmp/cs2.log:$tmp/cs2.counts" stock:"$tmp/cs3.log:$tmp/cs3.counts" patched:"$tmp/cp.log:$tmp/cp.counts"
cachelog cp 294 20
expect 1 "report cache: beyond stock's spread fails" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts" stock:"$tmp/cs2.log:$tmp/cs2.counts" stock:"$tmp/cs3.log:$tmp/cs3.counts" patched:"$tmp/cp.log:$tmp/cp.counts"
expect 2 "report cache: patched is needed" "$R" cache stock:"$tmp/cs.log:$tmp/cs.counts"
expect 2 "report cache: usage" "$R" cache stock:"$tmp/cs.log"

# --- report cover, determinism, field -------------------------------------
# The cover tables are cut from table output; the worst-config tables need
# two configs per arch.
"$R" csv -o "$tmp/cov.csv" x86_64:stock:"$tmp/stock.log" \
	x86_64:patched:"$tmp/good.log" x86_64-os:stock:"$tmp/stock.log" \
	x86_64-os:patched:"$tmp/meh.log" arm64:stock:"$tmp/stock.log" \
	arm64:patched:"$tmp/good.log" arm64-va52:stock:"$tmp/stock.log" \
	arm64-va52:patched:"$tmp/good.log" x86_64-ml:stock:"$tmp/stock.log" \
	x86_64-ml:patched:"$tmp/good.log" x86_64-ml:mainline:"$tmp/ml.log" \
	arm64-ml:stock:"$tmp/stock.log" arm64-ml:patched:"$tmp/meh.log" \
	arm64-ml:mainline:"$tmp/ml.log"
"$R" table --report-only "$tmp/cov.csv" >"$tmp/cov.txt"
expect 0 "report cover series" "$R" cover series "$tmp/cov.txt"
grep_out '^  rorw-64k +64K +0.100 0.300 os +0.100 0.100 +<=0.60/0.20$' \
	"report cover series: a row per case, the worst config named"
grep_out '^  rorw-4k +4K +1.000 1.000 +1.000 1.000 +<=1.01$' \
	"report cover series: one target for both arches"
grep_out '^  closest to its target: x86_64 rorw-4k 1.000 \(target <=1.01\)$' \
	"report cover series: the case closest to its target"
grep_out '^  RESULT: target\(s\) missed or missing$' \
	"report cover series: the table's result"
if grep -q '[[:space:]]$' "$tmp/out"; then
	not_ok "report cover series: no trailing blanks"
else
	ok "report cover series: no trailing blanks"
fi
expect 0 "report cover mainline" "$R" cover mainline "$tmp/cov.txt"
grep_out '^  rorw-64k +0.100 +0.500 +0.300 +1.500$' \
	"report cover mainline: worst -ml config per arch"
expect 0 "report cover mainline-cost" "$R" cover mainline-cost "$tmp/cov.txt"
grep_out '^  rorw-4k +1.250 +1.250 +RO<->RW, 4K pages$' \
	"report cover mainline-cost: 7.2 against nobatch"
expect 0 "report cover ratios" "$R" cover ratios "$tmp/cov.txt"
grep_out '^  case +folio +x86_64 +x86_64-os +arm64 +arm64-va52 +x86_64-ml +arm64-ml$' \
	"report cover ratios: a column per config, in the table's order"
grep_out '^  rorw-64k +64K +0.100 +0.300 +0.100 +0.100 +0.100 +0.300$' \
	"report cover ratios: a row per case"
# Per folio: (300 - 150) x 16 = 2400 saved, as dense (200 - 50) x 16; the
# call 1600; ratio 0.5; floor 1 - 200/300; gain 0.5 of dense 0.75: 67%.
cat >"$tmp/pf.txt" <<'EOF'
== arm64: guest instructions (QEMU -icount shift=0) ==
case                    folio metric            stock      patched   ratio   n target  result
rorw-4k                 4K    insns/pte        100.00       100.00   1.000   2 -       info
rorw-64k                64K   insns/pte        200.00        50.00   0.250   2 -       info
rorw-64k-each           64K   insns/pte        300.00       150.00   0.500   2 -       info
rorw-16k-each           16K   insns/pte        300.00       150.00   0.500   2 -       info
EOF
expect 0 "report cover per-folio" "$R" cover per-folio "$tmp/pf.txt"
grep_out '^  arm64 +rorw-64k-each +16 +2400 +2400 +100% +1600 +0.500 +0.333 +67%$' \
	"report cover per-folio: saved per folio against dense, call, ratio, floor, gain"
if grep -q 'rorw-16k-each' "$tmp/out"; then
	not_ok "report cover per-folio: no row without its dense layout"
else
	ok "report cover per-folio: no row without its dense layout"
fi
expect 2 "report cover: unknown table" "$R" cover nope "$tmp/cov.txt"
expect 2 "report cover: not a table" "$R" cover series "$tmp/cov.csv"

expect 0 "report determinism: identical runs" "$R" determinism "x86_64 stock" 2 \
	"$tmp/stock.log" "$tmp/stock.log"
grep_out '^icount determinism x86_64 stock: 2 runs, identical$' \
	"report determinism: identical"
expect 0 "report determinism: different runs" "$R" determinism "x86_64 mix" 2 \
	"$tmp/stock.log" "$tmp/good.log"
grep_out 'differ by at most [0-9]+ insns' "report determinism: the largest difference"
expect 2 "report determinism: bad run count" "$R" determinism x 2x "$tmp/stock.log"

expect 0 "report field" "$R" field "$tmp/stock.log" rorw-64k ptes
grep_out '^655360$' "report field: the value"
expect 1 "report field: no such key" "$R" field "$tmp/stock.log" rorw-64k nokey
expect 1 "report field: no such case" "$R" field "$tmp/stock.log" nocase ptes
expect 1 "report field: a skipped case" "$R" field "$tmp/miss.log" rorw-128k ptes

expect 0 "report plot: the data of the sweep" "$R" plot "$tmp/meh.csv"
grep_out '^A arm64 0.2$' "report plot: the arch's large-folio target"
grep_out '^P x86_64 64 0.300000 rorw-64k$' "report plot: a point"
expect 2 "report: unknown subcommand" "$R" nope

# --- cover-check.sh -------------------------------------------------------
# A letter whose table is the command's output passes; a changed figure,
# an added row, a letter without a command line or a path outside the
# repository fails.
CC=$here/cover-check.sh
mkdir -p "$tmp/top/res"
cp "$tmp/cov.txt" "$tmp/top/res/t.txt"
{
	echo "Subject: a letter"
	echo
	echo '  $ bench/report cover series res/t.txt'
	"$R" cover series "$tmp/top/res/t.txt"
	echo
	echo "Tests"
} >"$tmp/top/letter"
expect 0 "cover-check: the table is the command's output" "$CC" --top "$tmp/top" "$tmp/top/letter"
sed 's/^\(  rorw-64k .*\)0\.300/\10.299/' "$tmp/top/letter" >"$tmp/top/edited"
expect 1 "cover-check: an edited figure fails" "$CC" --top "$tmp/top" "$tmp/top/edited"
grep_out '^    \+  rorw-64k .*0\.299' "cover-check: the edited row is shown"
awk '{ print } /RESULT/ { print "  extra row" }' "$tmp/top/letter" >"$tmp/top/extra"
expect 1 "cover-check: an added row fails" "$CC" --top "$tmp/top" "$tmp/top/extra"
grep -v 'bench/report cover' "$tmp/top/letter" >"$tmp/top/none"
expect 1 "cover-check: a letter without a command line fails" "$CC" --top "$tmp/top" "$tmp/top/none"
sed "s|res/t.txt|$tmp/top/res/t.txt|" "$tmp/top/letter" >"$tmp/top/abs"
expect 1 "cover-check: a file outside the repository fails" "$CC" --top "$tmp/top" "$tmp/top/abs"

# --- report readme, tests ------------------------------------------------
# The README's Markdown tables: header and a row per case, stock, patched,
# mainline and ratio of the two sections side by side.
expect 0 "report readme series" "$R" readme series "$tmp/cov.txt"
grep_out '^\| case \| folio \| metric \| x86_64 6\.12 \| \+ series \| 7\.2 \| series/6\.12 \| arm64 6\.12 \|' \
	"report readme series: the header"
grep_out '^\| `rorw-64k` \| 64K \| insns/pte \| 10\.00 \| 1\.00 \| - \| 0\.100 \| 10\.00 \| 1\.00 \| - \| 0\.100 \|$' \
	"report readme series: a row of x86_64 and arm64"
if [ "$(grep -c '^| `' "$tmp/out")" = 9 ]; then
	ok "report readme series: nine cases"
else
	not_ok "report readme series: nine cases"
fi
expect 0 "report readme mainline" "$R" readme mainline "$tmp/cov.txt"
grep_out '^\| `rorw-64k` \| 64K \| insns/pte \| 10\.00 \| 1\.00 \| 2\.00 \| 0\.100 \| 10\.00 \| 3\.00 \| 2\.00 \| 0\.300 \|$' \
	"report readme mainline: the -ml sections"
grep -v '^rorw-64k-half ' "$tmp/cov.txt" >"$tmp/cov-half.txt"
expect 2 "report readme: a missing case fails" "$R" readme series "$tmp/cov-half.txt"
grep_out 'no row of rorw-64k-half in section x86_64' "report readme: the missing case is named"
if grep -q '^|' "$tmp/out"; then
	not_ok "report readme: no partial table"
else
	ok "report readme: no partial table"
fi
"$R" table --report-only "$tmp/slow.csv" >"$tmp/noml.txt"
expect 2 "report readme series: a section missing fails" "$R" readme series "$tmp/noml.txt"
"$R" table --report-only "$tmp/meh.csv" >"$tmp/noml.txt"
expect 0 "report readme series: a table without mainline columns" "$R" readme series "$tmp/noml.txt"
grep_out '^\| case \| folio \| metric \| x86_64 6\.12 \| \+ series \| series/6\.12 \| arm64 6\.12 \| \+ series \| series/6\.12 \|$' \
	"report readme series: no 7.2 columns without mainline"
expect 2 "report readme mainline: a table without mainline columns fails" "$R" readme mainline "$tmp/noml.txt"
# Debian 13's configs: the sections x86_64-debian and arm64-debian.
"$R" csv -o "$tmp/deb.csv" x86_64-debian:stock:"$tmp/stock.log" \
	x86_64-debian:patched:"$tmp/meh.log" arm64-debian:stock:"$tmp/stock.log" \
	arm64-debian:patched:"$tmp/meh.log"
"$R" table --report-only "$tmp/deb.csv" >"$tmp/deb.txt"
expect 0 "report readme debian" "$R" readme debian "$tmp/deb.txt"
grep_out '^\| case \| folio \| metric \| x86_64-debian 6\.12 \| \+ series \| series/6\.12 \| arm64-debian 6\.12 \|' \
	"report readme debian: the header names the records"
grep_out '^\| `rorw-64k` \| 64K \| insns/pte \| 10\.00 \| 3\.00 \| 0\.300 \| 10\.00 \| 3\.00 \| 0\.300 \|$' \
	"report readme debian: a row of both Debian sections"
expect 2 "report readme debian: the x86_64 and arm64 sections are not Debian's" \
	"$R" readme debian "$tmp/noml.txt"
grep_out 'no section x86_64-debian' "report readme debian: the missing section is named"
expect 2 "report readme: unknown table" "$R" readme nope "$tmp/cov.txt"
expect 2 "report readme: not a table" "$R" readme series "$tmp/cov.csv"

# A check.sh log: summary lines indented by four (counted), deeper ones
# (shown, not counted), other lines of counts that are not summaries,
# and the total.
{
	echo "[    9s] build x86_64 test                           ok (9s)"
	echo "    x86_64-ml-tests:                     193 passed, 0 failed, 51 skipped (incl. failures stock shares)"
	echo "    7.2's own results (shown, not counted):"
	echo "      x86_64-mainline-tests:               183 passed, 10 failed, 51 skipped"
	echo "    x86_64-ml-kselftests:                964 passed, 0 failed, 13 skipped"
	echo "[  603s] harness selftest                             ok (16 passed, 0 failed)"
	echo
	echo "2386 passed, 0 failed, 144 skipped"
	echo "EXIT 0"
} >"$tmp/check.log"
expect 0 "report tests total" "$R" tests total "$tmp/check.log"
if [ "$(cat "$tmp/out")" = "  2386 passed, 0 failed, 144 skipped" ]; then
	ok "report tests total: the total line alone"
else
	not_ok "report tests total: the total line alone"
fi
expect 0 "report tests units" "$R" tests units "$tmp/check.log"
grep_out '^  x86_64-ml-tests +193 passed, 0 failed, 51 skipped$' \
	"report tests units: a unit, its note dropped"
grep_out '^  x86_64-mainline-tests +183 passed, 10 failed, 51 skipped \(not counted\)$' \
	"report tests units: a deeper line is not counted"
grep_out '^  all +2386 passed, 0 failed, 144 skipped$' "report tests units: the total last"
if grep -q '16 passed' "$tmp/out"; then
	not_ok "report tests units: other lines of counts are not units"
else
	ok "report tests units: other lines of counts are not units"
fi
grep -v '^2386 passed' "$tmp/check.log" >"$tmp/check-nototal.log"
expect 2 "report tests: a log without a total fails" "$R" tests total "$tmp/check-nototal.log"
cat "$tmp/check.log" "$tmp/check.log" >"$tmp/check-two.log"
expect 2 "report tests: a log with two totals fails" "$R" tests total "$tmp/check-two.log"
grep '^2386' "$tmp/check.log" >"$tmp/check-nounits.log"
expect 2 "report tests units: a log without units fails" "$R" tests units "$tmp/check-nounits.log"
expect 2 "report tests: unknown kind" "$R" tests nope "$tmp/check.log"
expect 2 "report tests: unreadable log" "$R" tests total "$tmp/nope.log"

# A guest console log: programs between "@@@ BEGIN" and "@@@ END", each
# with its kselftest totals (xfail counted as a skip, xpass and error as
# failures); gzipped or not.
{
	echo "@@@ BEGIN smoke"
	echo "not ok 3 one"
	echo "# Totals: pass:10 fail:1 xfail:0 xpass:0 skip:2 error:0"
	echo "@@@ END smoke rc=1 secs=1.0"
	echo "@@@ BEGIN other"
	echo "# Totals: pass:5 fail:0 xfail:1 xpass:1 skip:0 error:1"
	echo "@@@ END other rc=1 secs=1.0"
} >"$tmp/console.log"
expect 0 "report tests tap" "$R" tests tap "$tmp/console.log"
grep_out '^  smoke: 10 passed, 1 failed, 2 skipped$' "report tests tap: a program's totals"
grep_out '^  other: 5 passed, 2 failed, 1 skipped$' "report tests tap: xfail skipped, xpass and error failed"
gzip -c "$tmp/console.log" >"$tmp/console.log.gz"
expect 0 "report tests tap: a gzipped log" "$R" tests tap "$tmp/console.log.gz"
grep_out '^  other: 5 passed, 2 failed, 1 skipped$' "report tests tap: the gzipped log's totals"
grep -v '^# Totals: pass:5' "$tmp/console.log" >"$tmp/console-nototal.log"
expect 2 "report tests tap: a program without totals fails" "$R" tests tap "$tmp/console-nototal.log"
expect 2 "report tests tap: a log without programs fails" "$R" tests tap "$tmp/check.log"

# cover-check.sh on a README: the command as an indented code block right
# above its table, test totals in a fenced block; an edited figure is
# named by the document's file and line.
cp "$tmp/check.log" "$tmp/top/res/check.log"
{
	echo "# A README"
	echo
	echo "    \$ bench/report readme series res/t.txt"
	"$R" readme series "$tmp/top/res/t.txt"
	echo
	echo '```'
	echo '  $ bench/report tests total res/check.log'
	"$R" tests total "$tmp/top/res/check.log"
	echo '  $ bench/report tests units res/check.log'
	"$R" tests units "$tmp/top/res/check.log"
	echo '```'
} >"$tmp/top/README.md"
expect 0 "cover-check: README tables and test counts" "$CC" --top "$tmp/top" "$tmp/top/README.md"
grep_out '^3 passed, 0 failed$' "cover-check: every command line of the README"
sed '/rorw-16k/s/| 1\.000 |/| 0.999 |/' "$tmp/top/README.md" >"$tmp/top/README-ed.md"
expect 1 "cover-check: an edited README figure fails" "$CC" --top "$tmp/top" "$tmp/top/README-ed.md"
grep_out '^not ok - README-ed\.md:8: differs from the output of line 3' \
	"cover-check: the README's file and line are named"
sed 's/^  2386 passed, 0 failed/  2387 passed, 0 failed/' "$tmp/top/README.md" >"$tmp/top/README-ed.md"
expect 1 "cover-check: an edited test total fails" "$CC" --top "$tmp/top" "$tmp/top/README-ed.md"
grep_out '^not ok - README-ed\.md:18: differs from the output of line 17' "cover-check: the total's line is named"

# --- native ---------------------------------------------------------------
# The statistics of bench/native on synthetic results files: rorw-4k has
# the values 1..15 in shuffled order, nonerw-4k-4KiB 101..106 (an even
# count), rorw-64k five runs (too few for a 95% interval), rorw-16k none.
N=$here/native
nres() {	# nres FILE CPU FACTOR [CASES]: every value times FACTOR
	awk -v cpu="$2" -v f="$3" -v cases="${4:-rorw-4k nonerw-4k-4KiB rorw-64k rorw-16k}" 'BEGIN {
		print "# bench/native results 1"
		print "# date: 2026-01-01T00:00:00Z"
		print "# arch: x86_64"
		print "# cpu: " cpu
		print "# kernel: 6.12.0"
		print "# version: Linux version 6.12.0 #1"
		print "# block: median"
		print "# options: size=default iters=default scale=1"
		print "# cases: " cases
		for (i = 1; i <= 15; i++)
			printf "run rorw-4k %d %.4f\n", i, ((i * 7) % 15 + 1) * f
		for (i = 1; i <= 6; i++)
			printf "run nonerw-4k-4KiB %d %.4f\n", i, (100 + i) * f
		for (i = 1; i <= 5; i++)
			printf "run rorw-64k %d %.4f\n", i, 10 * f
		for (i = 1; i <= 6; i++)
			printf "skip rorw-16k %d too-few-large-folios-allocated\n", i
	}' >"$1"
}
nres "$tmp/n-a.txt" "Test CPU" 1
nres "$tmp/n-a2.txt" "Test CPU" 1
nres "$tmp/n-slow.txt" "Test CPU" 2
nres "$tmp/n-fast.txt" "Test CPU" 0.5
expect 0 "native stats" "$N" stats "$tmp/n-a.txt"
# 15 runs: [x(4), x(12)], coverage 1 - 2 P(B(15, 1/2) <= 3) = 0.9648.
grep_out '^stat rorw-4k +ns/pte +15 +0 +1\.00 +8\.00 +8\.00 +4\.00 +12\.00 +0\.965$' \
	"native stats: min, median, mean, order-statistic interval of 15 runs"
# 6 runs: the median of an even count, [x(1), x(6)] covers 1 - 2/64.
grep_out '^stat nonerw-4k-4KiB +ns/call +6 +0 +101\.00 +103\.50 +103\.50 +101\.00 +106\.00 +0\.969$' \
	"native stats: per call, even count, 6 runs the fewest with an interval"
grep_out '^stat rorw-64k +ns/pte +5 +0 +10\.00 +10\.00 +10\.00 +- +- +-$' \
	"native stats: 5 runs, no 95% interval"
grep_out '^stat rorw-16k +ns/pte +0 +6 +- ' "native stats: a case skipped in every run"
expect 2 "native stats: not a results file" "$N" stats "$tmp/stock.log"

expect 0 "native compare: a file against its copy" "$N" compare "$tmp/n-a.txt" "$tmp/n-a2.txt"
grep_out '^rorw-4k +ns/pte +8\.00 +8\.00 +1\.000 +0\.500 +2\.000 +15 +15$' \
	"native compare: ratio 1, its interval holds 1.0, no flag"
grep_out 'an A/A comparison' "native compare: the same kernel is named"
cp "$tmp/out" "$tmp/n-cmp1"
"$N" compare "$tmp/n-a.txt" "$tmp/n-a2.txt" >"$tmp/n-cmp2" 2>&1
if cmp -s "$tmp/n-cmp1" "$tmp/n-cmp2"; then
	ok "native compare: the bootstrap repeats exactly"
else
	not_ok "native compare: the bootstrap repeats exactly"
fi
expect 0 "native compare: patched twice as slow" "$N" compare "$tmp/n-a.txt" "$tmp/n-slow.txt"
grep_out '^nonerw-4k-4KiB +ns/call +103\.50 +207\.00 +2\.000 +1\.[0-9]+ +2\.[0-9]+ +6 +6  SLOWER$' \
	"native compare: an interval above 1.0 is flagged SLOWER"
grep_out '^rorw-64k .* 2\.000 +- +- +5 +5  fewer than 6 runs$' \
	"native compare: too few runs, no interval"
grep_out '^rorw-16k .* no runs in either$' "native compare: a skipped case"
grep_out '^4 cases: 0 faster, 1 slower \(interval excludes 1\.0\), 1 within, 2 without interval$' \
	"native compare: the count line"
expect 0 "native compare: patched twice as fast" "$N" compare "$tmp/n-a.txt" "$tmp/n-fast.txt"
grep_out '^nonerw-4k-4KiB .* 0\.500 +0\.[0-9]+ +0\.[0-9]+ +6 +6  faster$' \
	"native compare: an interval below 1.0 is flagged faster"
nres "$tmp/n-cpu.txt" "Other CPU" 1
expect 2 "native compare: different CPUs refused" "$N" compare "$tmp/n-a.txt" "$tmp/n-cpu.txt"
grep_out 'different CPUs: "Test CPU"' "native compare: the CPUs are named"
nres "$tmp/n-cases.txt" "Test CPU" 1 "rorw-4k nonerw-4k-4KiB rorw-64k"
expect 2 "native compare: different case lists refused" "$N" compare "$tmp/n-a.txt" "$tmp/n-cases.txt"
grep_out 'different cases' "native compare: the case lists are named"
nres "$tmp/n-order.txt" "Test CPU" 1 "rorw-16k rorw-64k nonerw-4k-4KiB rorw-4k"
expect 0 "native compare: the same cases in another order" "$N" compare "$tmp/n-a.txt" "$tmp/n-order.txt"
sed 's/^# options: .*/# options: size=8M iters=default scale=1/' "$tmp/n-a.txt" >"$tmp/n-size.txt"
expect 2 "native compare: different --size refused" "$N" compare "$tmp/n-a.txt" "$tmp/n-size.txt"
sed 's/^# block: .*/# block: min/' "$tmp/n-a.txt" >"$tmp/n-min.txt"
expect 2 "native compare: different -b refused" "$N" compare "$tmp/n-a.txt" "$tmp/n-min.txt"
expect 2 "native compare: not a results file" "$N" compare "$tmp/n-a.txt" "$tmp/stock.log"
expect 2 "native compare: unreadable file" "$N" compare "$tmp/n-a.txt" "$tmp/nope"
expect 2 "native compare: one file" "$N" compare "$tmp/n-a.txt"
expect 2 "native: unknown subcommand" "$N" nope
expect 2 "native run: fewer than 6 repetitions" "$N" run -n 5
grep_out 'want 6 to 1000' "native run: the reason is given"
expect 2 "native run: bad -b" "$N" run -b mean
expect 2 "native run: unknown option" "$N" run --bogus
expect 2 "native run: missing value" "$N" run -o
# The refusal without root: as root, run as nobody where setpriv can.
asuser=''
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null 2>&1; then
	asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"
fi
if [ "$(id -u)" -ne 0 ] || [ -n "$asuser" ]; then
	expect 2 "native run: refused without root" $asuser sh "$N" run -n 6 rorw-4k
	grep_out 'needs root' "native run: says why"
else
	echo "# root without setpriv: the refusal of bench/native run without root not tested"
fi
if [ "$run_bench" -eq 1 ]; then
	expect 2 "native run: unknown case" "$N" run -n 6 no-such-case
	expect 0 "native run: two cases, 6 runs" "$N" run -n 6 -o "$tmp/n-h1.txt" \
		rorw-4k rorw-64k
	expect 0 "native run: again" "$N" run -n 6 -o "$tmp/n-h2.txt" rorw-4k rorw-64k
	expect 0 "native compare on host runs" "$N" compare "$tmp/n-h1.txt" "$tmp/n-h2.txt"
	grep_out '^rorw-64k +ns/pte ' "native compare on host runs: a row"
	cat "$tmp/out"
fi

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
