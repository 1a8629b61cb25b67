#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# results.sh: console logs -> CSV of raw benchmark results.
#
#   bench/results.sh [-o FILE] ARCH:VARIANT:LOG [ARCH:VARIANT:LOG ...]
#
# Each LOG is one boot's console (or any file with "BENCH case=..." lines).
# VARIANT is "stock", "patched" or "mainline" (the third kernel, 7.2).  Giving the same ARCH:VARIANT several
# times (wall-clock mode: boots A B A B ...) numbers the runs 1, 2, ... in
# argument order; table.sh pairs run i of stock with run i of patched.
#
# Metadata comes from the environment and is written as "# key=value" lines:
#   BENCH_MODE (icount|wall, default icount), BENCH_KERNEL, BENCH_CONFIG_HASH,
#   BENCH_SERIES_HASH, BENCH_QEMU, BENCH_MAINLINE (the third kernel's
#   version, if any), BENCH_ARGS (the guest's command line, if given),
#   BENCH_DATE (default: now, UTC).
# BENCH_STAT=min takes each case's cheapest timed block (min_block=, scaled
# to the whole loop) instead of the median one (insns=): for wall time,
# which the host can only lengthen.
#
# CSV columns: arch,variant,run,case,insns,calls,ptes,per_pte,faults,folio,status
# status is "ok" or "skipped:<reason>" (a case the guest could not run).
set -eu

usage() {
	echo "usage: $0 [-o FILE] ARCH:VARIANT:LOG..." >&2
	exit 2
}

out=
while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || usage; out=$2; shift 2 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "$0: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage

mode=${BENCH_MODE:-icount}
case $mode in
icount|wall) ;;
*) echo "$0: BENCH_MODE must be icount or wall" >&2; exit 2 ;;
esac
stat=${BENCH_STAT:-median}
case $stat in
median|min) ;;
*) echo "$0: BENCH_STAT must be median or min" >&2; exit 2 ;;
esac

# Check the arguments before writing anything.
for spec in "$@"; do
	arch=${spec%%:*}
	rest=${spec#*:}
	variant=${rest%%:*}
	log=${rest#*:}
	if [ "$arch" = "$spec" ] || [ "$variant" = "$rest" ] ||
	   [ -z "$log" ] || ! printf '%s' "$arch" | grep -Eq '^[A-Za-z0-9_-]+$'
	then
		echo "$0: bad argument '$spec' (want ARCH:VARIANT:LOG)" >&2
		exit 2
	fi
	case $variant in
	stock|patched|mainline) ;;
	*) echo "$0: variant must be stock, patched or mainline: '$spec'" >&2; exit 2 ;;
	esac
	if [ ! -r "$log" ]; then
		echo "$0: cannot read $log" >&2
		exit 2
	fi
done

emit() {
	echo "# mode=$mode"
	[ "$stat" = median ] || echo "# stat=$stat"
	echo "# kernel=${BENCH_KERNEL:-unknown}"
	echo "# config_hash=${BENCH_CONFIG_HASH:-unknown}"
	echo "# series_hash=${BENCH_SERIES_HASH:-unknown}"
	echo "# qemu=${BENCH_QEMU:-unknown}"
	[ -z "${BENCH_MAINLINE:-}" ] || echo "# mainline=$BENCH_MAINLINE"
	[ -z "${BENCH_ARGS:-}" ] || echo "# args=$BENCH_ARGS"
	echo "# date=${BENCH_DATE:-$(date -u +%Y-%m-%dT%H:%M:%SZ)}"
	echo "arch,variant,run,case,insns,calls,ptes,per_pte,faults,folio,status"
	for spec in "$@"; do
		arch=${spec%%:*}
		rest=${spec#*:}
		variant=${rest%%:*}
		log=${rest#*:}
		# One record per BENCH line of this log.
		awk -v arch="$arch" -v variant="$variant" -v stat="$stat" '
		{
			sub(/\r+$/, "")
			i = index($0, "BENCH case=")
			if (!i)
				next
			n = split(substr($0, i + 6), f, " ")
			split("", kv)
			for (j = 1; j <= n; j++) {
				e = index(f[j], "=")
				if (e)
					kv[substr(f[j], 1, e - 1)] = substr(f[j], e + 1)
			}
			c = kv["case"]
			if (c !~ /^[A-Za-z0-9_.-]+$/)
				next
			if (f[2] == "skipped") {
				r = kv["reason"]
				gsub(/[^A-Za-z0-9_.-]/, "_", r)
				fo = kv["folio"]
				if (fo !~ /^[0-9]+[KMG]$/)
					fo = ""
				printf "%s,%s,%s,,,,,,%s,skipped:%s\n", arch, variant,
				       c, fo, r
				next
			}
			if (stat == "min") {
				if (kv["min_block"] !~ /^[0-9]+$/ || kv["ptes"] + 0 == 0)
					next
				kv["insns"] = kv["min_block"]
				kv["per_pte"] = sprintf("%.2f", kv["insns"] / kv["ptes"])
			}
			# A console line garbled by kernel messages is dropped.
			if (kv["insns"] !~ /^[0-9]+$/ || kv["ptes"] !~ /^[0-9]+$/ ||
			    kv["calls"] !~ /^[0-9]+$/ ||
			    kv["faults"] !~ /^-?[0-9]+$/ ||
			    kv["per_pte"] !~ /^[0-9.]+$/ ||
			    kv["folio"] !~ /^[0-9]+[KMG]$/)
				next
			printf "%s,%s,%s,%s,%s,%s,%s,%s,%s,ok\n", arch, variant, c,
			       kv["insns"], kv["calls"], kv["ptes"],
			       kv["per_pte"], kv["faults"], kv["folio"]
		}' "$log"
	done | awk -F, -v OFS=, '
	# Number the runs per (arch, variant, case) in argument order.
	{
		k = $1 SUBSEP $2 SUBSEP $3
		run[k]++
		rest = $3
		for (i = 4; i <= NF; i++)
			rest = rest OFS $i
		print $1, $2, run[k], rest
	}'
}

if [ -n "$out" ]; then
	tmp=$out.tmp.$$
	trap 'rm -f "$tmp"' EXIT
	emit "$@" >"$tmp"
	mv "$tmp" "$out"
	trap - EXIT
else
	emit "$@"
fi
