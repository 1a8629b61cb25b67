#!/bin/sh
# contpte-flushes.sh [SERIES_DIR]: on arm64, show that our tests take each
# TLB flush of the batched contpte protection commit (the arm64 patch of
# SERIES_DIR, default patches/). Those flushes keep break-before-make;
# QEMU TCG models no TLB conflict abort, so no test can fail for a missing
# one. Instead tests/contpte-flushes.patch, on top of the series, counts
# each kind of flush and prints it at its 1st, 2nd, 4th, ... time, and
# mprotect_folios (with its extra checks, NUMA hinting among them) and
# mprotect_stress run on that arm64 test kernel
# (variant contpte-flushes). Fails if a test fails or a kind of flush never
# shows, but for fold-protnone: PROT_NONE entries folded while another
# thread's flush is pending (a NUMA hinting scan against uffd-wp's
# un-protect), a race no test builds. Prints the count of each kind.
. "$(dirname "$0")/../scripts/lib.sh"

series=${1:-$TOP/patches}
[ -f "$series/series" ] || die "no series file in $series"
v=contpte-flushes
dir=$BUILD/series/$v
rm -rf "$dir" && mkdir -p "$dir" &&
	cp "$series"/*.patch "$series/series" "$TOP/tests/$v.patch" "$dir/" &&
	echo "$v.patch" >>"$dir/series" || die "cannot make $dir"
"$TOP/scripts/kernel.sh" arm64 $v test || exit 1
"$TOP/scripts/guest.sh" arm64 || exit 1

list=$BUILD/runs/$v.list
mkdir -p "$BUILD/runs"
printf '%s\n' "@60 smoke --nodes 2 --swap --xfs" "@600 mprotect_folios /mnt/xfs" \
	"@300 mprotect_folios_extra" "@300 mprotect_stress" >"$list"
results=$BUILD/runs/$v.results
: >"$results"
RESULTS=$results SKIPS=$TOP/tests/skips/arm64.list \
	"$TOP/scripts/run-guest.sh" arm64 $v test test "$list" arm64-$v
fail=$(awk '{ f += $3 } END { print f + 0 }' "$results")

for kind in fold fold-protnone invalid part-end; do
	n=$(tr -d '\r' <"$BUILD/runs/arm64-$v.log" |
		sed -n "s/.*contpte-flush: $kind \([0-9][0-9]*\)$/\1/p" |
		sort -n | tail -n 1)
	echo "flush $kind: ${n:-0} or more"
	[ -n "$n" ] || [ $kind = fold-protnone ] || fail=$((fail + 1))
done
[ "$fail" = 0 ]
