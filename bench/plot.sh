#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# plot.sh: patched/stock ratio vs folio size, one line per arch.
#
#   bench/plot.sh [-o OUT.png] [-s OUT.svg] CSV...
#
# Points: the RO<->RW sweep rorw-4k, rorw-16k ... rorw-1m and, at 2M, the
# PTE-mapped THP (rorw-thp-pte); x axis log2 from 4K to 2M.  Missing
# results are left out of the line.  Default output: bench-ratio.png.
# Needs gnuplot (Debian: gnuplot-nox).
set -eu

here=$(cd "$(dirname "$0")" && pwd)
png=
svg=

usage() {
	echo "usage: $0 [-o OUT.png] [-s OUT.svg] CSV..." >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	-o) [ $# -ge 2 ] || usage; png=$2; shift 2 ;;
	-s) [ $# -ge 2 ] || usage; svg=$2; shift 2 ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "$0: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
[ -n "$png$svg" ] || png=bench-ratio.png
for f in "$@"; do
	if [ ! -r "$f" ]; then
		echo "$0: cannot read $f" >&2
		exit 2
	fi
done
if ! command -v gnuplot >/dev/null 2>&1; then
	echo "$0: gnuplot not found (apt-get install gnuplot-nox)" >&2
	exit 2
fi

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

# One data file per arch: "<folio KiB> <ratio> <label>".
awk -f "$here/ratios.awk" "$@" | awk -v dir="$tmp" '
function kib(s) {
	if (s ~ /M$/)
		return substr(s, 1, length(s) - 1) * 1024
	return substr(s, 1, length(s) - 1) + 0
}
$1 == "M" {
	print $2 > (dir "/mode")
	next
}
$1 == "R" && $6 != "-" &&
($3 == "rorw-thp-pte" || ($3 ~ /^rorw-[0-9]+[km]$/)) {
	if (!($2 in seen)) {
		seen[$2] = 1
		print $2 > (dir "/arches")
	}
	printf "%d %s %s\n", kib($4), $6, $3 > (dir "/" $2 ".dat")
}'

if [ ! -s "$tmp/arches" ]; then
	echo "$0: no RO<->RW sweep results to plot" >&2
	exit 1
fi
mode=$(cat "$tmp/mode")
if [ "$mode" = wall ]; then
	ylabel="patched / stock (emulated wall time, median of pairs)"
else
	ylabel="patched / stock (guest instructions)"
fi

plots=
lt=0
for a in $(cat "$tmp/arches"); do
	lt=$((lt + 1))
	sort -n "$tmp/$a.dat" >"$tmp/$a.sorted"
	plots="$plots${plots:+, }'$tmp/$a.sorted' using 1:2 with linespoints lt $lt lw 2 pt 7 title '$a'"
	# The arch's large-folio target (lowest target below 1), dashed.
	t=$(awk -v a="$a" '!/^#/ && ($1 == a || $1 == "*") && $3 + 0 < 1 &&
		(m == "" || $3 + 0 < m) { m = $3 + 0 } END { print m }' \
		"$here/targets")
	if [ -n "$t" ]; then
		plots="$plots, $t with lines lt $lt dt 3 title '$a target'"
	fi
done

for out in $png $svg; do
	case $out in
	*.svg) term="svg size 800,500 dynamic" ;;
	*) term="pngcairo size 800,500" ;;
	esac
	gnuplot <<EOF
set terminal $term
set termoption noenhanced
set output '$out'
set title "mprotect() RO<->RW: patched vs stock 6.12 (2M point: PTE-mapped THP)"
set logscale x 2
set xrange [3:2800]
set xtics ("4K" 4, "16K" 16, "32K" 32, "64K" 64, "128K" 128, "256K" 256, "512K" 512, "1M" 1024, "2M" 2048)
set xlabel "folio size"
set ylabel "$ylabel"
set yrange [0:*]
set grid
set key top right
plot $plots, 1 with lines dt 2 lc rgb "gray" title "no change"
EOF
	echo "$out"
done
