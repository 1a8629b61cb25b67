#!/bin/sh
# kselftest-compare.sh LABEL STOCK_LOG PATCHED_LOG: the patched kernel may
# have no selftest failure that stock does not have. Patched results count
# as passed or failed; a failure stock shares is counted as skipped, named
# in the output, and listed, with stock's own skips, in
# build/runs/LABEL-stock-baseline.txt. Both kernels are the test (debug)
# kernels of one configuration: like is compared with like.
# Results come from scripts/tap-records.sh (only the programs in $PROGS, if
# set): an incomplete TAP stream, a non-zero exit without a failing result
# or a missing END marker is a failure there; a program the guest ran
# twice ("@@@ RETRY", see tests/kselftests.list) counts by its second run,
# and the retry is printed, so a flaky test stays visible. A patched
# failure is printed with the diagnostics its program printed before it.
# Appends "LABEL pass fail skip" to $RESULTS.
label=$1 stock=$2 patched=$3
RESULTS=${RESULTS:-$(dirname "$0")/../build/results.txt}
for l in "$stock" "$patched"; do
	[ -f "$l" ] && continue
	echo "  FAIL $label (no log: $l)"
	echo "$label 0 1 0" >>"$RESULTS"
	exit 0
done
base=$(dirname "$patched")/$label-stock-baseline.txt
# retries LOG KERNEL: say which programs failed once and were run again.
retries() {
	grep -a '^@@@ RETRY ' "$1" | tr -d '\r' | while read -r _ _ prog; do
		echo "  RETRY $label $prog: failed once on $2, counted by its rerun" \
			"($(grep -a "^@@@ END $prog " "$1" | tr -d '\r' | sed 's/.* rc=\([^ ]*\).*/\1/' | paste -sd' ' -): rc of each run)"
	done
}
retries "$stock" stock
retries "$patched" patched
"$(dirname "$0")/tap-records.sh" "$stock" >"$base.raw"
"$(dirname "$0")/tap-records.sh" "$patched" |
awk -F'\t' -v label="$label" -v results="$RESULTS" -v base="$base.raw" '
BEGIN { while ((getline l < base) > 0) { split(l, r, "\t"); stock[r[1] ": " r[2]] = r[3] } }
{ key = $1 ": " $2 }
$3 == "ok" { p++; next }
$3 == "skip" { s++; next }
stock[key] == "fail" { s++; print "  SHARED " label " " key " (fails on stock too: not counted)"; next }
{ f++; print "  FAIL " label " " key " (stock: " (stock[key] == "" ? "no such result" : stock[key]) ")"
	if ($4 != "") print "       " $4 }
END {
	printf "%s %d %d %d\n", label, p, f, s >> results
	printf "%-36s %d passed, %d failed, %d skipped (incl. failures stock shares)\n", label ":", p, f, s
}'
awk -F'\t' '$3 != "ok" { print $3 "\t" $1 ": " $2 }' "$base.raw" | sort >"$base"
echo "    stock baseline (failures and skips): $base ($(grep -c '^fail' "$base") failed, $(grep -c '^skip' "$base") skipped)"
