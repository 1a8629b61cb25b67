#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cover-check.sh: every benchmark table in the cover letters must be what
# bench/report cuts from the results file the letter names, so that no
# figure is typed by hand or left behind when the results change.
#
#   bench/cover-check.sh [--top DIR] [LETTER...]
#
# A table is the output printed under a line of the letter that reads
#   "  $ bench/report cover KIND FILE"
# where FILE is relative to the repository top (DIR, default the checkout
# this script is in) and tracked by git there. The lines that follow must
# be that command's output, line for line, and the next line must be
# blank or the end of the letter (no row added). A letter without such a
# line fails too. Default LETTERs: the two cover letters in patches/.
# Host-only and cheap: make check runs it first.
# Ends with "N passed, N failed"; exit 1 if a table differs, 2 on usage.
set -u
# Command lines are split into words below: no globbing of them.
set -f

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
if [ "${1:-}" = --top ]; then
	[ $# -ge 2 ] && [ -d "$2" ] || {
		echo "usage: $0 [--top DIR] [LETTER...]" >&2
		exit 2
	}
	top=$(cd "$2" && pwd)
	shift 2
fi
case ${1:-} in -*)
	echo "usage: $0 [--top DIR] [LETTER...]" >&2
	exit 2 ;;
esac
[ $# -ge 1 ] || set -- "$top/patches/0000-cover-letter.patch" \
	"$top/patches/mainline/0000-cover-letter.patch"

tmp=$(mktemp -d) || exit 2
trap 'rm -rf "$tmp"' EXIT INT TERM
pass=0
fail=0
ok() {
	pass=$((pass + 1))
	echo "ok - $1"
}
not_ok() {
	fail=$((fail + 1))
	echo "not ok - $1"
}
# Whether FILE can be asked of git: only in a git work tree.
tracked() {
	git -C "$top" rev-parse --is-inside-work-tree >/dev/null 2>&1 || return 0
	git -C "$top" ls-files --error-unmatch -- "$1" >/dev/null 2>&1
}

for letter in "$@"; do
	if [ ! -r "$letter" ]; then
		not_ok "${letter#"$top"/}: cannot read it"
		continue
	fi
	# "LINE KIND FILE" for every command line of the letter.
	sed -n '/^ *\$ bench\/report cover /=' "$letter" >"$tmp/lines"
	if [ ! -s "$tmp/lines" ]; then
		not_ok "${letter#"$top"/}: no \"\$ bench/report cover KIND FILE\" line: no table is checked"
		continue
	fi
	while read -r n; do
		line=$(sed -n "${n}p" "$letter")
		set -- $line
		what="${letter#"$top"/}:$n: $*"
		if [ $# -ne 5 ]; then
			not_ok "$what: want \"\$ bench/report cover KIND FILE\""
			continue
		fi
		kind=$4 file=$5
		case $file in
		/* | ../* | */../*)
			not_ok "$what: FILE must be a path in the repository"
			continue ;;
		esac
		if [ ! -f "$top/$file" ] || ! tracked "$file"; then
			not_ok "$what: $file is not a committed file of the repository"
			continue
		fi
		if ! (cd "$top" && "$here/report" cover "$kind" "$file") >"$tmp/want" 2>"$tmp/err"; then
			not_ok "$what: the command fails: $(cat "$tmp/err")"
			continue
		fi
		rows=$(wc -l <"$tmp/want")
		# The letter's lines under the command, and the one after them.
		sed -n "$((n + 1)),$((n + rows))p" "$letter" >"$tmp/have"
		after=$(sed -n "$((n + rows + 1))p" "$letter")
		if ! cmp -s "$tmp/want" "$tmp/have"; then
			not_ok "$what: the table differs from the command's output (- command, + letter):"
			diff -u "$tmp/want" "$tmp/have" | sed '1,2d; s/^/    /'
		elif [ -n "$after" ]; then
			not_ok "$what: the table has more lines than the command prints, from line $((n + rows + 1)): $after"
		else
			ok "$what"
		fi
	done <"$tmp/lines"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
