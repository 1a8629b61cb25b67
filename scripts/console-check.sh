#!/bin/sh
# console-check.sh LOG [EXPECT]: fail when the console shows a kernel panic,
# BUG, WARNING, page_table_check report, sanitizer report, timeout, or lacks
# the end marker or the fixed string EXPECT (what the machine record says the
# kernel must print about the CPU, e.g. arm64 hardware dirty management);
# print which. A report that a test provokes on purpose and counts as its own
# failure is left out (KNOWN below).
log=$1 expect=$2
[ -f "$log" ] || { echo "console-check: no log $log" >&2; exit 1; }

# Reports that a guest program provokes on purpose to show a bug of stock
# 6.12, and counts itself as its failed test (which tests/skips/ARCH.list
# may name as an expected failure): "PROGRAM FILE FUNCTION", a report from
# "[ cut here ]" to "end trace" whose WARNING line names FILE and whose
# call trace names FUNCTION. Such a report is left out below only inside
# that program's run and only if the program printed a failed result, so
# that it is counted once, as that result.
KNOWN="uffd_wp_migration page_table_check.c make_uffd_wp_pte"

# The log's lines as "LINE:text", without the known reports.
lines() {
	awk -v known="$KNOWN" '
	BEGIN { split(known, k, " ") }
	{ sub(/\r$/, "") }
	FNR == 1 { pass++; run = 0; prog = "" }
	/^@@@ BEGIN / { run++; prog = $3 }
	/^@@@ END / { prog = "" }
	pass == 1 { if (prog == k[1] && /^not ok /) failed[run] = 1; next }
	/\[ cut here \]/ && !inrep { inrep = 1; n = 0; warn = fn = 0 }
	inrep {
		buf[++n] = FNR ":" $0
		if (/WARNING:/ && index($0, k[2])) warn = 1
		if (index($0, k[3])) fn = 1
		if (!/---\[ end trace/) next
		inrep = 0
		claimed = prog == k[1] && failed[run] && warn && fn
		# The program output that the report interleaves with stays.
		for (i = 1; i <= n; i++)
			if (!claimed || buf[i] ~ /^[0-9]+:(@@@ |(not )?ok |# |1\.\.)/) print buf[i]
		next }
	{ print FNR ":" $0 }
	END { for (i = 1; inrep && i <= n; i++) print buf[i] }' "$log" "$log"
}

# page_table_check reports are BUG_ON()s in page_table_check.c (the kernel
# echoes its command line, which may say page_table_check=0).
bad=$(lines | grep -a -m1 -E \
	'Kernel panic|kernel BUG at|BUG:|WARNING:|Oops|Unable to handle kernel|general protection fault|page_table_check\.c|KASAN|UBSAN|Call trace:|Call Trace:|guest timeout after')
if [ -n "$bad" ]; then
	echo "console: $log:$bad"
	exit 1
fi
if [ -n "$expect" ] && ! grep -q -a -F "$expect" "$log"; then
	echo "console: $log: no '$expect' (the CPU model or the kernel config lacks it)"
	exit 1
fi
if ! grep -q -a '^@@@ DONE' "$log"; then
	echo "console: $log: no '@@@ DONE' end marker (guest died or hung)"
	exit 1
fi
exit 0
