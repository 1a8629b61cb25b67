#!/bin/sh
# bench.sh: stock vs patched mprotect() benchmark (make bench).
# Per arch: build both bench kernels, boot each REPEAT times under
# -icount shift=0,sleep=off (guest instructions; the runs must agree exactly),
# then WALL_PAIRS A/B pairs without icount (emulated wall time, every case's
# iterations times WALL_SCALE: windows long enough to be stable). Prints a
# table per arch and mode, writes raw CSV + metadata and a ratio plot under
# build/bench/.
# Options (environment): ARCHES, CASES=a,b,c (default all), SIZE=32M,
# ITERS=40, FULL=1 (1 GiB regions), REPEAT=2, WALL_PAIRS=6, WALL_SCALE=5,
# WALL_ROUNDS=10 (each case's wall-time iterations split over this many
# rounds through all the cases), NOBUILD=1,
# TLBCOUNT=no (skip the TLB flush counts, scripts/tlbcount.sh), CACHE=no
# (skip the cache misses of the cache model, scripts/cachesim.sh, whose
# CACHE_MEMS, L1D, LLC and LINE it passes on), WALL_AA=1
# (wall pairs of stock against stock: the emulation's own spread),
# WALL_STAT=median (wall time from each case's median timed block; the
# default, min, takes its cheapest, which narrows the spread of stock against
# itself, results/6.12-v8/wall-aa-min/),
# MAINLINE=no (skip the third kernel: Debian unstable's 7.2, mainline with
# its own mprotect() batching, built from the same fragments and booted
# REPEAT times under icount beside the two 6.12 kernels),
# ML_EDITION=no (skip the mainline edition: 7.2 with the three series of
# patches/mainline/series and 7.2 with its batching taken out, booted like
# 7.2; its tables are the configs "<config>-ml"), ML_CONFIGS (the configs that
# get it; default: all of ARCHES), ML_SERIES (the series of the edition
# booted alone, default "fixes lookup arm64", arm64 only on arm64; "no"
# for none. Each is 7.2 with patches/mainline/NAME, booted like the
# edition on the configs of ML_SERIES_CONFIGS that get it, default
# "x86_64 arm64", and the patched column of a table of its own,
# table-series-NAME.txt, for its cover letter).
. "$(dirname "$0")/lib.sh"

# The benchmark's config matrix: the distribution-like configs (x86_64,
# arm64 with 48-bit VA), and the same arches built for size (-os) and, on
# arm64, with 6.12's default 52-bit VA (-va52, Debian 13's layout) and
# with Android GKI's 39-bit VA (-va39). Records with BENCH_MODES=icount
# get no wall-time pairs, no TLB counts and no cache model.
ARCHES=${ARCHES:-x86_64 arm64 x86_64-os arm64-os arm64-va52 arm64-va39}
REPEAT=${REPEAT:-2}
# Six pairs, five times the iterations, over ten rounds: with 3 pairs of
# the icount windows in one round, wall-time ratios of stock against
# itself spread up to 1.8; this is what results/6.12-v8/wall-ab/
# measured (stock against itself: x86_64 35/45 case medians within 2%).
WALL_PAIRS=${WALL_PAIRS:-6}
WALL_SCALE=${WALL_SCALE:-5}
# A slow phase of the host outlasts a case's whole window; spread over ten
# rounds through all the cases, a case meets it with a part of its blocks.
WALL_ROUNDS=${WALL_ROUNDS:-10}
CASES=${CASES:-all}
[ -n "$FULL" ] && SIZE=${SIZE:-1G}
args="--case $CASES"
[ -n "$SIZE" ] && args="$args --size $SIZE"
[ -n "$ITERS" ] && args="$args --iters $ITERS"
case $REPEAT$WALL_PAIRS$WALL_SCALE$WALL_ROUNDS in *[!0-9]*) die "REPEAT, WALL_PAIRS, WALL_SCALE and WALL_ROUNDS must be numbers" ;; esac
for arch in $ARCHES; do load_arch "$arch"; done
ML_SERIES=${ML_SERIES:-fixes lookup arm64}
case " $ML_SERIES " in *" no "*)
	[ "$ML_SERIES" = no ] || die "ML_SERIES: 'no' with series names"
	ML_SERIES= ;;
esac
for ser in $ML_SERIES; do
	case $ser in fixes | lookup | arm64) ;;
	*) die "unknown series '$ser' in ML_SERIES (fixes, lookup, arm64 or no)" ;;
	esac
done

OUT=$BUILD/bench
mkdir -p "$OUT"
rm -f "$OUT/tlb-failed" "$OUT/cache-failed"
"$TOP/scripts/guest.sh" x86_64 "$TOP/bench/mprotect_bench.c" || exit 1
# Validate the options here, before any boot: the host runs x86_64 binaries.
known=$("$BUILD/guest/x86_64/mprotect_bench" --list | awk '{print $1}')
for c in $(echo "$CASES" | tr , ' '); do
	[ "$c" = all ] || echo "$known" | grep -qx "$c" ||
		die "unknown case '$c' (cases: $(echo $known))"
done
echo "${SIZE:-1M}" | grep -Eqx '[1-9][0-9]*[KMG]?' || die "bad SIZE '$SIZE' (e.g. 32M, 1G)"
echo "${ITERS:-1}" | grep -Eqx '[1-9][0-9]*' || die "bad ITERS '$ITERS'"
"$BUILD/guest/x86_64/mprotect_bench" $args --scale "$WALL_SCALE" --rounds "$WALL_ROUNDS" --list >/dev/null ||
	die "bad WALL_SCALE '$WALL_SCALE' or WALL_ROUNDS '$WALL_ROUNDS' (mprotect_bench --scale, --rounds)"

# cpu_ticks: all CPU ticks of this machine and its steal ticks, from
# /proc/stat; steal_since TICKS: the share stolen since then.
cpu_ticks() { awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i; print t, $9 }' /proc/stat; }
steal_since() {
	echo "$1 $(cpu_ticks)" | awk '{ d = $3 - $1; printf "steal %.1f%%\n", (d > 0 ? 100 * ($4 - $2) / d : 0) }'
}
rm -f "$OUT/wall-host.txt"
LIST=$OUT/bench.list
echo "mprotect_bench $args" >"$LIST"
echo "mprotect_bench $args --scale $WALL_SCALE --rounds $WALL_ROUNDS" >"$OUT/bench-wall.list"
: >"$OUT/icount.args"
rm -f "$OUT"/series-*.args "$OUT"/table-series-*.txt
: >"$OUT/wall.args"
configs=
for arch in $ARCHES; do
	load_arch "$arch"
	"$TOP/scripts/guest.sh" "$arch" "$TOP/guest/init.c" "$TOP/bench/mprotect_bench.c" || exit 1
	variants="stock patched"
	[ "${MAINLINE:-yes}" = no ] || variants="$variants mainline"
	if [ "${MAINLINE:-yes}" != no ] && [ "${ML_EDITION:-yes}" != no ]; then
		case " ${ML_CONFIGS:-$ARCHES} " in
		*" $arch "*) variants="$variants mainline-nobatch mainline-patched" ;;
		esac
	fi
	# The cache model takes the kernels above, not the series alone.
	main_variants=$variants
	series=
	case $variants in *mainline-patched*)
		case " ${ML_SERIES_CONFIGS:-x86_64 arm64} " in *" $arch "*)
			for ser in $ML_SERIES; do
				# The arm64 series changes only arm64 code.
				case $ser in
				arm64) [ "$KARCH" = arm64 ] && series="$series arm64" ;;
				*) series="$series $ser" ;;
				esac
			done ;;
		esac ;;
	esac
	for ser in $series; do variants="$variants mainline-$ser"; done
	for v in $variants; do
		# NOBUILD=1: use the kernels as built (e.g. while another build runs).
		if [ -n "$NOBUILD" ]; then
			[ -f "$(kernel_dir "$v" bench)/$KIMAGE" ] || die "no $arch $v bench kernel"
		else
			"$TOP/scripts/kernel.sh" "$arch" "$v" bench || exit 1
		fi
	done
	# The configs the CSVs' config_hash stands for: these kernels only.
	for v in $variants; do configs="$configs $(kernel_dir "$v" bench)/.config"; done
	"$TOP/scripts/initramfs.sh" "$arch" "$LIST" "$OUT/$arch.cpio" || exit 1
	"$TOP/scripts/initramfs.sh" "$arch" "$OUT/bench-wall.list" "$OUT/$arch-wall.cpio" || exit 1
	# boot1 VARIANT MODE N [AS]: one boot, its log named for the arg
	# list; AS: the column it counts as (default VARIANT).
	boot1() {
		as=${4:-$1}
		log=$OUT/$arch-$as-$2-$3.log
		s=$(date +%s)
		c0=$(cpu_ticks)
		cpio=$OUT/$arch.cpio
		[ "$2" = wall ] && cpio=$OUT/$arch-wall.cpio
		if BOOT_TIMEOUT=${BOOT_TIMEOUT:-3600} "$TOP/scripts/boot.sh" "$arch" "$1" bench "$2" "$cpio" "$log" >"$log.check"; then
			# Wall time: how much of the host's CPU time its own host
			# took (steal) while this boot ran, the noise no
			# statistic of the guest's can see.
			st=
			if [ "$2" = wall ]; then
				st=$(steal_since "$c0")
				echo "$arch $as $3 $st" >>"$OUT/wall-host.txt"
				st=", host $st"
			fi
			printf '[%5ss] %-44s ok (%ss%s)\n' "$(($(date +%s) - T0))" "bench $arch $1 $2 run $3${4:+ as $4}" "$(($(date +%s) - s))" "$st"
		else
			printf '[%5ss] %-44s FAILED: %s\n' "$(($(date +%s) - T0))" "bench $arch $1 $2 run $3${4:+ as $4}" "$(cat "$log.check")"
		fi
		[ -z "$norecord" ] && echo "$arch:$as:$log" >>"$OUT/$2.args"
	}
	norecord=
	# pairs MODE N: N boots of stock and patched in turns (A B A B ...).
	# WALL_AA=1: the wall pairs boot stock twice (A A): the spread of the
	# emulation itself, on one kernel, in the "patched" column.
	pairs() {
		i=1
		while [ $i -le "$2" ]; do
			boot1 stock "$1" $i
			if [ -n "$WALL_AA" ] && [ "$1" = wall ]; then
				boot1 stock "$1" $i patched
			else
				boot1 patched "$1" $i
			fi
			i=$((i + 1))
		done
	}
	# has_mode MODE: the record measures MODE (BENCH_MODES; default all).
	has_mode() {
		case " ${BENCH_MODES:-icount wall tlb cache} " in *" $1 "*) return 0 ;; esac
		return 1
	}
	pairs icount "$REPEAT"
	case $variants in *mainline*)
		i=1
		while [ $i -le "$REPEAT" ]; do boot1 mainline icount $i; i=$((i + 1)); done ;;
	esac
	# The mainline edition's table, config "$arch-ml": 7.2 with its
	# batching taken out in the stock column (the reference), 7.2 with
	# the series in the patched one, and 7.2 as the third kernel.
	# ml_args VARIANT N FILE: run N of such a table, VARIANT patched.
	ml_args() {
		for c in stock:mainline-nobatch patched:$1 mainline:mainline; do
			echo "$arch-ml:${c%%:*}:$OUT/$arch-${c#*:}-icount-$2.log" >>"$3"
		done
	}
	case $variants in *mainline-patched*)
		i=1 norecord=1
		while [ $i -le "$REPEAT" ]; do
			boot1 mainline-nobatch icount $i
			boot1 mainline-patched icount $i
			ml_args mainline-patched $i "$OUT/icount.args"
			i=$((i + 1))
		done
		norecord= ;;
	esac
	# Each series alone: the edition's table with the series in the
	# patched column, the same boots of 7.2 and of 7.2 without batching
	# ("ser": boot1 sets s).
	for ser in $series; do
		i=1 norecord=1
		while [ $i -le "$REPEAT" ]; do
			boot1 "mainline-$ser" icount $i
			ml_args "mainline-$ser" $i "$OUT/series-$ser.args"
			i=$((i + 1))
		done
		norecord=
	done
	has_mode wall && pairs wall "$WALL_PAIRS"
	# Determinism: every icount run of a variant should report the same
	# insns; print the largest difference between runs if not.
	for v in $variants; do
		ls "$OUT/$arch-$v-icount-"*.log >/dev/null 2>&1 || continue
		[ "$REPEAT" -ge 2 ] || continue
		"$TOP/bench/report" determinism "$arch $v" "$REPEAT" "$OUT/$arch-$v-icount-"*.log
	done
	# TLB flushes per call, the second deterministic metric (kernels with
	# a measurement-only counting patch; TLBCOUNT=no skips them).
	if [ "${TLBCOUNT:-yes}" != no ] && has_mode tlb; then
		"$TOP/scripts/tlbcount.sh" "$arch" "$OUT/$arch.cpio" "$OUT" >"$OUT/table-tlb-$arch.txt" 2>&1 ||
			echo "$arch" >>"$OUT/tlb-failed"
		cat "$OUT/table-tlb-$arch.txt"
	fi
	# Kernel cache misses per PTE, from boots of each kernel under a
	# cache model at several memory layouts (CACHE=no skips them).
	if [ "${CACHE:-yes}" != no ] && has_mode cache; then
		# shellcheck disable=SC2086
		"$TOP/scripts/cachesim.sh" "$arch" "$OUT/$arch.cpio" "$OUT" $main_variants \
			>"$OUT/table-cache-$arch.txt" || echo "$arch" >>"$OUT/cache-failed"
		cat "$OUT/table-cache-$arch.txt"
	fi
done

meta() {
	export BENCH_KERNEL="$(make -s -C "$BUILD/src/stock" kernelversion)"
	# shellcheck disable=SC2086
	export BENCH_CONFIG_HASH="$(cat $configs | sha256sum | cut -c1-12)"
	export BENCH_SERIES_HASH="$(cat "$BUILD/src/patched/.series-hash")"
	[ ! -f "$BUILD/src/mainline-patched/.series-hash" ] ||
		BENCH_SERIES_HASH="$BENCH_SERIES_HASH mainline:$(cat "$BUILD/src/mainline-patched/.series-hash")"
	export BENCH_QEMU="$(qemu-system-x86_64 --version | head -1)"
	[ "${MAINLINE:-yes}" = no ] ||
		export BENCH_MAINLINE="$(make -s -C "$BUILD/src/mainline" kernelversion)"
}
meta
rc=0
stamp=$(date -u +%Y%m%dT%H%M%SZ)
for mode in icount wall; do
	[ -s "$OUT/$mode.args" ] || continue
	csv=$OUT/$mode-$stamp.csv
	# shellcheck disable=SC2046
	stat=median
	[ "$mode" = icount ] || stat=${WALL_STAT:-min}
	list=$LIST
	[ "$mode" = icount ] || list=$OUT/bench-wall.list
	BENCH_ARGS=$(cat "$list") BENCH_MODE=$mode BENCH_STAT=$stat "$TOP/bench/report" csv -o "$csv" $(cat "$OUT/$mode.args") || rc=1
	cp "$csv" "$OUT/$mode-latest.csv"
	if [ "$mode" = icount ]; then
		# Not through a pipe: its status would be tee's.
		"$TOP/bench/report" table "$csv" >"$OUT/table-$mode.txt" || rc=1
		cat "$OUT/table-$mode.txt"
	else
		: >"$OUT/table-$mode.txt"
		[ -z "$WALL_AA" ] || echo "WALL_AA: the patched column is stock booted again (A/A)" | tee -a "$OUT/table-$mode.txt"
		"$TOP/bench/report" table --report-only "$csv" | tee -a "$OUT/table-$mode.txt"
	fi
done
# The series' tables: their targets are the edition's, which only the
# small-folio series claims (its cover letter says which it meets).
for f in "$OUT"/series-*.args; do
	[ -s "$f" ] || continue
	ser=${f##*/series-}
	ser=${ser%.args}
	csv=$OUT/series-$ser-$stamp.csv
	# shellcheck disable=SC2046
	BENCH_ARGS=$(cat "$LIST") BENCH_MODE=icount BENCH_STAT=median \
		BENCH_SERIES_HASH="mainline-$ser:$(cat "$BUILD/src/mainline-$ser/.series-hash")" \
		"$TOP/bench/report" csv -o "$csv" $(cat "$f") || rc=1
	BENCH_ML_PATCHED=patches/mainline/$ser "$TOP/bench/report" table --report-only "$csv" \
		>"$OUT/table-series-$ser.txt" || rc=1
	echo "series $ser alone against 7.2: $OUT/table-series-$ser.txt ($csv)"
done
if [ -s "$OUT/icount.args" ]; then
	"$TOP/bench/plot.sh" -o "$OUT/ratio.png" -s "$OUT/ratio.svg" "$OUT/icount-latest.csv" &&
		echo "plot: $OUT/ratio.png $OUT/ratio.svg"
	echo "raw results: $OUT/icount-$stamp.csv $OUT/wall-$stamp.csv (logs: $OUT/*.log)"
fi
if [ -f "$OUT/tlb-failed" ]; then
	echo "TLB flushes: more than stock, or not counted, on: $(cat "$OUT/tlb-failed" | tr '\n' ' ')"
	rc=1
fi
if [ -f "$OUT/cache-failed" ]; then
	echo "cache misses: more than stock, or not counted, on: $(cat "$OUT/cache-failed" | tr '\n' ' ')"
	rc=1
fi
exit $rc
