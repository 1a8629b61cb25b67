#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# harness-selftest.sh: the counting rules of scripts/tap-summary.sh and
# scripts/kselftest-compare.sh, and the console check, on synthetic guest
# logs: each case is a deliberate breakage (an incomplete TAP stream, a
# Bail out, a missing log or END marker, an unexpected skip, a failure only
# patched has, a kernel BUG) that must be counted as a failure, and a
# clean log that must not. No kernel, QEMU or root needed.
# Ends with "N passed, N failed"; exit status 1 if any check failed.
set -u

top=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0

check() {
	if [ "$2" = "$3" ]; then
		pass=$((pass + 1))
		echo "ok - $1"
	else
		fail=$((fail + 1))
		echo "not ok - $1: got '$2', expected '$3'"
	fi
}

# counts LOG [SKIPS]: "pass fail skip" that tap-summary.sh appends.
counts() {
	: >"$tmp/results"
	RESULTS=$tmp/results SKIPS=${2:-} sh "$top/scripts/tap-summary.sh" t "$1" >"$tmp/out"
	cut -d' ' -f2- "$tmp/results"
}

# log FILE: a guest log with one program whose TAP lines come on stdin.
log() {
	{ echo "@@@ BEGIN prog"; cat; echo "@@@ END prog rc=${RC:-0} secs=1.0"; echo "@@@ DONE"; } >"$1"
}

printf '1..2\nok 1 a\nok 2 b\n' | log "$tmp/clean"
check "complete stream counts its results" "$(counts "$tmp/clean")" "2 0 0"

printf '1..3\nok 1 a\nok 2 b\n' | log "$tmp/short"
check "plan 1..3 with 2 results is a failure" "$(counts "$tmp/short")" "2 1 0"

printf '1..2\nok 1 a\nBail out! no memory\n' | log "$tmp/bail"
check "Bail out! is a failure" "$(counts "$tmp/bail")" "1 1 0"

printf '1..1\nok 1 a\n' | RC=1 log "$tmp/rc"
check "non-zero exit without a failing result is a failure" "$(counts "$tmp/rc")" "1 1 0"

printf '@@@ BEGIN prog\n1..2\nok 1 a\n' >"$tmp/noend"
check "no END marker (guest died) is a failure" "$(counts "$tmp/noend")" "1 1 0"

check "no log is a failure" "$(counts "$tmp/missing")" "0 1 0"

printf '1..2\nok 1 a\nok 2 b # SKIP no THP\n' | log "$tmp/skip"
printf 'prog\tb\tno THP\n' >"$tmp/skips.list"
check "expected skip counts as a skip" "$(counts "$tmp/skip" "$tmp/skips.list")" "1 0 1"
printf 'prog\tb\tno uffd\n' >"$tmp/other.list"
check "unexpected skip is a failure" "$(counts "$tmp/skip" "$tmp/other.list")" "1 1 0"
check "no expected-skip list is a failure" "$(counts "$tmp/skip" "$tmp/none.list")" "0 1 0"

# kselftest-compare.sh: patched may not fail what stock passes.
kcounts() {
	: >"$tmp/results"
	RESULTS=$tmp/results sh "$top/scripts/kselftest-compare.sh" k "$1" "$2" >"$tmp/out"
	cut -d' ' -f2- "$tmp/results"
}
printf '1..2\nok 1 a\nnot ok 2 b\n' | log "$tmp/stock"
printf '1..2\nnot ok 1 a\nnot ok 2 b\n' | log "$tmp/patched"
check "a failure only patched has counts; one stock shares does not" \
	"$(kcounts "$tmp/stock" "$tmp/patched")" "0 1 1"
check "the shared failure is named" "$(grep -c '^  SHARED k prog: b' "$tmp/out")" "1"
printf '1..2\nok 1 a\n' | log "$tmp/pshort"
check "compare: incomplete stream on patched is a failure" \
	"$(kcounts "$tmp/stock" "$tmp/pshort")" "1 1 0"
check "compare: no patched log is a failure" \
	"$(kcounts "$tmp/stock" "$tmp/missing")" "0 1 0"

# console-check.sh
printf 'Command line: console=ttyS0 page_table_check=0\nUnknown kernel command line parameters "page_table_check=0", will be passed to user space.\n@@@ DONE\n' >"$tmp/con-ok"
sh "$top/scripts/console-check.sh" "$tmp/con-ok" >/dev/null
check "command line naming page_table_check is not a report" "$?" "0"
printf 'kernel BUG at mm/page_table_check.c:127!\n@@@ DONE\n' >"$tmp/con-bug"
sh "$top/scripts/console-check.sh" "$tmp/con-bug" >/dev/null
check "kernel BUG fails the console check" "$?" "1"
printf 'ok\n' >"$tmp/con-nodone"
sh "$top/scripts/console-check.sh" "$tmp/con-nodone" >/dev/null
check "no DONE marker fails the console check" "$?" "1"

echo "$pass passed, $fail failed"
[ "$fail" = 0 ]
