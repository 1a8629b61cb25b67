#!/bin/sh
# matrix-checkpatch.sh: matrix-checkpatch, the stock tree's checkpatch.pl
# --strict on each patch of the series (patches/series, or $SERIES_DIR). A
# patch with reports passes only if its message, or its notes below the
# cut, has a line "checkpatch: <why>"; PASS/FAIL count patches. A job of
# build-matrix.sh; runs alone too (environment: scripts/matrix-lib.sh).
# Log: build/log/matrix/checkpatch.log.
. "$(dirname "$0")/lib.sh"
[ $# = 0 ] || die "usage: $0 (no arguments; SERIES_DIR names the series)"
. "$TOP/scripts/matrix-lib.sh"
matrix_init

if [ "$N" = 0 ]; then
	result matrix-checkpatch 0 0 1 "no patches in $SERIES_DIR/series"
	matrix_exit
fi
ok=0 bad=0 total=0 cplog=$LOGS/checkpatch.log
: >"$cplog"
for p in $PATCHES; do
	out=$(cd "$STOCK" && perl scripts/checkpatch.pl --strict --color=never \
		"$SERIES_DIR/$p" 2>&1)
	{ echo "=== $p"; echo "$out"; } >>"$cplog"
	counts=$(echo "$out" | sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p' | tail -n 1)
	# No totals line: checkpatch did not run to its end, which is a report.
	[ -n "$counts" ] || counts="1 0 0"
	set -- $counts
	n=$(($1 + $2 + $3))
	total=$((total + n))
	# The commit message and the notes below the cut: up to the diff.
	why=$(sed -n '/^diff --git /q;p' "$SERIES_DIR/$p" | grep -i '^[[:space:]]*checkpatch:' | head -n 1)
	if [ "$n" = 0 ]; then
		ok=$((ok + 1))
		echo "    $p: clean"
	elif [ -n "$why" ]; then
		ok=$((ok + 1))
		echo "    $p: $1 errors, $2 warnings, $3 checks, justified: $(echo "$why" | sed 's/^[[:space:]]*//')"
	else
		bad=$((bad + 1))
		echo "    $p: $1 errors, $2 warnings, $3 checks, not justified in the commit message"
		echo "$out" | grep -E '^(ERROR|WARNING|CHECK):' | sed 's/^/      /' | head -n 10
	fi
done
result matrix-checkpatch $ok $bad 0 "$N patches, $total reports, $bad patches with unjustified reports (log: $cplog)"
matrix_exit
