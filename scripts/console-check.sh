#!/bin/sh
# console-check.sh LOG [EXPECT]: fail when the console shows a kernel panic,
# BUG, WARNING, page_table_check report, sanitizer report, timeout, or lacks
# the end marker or the fixed string EXPECT (what the machine record says the
# kernel must print about the CPU, e.g. arm64 hardware dirty management);
# print which.
log=$1 expect=$2
[ -f "$log" ] || { echo "console-check: no log $log" >&2; exit 1; }
# page_table_check reports are BUG_ON()s in page_table_check.c (the kernel
# echoes its command line, which may say page_table_check=0).
bad=$(grep -n -a -m1 -E \
	'Kernel panic|kernel BUG at|BUG:|WARNING:|Oops|Unable to handle kernel|general protection fault|page_table_check\.c|KASAN|UBSAN|Call trace:|Call Trace:|guest timeout after' \
	"$log")
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
