#!/bin/sh
# console-check.sh LOG: fail when the console shows a kernel panic, BUG,
# WARNING, page_table_check report, sanitizer report, timeout, or lacks the
# end marker; print which.
log=$1
[ -f "$log" ] || { echo "console-check: no log $log" >&2; exit 1; }
bad=$(grep -n -a -m1 -E \
	'Kernel panic|kernel BUG at|BUG:|WARNING:|Oops|Unable to handle kernel|general protection fault|page_table_check|KASAN|UBSAN|Call trace:|Call Trace:|guest timeout after' \
	"$log")
if [ -n "$bad" ]; then
	echo "console: $log:$bad"
	exit 1
fi
if ! grep -q -a '^@@@ DONE' "$log"; then
	echo "console: $log: no '@@@ DONE' end marker (guest died or hung)"
	exit 1
fi
exit 0
