#!/bin/sh
# insnprof.sh ARCH VARIANT CASE [ITERS_LO ITERS_HI]: where the guest
# instructions of one mprotect_bench case go, per kernel function.
#
# Boots the existing bench kernel build/kernel/ARCH-VARIANT-bench (it does not
# build kernels) twice under -icount with the TCG plugin bench/tcg/insnprof.c,
# once with --iters ITERS_LO (default 40) and once with ITERS_HI (default
# 440). An icount boot is a pure function of its inputs, so the difference of
# the two profiles is the kernel work of the extra ITERS_HI - ITERS_LO timed
# iterations (the checks before and after the timed loop do not depend on
# --iters), plus whatever background work (timer ticks, ...) falls in the
# longer window. The profile counts whole translation blocks, each credited
# to the function its first instruction is in (`nm -n` of vmlinux, text
# symbols); the table gives instructions per PTE, sorted, and the
# translation blocks run and memory accesses made per PTE in all kernel text
# (the plugin counts both), which weigh in emulated wall time too.
# Environment: SIZE (mprotect_bench --size, default its own 32M).
# Output: a table on stdout, kept with the raw profiles and console logs in
# build/insnprof/ARCH-VARIANT-CASE/.
. "$(dirname "$0")/lib.sh"

[ $# = 3 ] || [ $# = 5 ] || die "usage: $0 ARCH VARIANT CASE [ITERS_LO ITERS_HI]"
arch=$1 variant=$2 case=$3 lo=${4:-40} hi=${5:-440}
load_arch "$arch"
check_variant "$variant"
echo "$lo$hi" | grep -Eqx '[0-9]+' && [ "$lo" -ge 1 ] && [ "$hi" -gt "$lo" ] ||
	die "ITERS_LO and ITERS_HI must be numbers, 1 <= ITERS_LO < ITERS_HI (got '$lo' '$hi')"
echo "${SIZE:-1M}" | grep -Eqx '[1-9][0-9]*[KMG]?' || die "bad SIZE '$SIZE' (e.g. 32M)"
case $case in *[!a-zA-Z0-9_-]* | '') die "bad CASE '$case'" ;; esac
for t in nm sort awk sha256sum; do
	command -v $t >/dev/null || die "$t not found"
done

OUT=$BUILD/insnprof
# boot.sh splits QEMU_EXTRA at blanks, QEMU's -plugin option its arguments
# at commas.
case $OUT in *[[:space:],]*) die "build directory $OUT has a blank or comma" ;; esac
KDIR=$(kernel_dir "$variant" bench)
IMAGE=$KDIR/$KIMAGE
VMLINUX=$KDIR/vmlinux
[ -f "$IMAGE" ] && [ -f "$VMLINUX" ] ||
	die "no bench kernel in $KDIR (make kernel ARCH=$arch VARIANT=$variant KIND=bench; this script only boots it)"
# The image is made from vmlinux: a vmlinux newer than the image is a build
# in progress, whose symbols would not match what boots.
[ -n "$(find "$VMLINUX" -newer "$IMAGE")" ] && die "$VMLINUX is newer than $IMAGE: kernel build in progress? Try again when it is done"
mkdir -p "$OUT"

# --- the plugin
SO=$("$TOP/scripts/tcg-plugin.sh" insnprof) || exit 1

# --- guest programs and the two initramfs images. guest.sh runs source.sh
# stock, which must find the tree there (it only extracts a missing one).
[ -f "$BUILD/src/stock/Makefile" ] || die "no $BUILD/src/stock (make source): guest programs need its uapi headers"
"$TOP/scripts/guest.sh" x86_64 "$TOP/bench/mprotect_bench.c" || exit 1
"$BUILD/guest/x86_64/mprotect_bench" --list | awk '{print $1}' | grep -qx -- "$case" ||
	die "unknown case '$case' (mprotect_bench --list)"
"$TOP/scripts/guest.sh" "$arch" "$TOP/guest/init.c" "$TOP/bench/mprotect_bench.c" || exit 1

RUN=$OUT/$arch-$variant-$case
mkdir -p "$RUN"
rm -f "$RUN"/*.prof "$RUN"/*.log "$RUN"/*.check "$RUN"/table.txt
for n in lo hi; do
	case $n in lo) iters=$lo ;; hi) iters=$hi ;; esac
	echo "mprotect_bench --case $case --iters $iters${SIZE:+ --size $SIZE}" >"$RUN/$n.list"
	"$TOP/scripts/initramfs.sh" "$arch" "$RUN/$n.list" "$RUN/$n.cpio" || exit 1
done

# Symbols of the kernel that boots; checksums to notice a rebuild that lands
# between here and the end of the second boot.
sums() { sha256sum "$IMAGE" "$VMLINUX" | awk '{ print $1 }' | tr '\n' ' '; }
sum0=$(sums)
nm -n "$VMLINUX" | awk 'NF == 3 && $2 ~ /^[tTwW]$/ { print $1, 0, $3 }' >"$RUN/syms" ||
	die "nm $VMLINUX failed"
[ -s "$RUN/syms" ] || die "no text symbols in $VMLINUX"

for n in lo hi; do
	case $n in lo) iters=$lo ;; hi) iters=$hi ;; esac
	rm -f "$RUN/$n.prof"
	export QEMU_EXTRA="-plugin $SO,out=$RUN/$n.prof"
	step "insnprof boot $arch $variant $case iters=$iters" \
		"$RUN/$n.check" "$TOP/scripts/boot.sh" "$arch" "$variant" bench icount \
		"$RUN/$n.cpio" "$RUN/$n.log" || die "boot failed (console: $RUN/$n.log)"
	unset QEMU_EXTRA
	[ -s "$RUN/$n.prof" ] || die "no profile $RUN/$n.prof (plugin message in $RUN/$n.log?)"
	# One record of the case, not skipped (bench/report field says why not).
	"$TOP/bench/report" field "$RUN/$n.log" "$case" case >/dev/null ||
		die "no usable BENCH record of $case in $RUN/$n.log"
done
[ "$(sums)" = "$sum0" ] || die "the kernel in $KDIR changed during the profile (rebuilt?): run again"

# bf lo|hi KEY: a field of that run's BENCH record.
bf() {
	"$TOP/bench/report" field "$RUN/$1.log" "$case" "$2"
}
for n in lo hi; do
	for k in iters ptes calls insns insns_sum; do
		bf $n $k 2>/dev/null | grep -Eqx '[0-9]+' || die "no $k= in the BENCH line of $RUN/$n.log"
	done
done
[ "$(bf lo iters)" = "$lo" ] && [ "$(bf hi iters)" = "$hi" ] ||
	die "BENCH iters=$(bf lo iters)/$(bf hi iters), asked for $lo/$hi"

# funcs PROF: "function insns tb_execs mem_accesses" per function. Symbols
# (tag 0) and TB records (tag 1) sorted together by address as fixed-width
# hex strings: a TB belongs to the last symbol at or before its start.
funcs() {
	awk '{ printf "%s 1 %.0f %s %.0f\n", $1, $2 * $3, $3, $4 }' "$1" | cat "$RUN/syms" - | LC_ALL=C sort -k1,1 -k2,2n |
		awk '$2 == 0 { f = $3; next }
		     { k = f == "" ? "[below-first-text-symbol]" : f; ins[k] += $3; ex[k] += $4; mem[k] += $5 }
		     END { for (k in ins) printf "%s %.0f %.0f %.0f\n", k, ins[k], ex[k], mem[k] }' | LC_ALL=C sort
}
funcs "$RUN/lo.prof" >"$RUN/lo.funcs"
funcs "$RUN/hi.prof" >"$RUN/hi.funcs"

{
	echo "insnprof $arch $variant $case: iters $lo -> $hi (kernel $KDIR)"
	awk -v lo_f="$RUN/lo.funcs" -v dptes=$(($(bf hi ptes) - $(bf lo ptes))) \
		-v dcalls=$(($(bf hi calls) - $(bf lo calls))) -v diters=$((hi - lo)) \
		-v lo_sum="$(bf lo insns_sum)" -v hi_sum="$(bf hi insns_sum)" -v hi_insns="$(bf hi insns)" \
		-v hi_ptes="$(bf hi ptes)" -v hi_calls="$(bf hi calls)" -v hi_iters="$hi" '
	BEGIN {
		while ((getline l < lo_f) > 0) { split(l, a, " "); lo[a[1]] = a[2]; loex += a[3]; lomem += a[4] }
	}
	{ d[$1] = $2 - lo[$1]; seen[$1] = 1; hiex += $3; himem += $4 }
	END {
		for (f in lo) if (!(f in seen)) d[f] = -lo[f]
		tot = 0
		for (f in d) tot += d[f]
		printf "extra: %d iterations, %d calls, %d PTEs (%.0f PTEs/call, %.0f PTEs/iteration, from the BENCH lines)\n",
			diters, dcalls, dptes, dptes / dcalls, dptes / diters
		printf "%-40s %10s %7s %12s\n", "function", "insns/PTE", "share%", "insns/call"
		# Functions below 0.005 insns/PTE either way go into one line.
		no = 0; other = 0
		for (f in d) {
			if (d[f] == 0)
				continue
			p = d[f] / dptes
			if (p < 0.005 && p > -0.005) { other += d[f]; no++; continue }
			printf "%-40s %10.3f %7.2f %12.1f\n", f, p, 100 * d[f] / tot, d[f] / dcalls | "sort -k2,2gr"
		}
		close("sort -k2,2gr")
		printf "%-40s %10.3f %7.2f %12.1f\n", "[" no " functions below 0.005]", other / dptes, 100 * other / tot, other / dcalls
		printf "%-40s %10.3f %7.2f %12.1f\n", "total (plugin, kernel text)", tot / dptes, 100, tot / dcalls
		# Per PTE, what emulated wall time weighs besides instructions:
		# blocks run (each a dispatch under TCG) and memory accesses.
		printf "%-40s %10.3f %7s %12.1f\n", "translation blocks run (kernel text)", (hiex - loex) / dptes, "", (hiex - loex) / dcalls
		printf "%-40s %10.3f %7s %12.1f\n", "memory accesses (plugin, kernel text)", (himem - lomem) / dptes, "", (himem - lomem) / dcalls
		bench = hi_insns / hi_ptes
		sumd = (hi_sum - lo_sum) / dptes
		printf "%-40s %10.3f %7s %12.1f\n", "BENCH per_pte (iters=" hi_iters ", median block)", bench, "", hi_insns / hi_calls
		printf "%-40s %10.3f %7s %12.1f\n", "BENCH insns_sum difference", sumd, "", (hi_sum - lo_sum) / dcalls
		printf "plugin/BENCH per_pte %.4f, plugin/insns_sum difference %.4f (rest of the latter: user space, background work, %.2f insns/PTE)\n",
			tot / dptes / bench, tot / dptes / sumd, sumd - tot / dptes
		r = tot / dptes / bench
		if (r < 0.97 || r > 1.03) printf "WARNING: plugin total and BENCH per_pte differ by more than 3%%\n"
	}' "$RUN/hi.funcs"
	# Per TB of the difference: function+offset, length, executions and
	# instructions per PTE. A TB whose length differs between translations
	# (icount cuts some short) has one line per length.
	awk -v lo_f="$RUN/lo.prof" '
	BEGIN { while ((getline l < lo_f) > 0) { split(l, a, " "); lo[a[1] " " a[2]] = a[3] } }
	{ k = $1 " " $2; c = $3 - lo[k]; seen[k] = 1; if (c) printf "%s 1 %s %.0f\n", $1, $2, c }
	END { for (k in lo) if (!(k in seen)) { split(k, a, " "); printf "%s 1 %s %.0f\n", a[1], a[2], -lo[k] } }' "$RUN/hi.prof" |
		cat "$RUN/syms" - | LC_ALL=C sort -k1,1 -k2,2n |
		awk -v dptes=$(($(bf hi ptes) - $(bf lo ptes))) '
		# The low 48 bits of a 16-digit hex address, exact in a double.
		function hex(s,    i, v) {
			v = 0
			for (i = 5; i <= 16; i++) v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
			return v
		}
		$2 == 0 { f = $3; fa = $1; next }
		{ printf "%s %d %.6f %.6f\n", (f == "" ? $1 : sprintf("%s+0x%x", f, hex($1) - hex(fa))),
			$3, $4 / dptes, $3 * $4 / dptes }' >"$RUN/tbs"
	# How often the code runs tells per-PTE loops from per-folio, per-table
	# and per-call work (one TB run per PTE: 1; once per 16-PTE folio in
	# one of the two directions: 1/32; once per call: 1/PTEs-per-call).
	echo
	echo "by how often a TB runs (once every N PTEs):"
	awk '{ e = $3; b = e >= 1 / 4 ? 1 : e >= 1 / 128 ? 2 : e >= 1 / 4096 ? 3 : 4; s[b] += $4; t += $4 }
	END {
		split("N <= 4 (per-PTE loops)|4 < N <= 128 (per small folio / contpte block)|128 < N <= 4096 (per page table / PMD-sized folio)|N > 4096 (per call, per VMA, background)", l, "|")
		for (b = 1; b <= 4; b++) printf "%-52s %10.3f %7.2f\n", l[b], s[b], t ? 100 * s[b] / t : 0
	}' "$RUN/tbs"
	# The hottest TBs: which code in a function the instructions are
	# (inlined callees have no symbol of their own).
	echo
	echo "hottest translation blocks (start as function+offset):"
	printf "%-48s %6s %10s %10s\n" "TB" "insns" "execs/PTE" "insns/PTE"
	sort -k4,4gr "$RUN/tbs" | head -n "${TOP_TBS:-20}" |
		awk '{ printf "%-48s %6d %10.4f %10.3f\n", $1, $2, $3, $4 }'
} >"$RUN/table.txt" || die "table failed"
cat "$RUN/table.txt"
