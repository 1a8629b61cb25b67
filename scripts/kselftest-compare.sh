#!/bin/sh
# kselftest-compare.sh LABEL STOCK_LOG PATCHED_LOG: the patched kernel may
# have no selftest failure that stock does not have. Patched results count
# as passed or failed; a failure stock shares is counted as skipped, named
# in the output, and listed, with stock's own skips, in
# build/runs/LABEL-stock-baseline.txt. Both kernels are the test (debug)
# kernels of one configuration: like is compared with like.
# Only the programs in $PROGS count, if it is set. A program whose TAP
# stream is incomplete (plan "1..N" without N results, or "Bail out!")
# counts as one failure, whatever its exit status. A program the guest ran
# twice ("@@@ RETRY", see tests/kselftests.list) counts by its second run;
# the retry is printed, so a flaky test stays visible.
# A patched failure is printed with the last (up to 3) "# " lines its
# program printed before it, so a CI log says why it failed.
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
# key: "prog: description" (test numbers stripped); value: ok/fail/skip;
# a failure has a third field: the diagnostics printed before it.
# A program's lines are kept until its END marker: a RETRY replaces them.
results() {
	awk -v progs=" $PROGS " '
	function add(s) { out[prog] = out[prog] s "\n" }
	{ sub(/\r$/, ""); gsub(/\t/, " ") }
	/^@@@ BEGIN / { prog = $3; n = nf = 0; bail = ""; plan = -1; nd = 0
		if (progs != "  " && index(progs, " " prog " ") == 0) prog = ""
		else { if (!(prog in out)) order[++np] = prog; out[prog] = "" }
		next }
	/^@@@ END / { if (prog == "") next; rc = $4; sub(/^rc=/, "", rc)
		# An incomplete TAP stream fails, whatever the exit status.
		if ((plan >= 0 && n != plan) || bail != "")
			add(prog ": (incomplete TAP: plan " plan ", " n " results) " bail "\tfail")
		else if (nf == 0 && rc != "0" && rc != "4") add(prog ": (exit " rc ") " bail "\tfail")
		if (n == 0 && rc == "4") add(prog ": (exit 4)\tskip")
		if (n == 0 && rc == "0") add(prog ": (exit 0)\tok")
		prog = ""; next }
	prog != "" && /^Bail out!/ { bail = $0 }
	prog != "" && /^# / { d[nd++ % 3] = $0 }
	prog != "" && /^1\.\.[0-9]+/ { plan = substr($1, 4) + 0 }
	prog != "" && /^(not )?ok [0-9]+/ {
		n++; line = $0; st = "ok"
		if (line ~ /# *SKIP/) st = "skip"; else if (line ~ /^not ok/) { st = "fail"; nf++ }
		sub(/^(not )?ok [0-9]+ */, "", line); sub(/ *# *(SKIP|skip).*/, "", line)
		diag = ""
		for (i = (nd > 3 ? nd - 3 : 0); st == "fail" && i < nd; i++)
			diag = diag (diag == "" ? "" : " | ") d[i % 3]
		nd = 0
		add(prog ": " line "\t" st (st == "fail" ? "\t" diag : ""))
	}
	END { for (i = 1; i <= np; i++) printf "%s", out[order[i]] }' "$1"
}
# retries LOG KERNEL: say which programs failed once and were run again.
retries() {
	grep -a '^@@@ RETRY ' "$1" | tr -d '\r' | while read -r _ _ prog; do
		echo "  RETRY $label $prog: failed once on $2, counted by its rerun" \
			"($(grep -a "^@@@ END $prog " "$1" | tr -d '\r' | sed 's/.* rc=\([^ ]*\).*/\1/' | paste -sd' ' -): rc of each run)"
	done
}
retries "$stock" stock
retries "$patched" patched
results "$stock" >"$base.raw"
results "$patched" | awk -F'\t' -v label="$label" -v results="$RESULTS" -v base="$base.raw" '
BEGIN { while ((getline l < base) > 0) { split(l, kv, "\t"); stock[kv[1]] = kv[2] } }
$2 == "ok" { p++; next }
$2 == "skip" { s++; next }
$2 == "fail" && stock[$1] == "fail" { s++; print "  SHARED " label " " $1 " (fails on stock too: not counted)"; next }
$2 == "fail" { f++; print "  FAIL " label " " $1 " (stock: " (stock[$1] == "" ? "no such result" : stock[$1]) ")"
	if ($3 != "") print "       " $3 }
END {
	printf "%s %d %d %d\n", label, p, f, s >> results
	printf "%-36s %d passed, %d failed, %d skipped (incl. failures stock shares)\n", label ":", p, f, s
}'
awk -F'\t' '$2 != "ok" { print $2 "\t" $1 }' "$base.raw" | sort >"$base"
echo "    stock baseline (failures and skips): $base ($(grep -c '^fail' "$base") failed, $(grep -c '^skip' "$base") skipped)"
