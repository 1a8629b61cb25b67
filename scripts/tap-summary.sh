#!/bin/sh
# tap-summary.sh LABEL LOG: count the results of the programs a guest ran
# (scripts/tap-records.sh reads them; only those in $PROGS if set), print
# failures (skips too with VERBOSE=1), and append "LABEL pass fail skip" to
# $RESULTS (default build/results.txt). An incomplete TAP stream, a
# non-zero exit without a failing result and a missing END marker are
# failures (see tap-records.sh). With SKIPS=FILE (tests/skips/ARCH.list), a
# skip that FILE does not list (program<TAB>test<TAB>reason) is a failure;
# an entry "program<TAB>test<TAB>expected failure: why" makes that test's
# failure count as skipped, printed as XFAIL (a kernel bug that the test
# shows on stock and patched alike), and its pass a pass, printed as XPASS
# (the bug is a race that a run may miss).
# A named test that fails prints "  FAIL LABEL prog: test"; anything else
# "  FAIL LABEL prog (what)".
label=$1 log=$2
RESULTS=${RESULTS:-$(dirname "$0")/../build/results.txt}
# A boot that left no log (it never ran) is a failure, not 0 results.
if [ ! -f "$log" ]; then
	echo "  FAIL $label (no log: $log)"
	echo "$label 0 1 0" >>"$RESULTS"
	printf '%-36s 0 passed, 1 failed, 0 skipped\n' "$label:"
	exit 0
fi
if [ -n "$SKIPS" ] && [ ! -f "$SKIPS" ]; then
	echo "  FAIL $label (no expected-skip list $SKIPS)"
	echo "$label 0 1 0" >>"$RESULTS"
	exit 0
fi
"$(dirname "$0")/tap-records.sh" "$log" |
awk -F'\t' -v label="$label" -v results="$RESULTS" -v verbose="${VERBOSE:-}" -v skips="$SKIPS" '
BEGIN {
	while (skips != "" && (getline l < skips) > 0) {
		if (l ~ /^#/) continue
		if (split(l, f, "\t") == 3 && f[3] ~ /^expected failure: /)
			xfail[f[1] "\t" f[2]] = substr(f[3], 19)
		else
			expected[l] = 1
	}
}
$3 == "ok" { pass++
	if (($1 "\t" $2) in xfail) print "  XPASS " label " " $1 ": " $2 " (expected to fail: " xfail[$1 "\t" $2] ")"
	next }
$3 == "fail" && (($1 "\t" $2) in xfail) {
	skip++
	print "  XFAIL " label " " $1 ": " $2 " (" xfail[$1 "\t" $2] ")"
	next }
$3 == "skip" && (skips == "" || (($1 "\t" $2 "\t" $4) in expected)) {
	skip++
	if (verbose || $4 == "(exit 4)") print "  SKIP " label " " $1 ": " $2 " (" $4 ")"
	next }
$3 == "skip" { fail++; print "  FAIL " label " " $1 ": unexpected skip: " $2 " (" $4 ")"; next }
$2 ~ /^\(/ { fail++; print "  FAIL " label " " $1 " " $2 ($4 == "" ? "" : " " $4); next }
{ fail++; print "  FAIL " label " " $1 ": " $2 }
END {
	printf "%s %d %d %d\n", label, pass, fail, skip >> results
	printf "%-36s %d passed, %d failed, %d skipped\n", label ":", pass, fail, skip
}'
