#!/bin/sh
# tap-summary.sh LABEL LOG: count the TAP results of each program a guest
# ran (between "@@@ BEGIN" and "@@@ END"; only those in $PROGS if set),
# print failures (skips too with VERBOSE=1), and append
# "LABEL pass fail skip" to $RESULTS (default build/results.txt).
# A program that exits non-zero without a failing TAP line is one failure;
# one that exits 4 (KSFT_SKIP) without TAP lines is one skip. A TAP stream
# that is not complete -- its plan "1..N" announced another number of
# results than it has, or it says "Bail out!" -- is one more failure,
# whatever the exit status. With SKIPS=FILE (tests/skips/ARCH.list), a skip
# that FILE does not list (program<TAB>test<TAB>reason) is a failure.
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
awk -v label="$label" -v results="$RESULTS" -v verbose="${VERBOSE:-}" -v progs=" $PROGS " \
	-v skips="$SKIPS" '
BEGIN {
	while (skips != "" && (getline l < skips) > 0)
		if (l !~ /^#/) expected[l] = 1
}
# A skip that the expected-skip list does not name fails.
function skipped(test, reason) {
	if (skips == "" || ((prog "\t" test "\t" reason) in expected)) { ns++; skip++; return 1 }
	nf++; fail++
	print "  FAIL " label " " prog ": unexpected skip: " test " (" reason ")"
	return 0
}
function flush(rc,   n, why) {
	n = np + nf + ns
	why = ""
	if (plan >= 0 && n != plan) why = "plan 1.." plan ", " n " results"
	if (bail != "") why = why (why == "" ? "" : ", ") bail
	if (why != "") { nf++; fail++; print "  FAIL " label " " prog " (incomplete TAP: " why "; exit " rc ")" }
	else if (rc == "4" && n == 0) { if (skipped("", "(exit 4)")) print "  SKIP " label " " prog " (exit 4)" }
	else if (rc != "0" && rc != "4" && nf == 0) { fail++; print "  FAIL " label " " prog " (exit " rc ")" }
	prog = ""
}
{ sub(/\r$/, "") }
/^@@@ BEGIN / { prog = $3; np = nf = ns = 0; plan = -1; bail = ""
	if (progs != "  " && index(progs, " " prog " ") == 0) prog = ""
	next }
/^@@@ END / { if (prog == "") next; rc = $4; sub(/^rc=/, "", rc); flush(rc); next }
prog != "" && /^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
prog != "" && /^Bail out!/ { bail = $0; next }
prog != "" && /^(not )?ok [0-9]+/ {
	line = $0
	if (line ~ /# *SKIP/) {
		test = line; sub(/^ok [0-9]+ */, "", test); sub(/ *# *SKIP.*/, "", test)
		reason = line; sub(/.*# *SKIP */, "", reason)
		if (skipped(test, reason) && verbose) print "  SKIP " label " " prog ": " line
	}
	else if (line ~ /^not ok/) { nf++; fail++; print "  FAIL " label " " prog ": " line }
	else { np++; pass++ }
}
END {
	if (prog != "") { fail++; print "  FAIL " label " " prog " (no END marker)" }
	printf "%s %d %d %d\n", label, pass, fail, skip >> results
	printf "%-36s %d passed, %d failed, %d skipped\n", label ":", pass, fail, skip
}' "$log"
