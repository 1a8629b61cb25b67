#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# plot.sh: patched/stock ratio vs folio size, one line per arch.
#
#   bench/plot.sh [-o OUT.png] [-s OUT.svg] CSV...
#
# Points (from bench/report plot): the RO<->RW sweep rorw-4k, rorw-16k ...
# rorw-1m and, at 2M, the PTE-mapped THP (rorw-thp-pte); x axis log2 from
# 4K to 2M.  Missing results are left out of the line.  Default output: bench-ratio.png.
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

# One data file per arch: "<folio KiB> <ratio> <label>", by folio size;
# the arch's large-folio target beside it.
"$here/report" plot "$@" >"$tmp/points" || exit 2
awk -v dir="$tmp" '
$1 == "M" { print $2 > (dir "/mode") }
$1 == "A" { print $2 > (dir "/arches"); print $3 > (dir "/" $2 ".target") }
$1 == "P" { print $3, $4, $5 > (dir "/" $2 ".dat") }' "$tmp/points"

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
	plots="$plots${plots:+, }'$tmp/$a.dat' using 1:2 with linespoints lt $lt lw 2 pt 7 title '$a'"
	# The arch's large-folio target (lowest target below 1), dashed.
	t=$(cat "$tmp/$a.target")
	if [ "$t" != - ]; then
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
