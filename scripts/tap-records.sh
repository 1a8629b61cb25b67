#!/bin/sh
# tap-records.sh LOG: the one reader of the TAP that guest programs print
# between "@@@ BEGIN prog" and "@@@ END prog rc=RC" (guest/init.c). Prints
# one record per result, "prog<TAB>test<TAB>status<TAB>note", status ok,
# fail or skip; test is the description without its number (and without
# "# SKIP ...", whose reason is the note); a failure's note is the last (up
# to 3) "# " lines printed before it. A program also gets records for what
# its results do not say:
#   (incomplete TAP) fail: a plan "1..N" without N results, or "Bail out!"
#   (exit RC)        fail: a non-zero exit without a failing result
#   (exit 4)         skip: KSFT_SKIP without results (test empty)
#   (exit 0)         ok:   a clean exit without results
#   (no END marker)  fail: the log ends inside the program (guest died)
# A program run again ("@@@ RETRY") counts by its last run only. With
# PROGS="a b", only those programs.
awk -v progs=" $PROGS " '
function rec(test, st, note) { out[prog] = out[prog] prog "\t" test "\t" st "\t" note "\n" }
function diag(   s, i) {
	for (i = (nd > 3 ? nd - 3 : 0); i < nd; i++)
		s = s (s == "" ? "" : " | ") d[i % 3]
	return s
}
{ sub(/\r$/, ""); gsub(/\t/, " ") }
/^@@@ BEGIN / { prog = $3; n = nf = nd = 0; plan = -1; bail = ""
	if (progs != "  " && index(progs, " " prog " ") == 0) { prog = ""; next }
	if (!(prog in out)) order[++np] = prog
	out[prog] = ""
	next }
/^@@@ END / { if (prog == "") next
	rc = $4; sub(/^rc=/, "", rc)
	if ((plan >= 0 && n != plan) || bail != "")
		rec("(incomplete TAP)", "fail", "plan 1.." plan ", " n " results" (bail == "" ? "" : "; " bail) "; exit " rc)
	else if (nf == 0 && rc != "0" && rc != "4")
		rec("(exit " rc ")", "fail", "")
	if (n == 0 && rc == "4") rec("", "skip", "(exit 4)")
	if (n == 0 && rc == "0") rec("(exit 0)", "ok", "")
	prog = ""; next }
prog == "" { next }
/^1\.\.[0-9]+/ { plan = substr($1, 4) + 0; next }
/^Bail out!/ { bail = $0; next }
/^# / { d[nd++ % 3] = $0; next }
/^(not )?ok [0-9]+/ {
	n++; test = $0; note = ""
	sub(/^(not )?ok [0-9]+ */, "", test)
	if ($0 ~ /# *SKIP/) {
		st = "skip"; note = $0; sub(/.*# *SKIP */, "", note)
	} else if ($0 ~ /^not ok/) {
		st = "fail"; nf++; note = diag()
	} else
		st = "ok"
	sub(/ *# *(SKIP|skip).*/, "", test)
	nd = 0
	rec(test, st, note)
}
END {
	if (prog != "") rec("(no END marker)", "fail", "")
	for (i = 1; i <= np; i++) printf "%s", out[order[i]]
}' "$1"
