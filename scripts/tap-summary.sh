#!/bin/sh
# tap-summary.sh LABEL LOG: count the TAP results of each program a guest
# ran (between "@@@ BEGIN" and "@@@ END"; only those in $PROGS if set),
# print failures (skips too with VERBOSE=1), and append
# "LABEL pass fail skip" to $RESULTS (default build/results.txt).
# A program that exits non-zero without a failing TAP line is one failure;
# one that exits 4 (KSFT_SKIP) without TAP lines is one skip.
label=$1 log=$2
RESULTS=${RESULTS:-$(dirname "$0")/../build/results.txt}
awk -v label="$label" -v results="$RESULTS" -v verbose="${VERBOSE:-}" -v progs=" $PROGS " '
function flush(rc) {
	if (rc == "4" && np + nf + ns == 0) { ns++; skip++; print "  SKIP " label " " prog " (exit 4)" }
	else if (rc != "0" && rc != "4" && nf == 0) { fail++; print "  FAIL " label " " prog " (exit " rc ")" }
	prog = ""
}
{ sub(/\r$/, "") }
/^@@@ BEGIN / { prog = $3; np = nf = ns = 0
	if (progs != "  " && index(progs, " " prog " ") == 0) prog = ""
	next }
/^@@@ END / { if (prog == "") next; rc = $4; sub(/^rc=/, "", rc); flush(rc); next }
prog != "" && /^(not )?ok [0-9]+/ {
	line = $0
	if (line ~ /# *SKIP/) { ns++; skip++; if (verbose) print "  SKIP " label " " prog ": " line }
	else if (line ~ /^not ok/) { nf++; fail++; print "  FAIL " label " " prog ": " line }
	else { np++; pass++ }
}
END {
	if (prog != "") { fail++; print "  FAIL " label " " prog " (no END marker)" }
	printf "%s %d %d %d\n", label, pass, fail, skip >> results
	printf "%-36s %d passed, %d failed, %d skipped\n", label ":", pass, fail, skip
}' "$log"
