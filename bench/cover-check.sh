#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cover-check.sh: every benchmark table and test count in the cover
# letters and the top-level README must be what bench/report cuts from the
# committed results file the document names, so that no figure is typed by
# hand or left behind when the results change.
#
#   bench/cover-check.sh [--top DIR] [DOCUMENT...]
#
# A generated block is the output printed under a line of the document
# that reads (with any indentation)
#   "$ bench/report SUB KIND FILE"     SUB: cover, readme or tests
# where FILE is relative to the repository top (DIR, default the checkout
# this script is in) and tracked by git there. The lines that follow must
# be that command's output, line for line, and the next line must be
# blank, a Markdown code fence, another such command line (checked in its
# turn) or the end of the document: no row added. In the README the
# command line is an indented code block right above its Markdown table
# (the table ends the code block) or a line of a fenced block. A document
# without any command line fails too. Default DOCUMENTs: the cover letters
# of patches/, patches/mainline/, patches/mainline/fixes/,
# patches/mainline/arm64/ and patches/mainline/lookup/, and README.md.
# Host-only and cheap: make check runs it first.
# A difference is reported as FILE:LINE of the first line of the document
# that differs, with the diff. Ends with "N passed, N failed"; exit 1 if a
# block differs, 2 on usage.
set -u
# Command lines are split into words below: no globbing of them.
set -f

here=$(cd "$(dirname "$0")" && pwd)
top=$(cd "$here/.." && pwd)
if [ "${1:-}" = --top ]; then
	[ $# -ge 2 ] && [ -d "$2" ] || {
		echo "usage: $0 [--top DIR] [DOCUMENT...]" >&2
		exit 2
	}
	top=$(cd "$2" && pwd)
	shift 2
fi
case ${1:-} in -*)
	echo "usage: $0 [--top DIR] [DOCUMENT...]" >&2
	exit 2 ;;
esac
[ $# -ge 1 ] || set -- "$top/patches/0000-cover-letter.patch" \
	"$top/patches/mainline/fixes/0000-cover-letter.patch" \
	"$top/patches/mainline/arm64/0000-cover-letter.patch" \
	"$top/patches/mainline/lookup/0000-cover-letter.patch" "$top/README.md"

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

# A command line: its output follows it in the document.
cmdre='^ *[$] bench/report (cover|readme|tests) '
for letter in "$@"; do
	if [ ! -r "$letter" ]; then
		not_ok "${letter#"$top"/}: cannot read it"
		continue
	fi
	doc=${letter#"$top"/}
	# The line number of every command line of the document.
	grep -En "$cmdre" "$letter" | cut -d: -f1 >"$tmp/lines"
	if [ ! -s "$tmp/lines" ]; then
		not_ok "$doc: no \"\$ bench/report cover|readme|tests KIND FILE\" line: no figure is checked"
		continue
	fi
	while read -r n; do
		line=$(sed -n "${n}p" "$letter")
		set -- $line
		what="$doc:$n: $*"
		if [ $# -ne 5 ]; then
			not_ok "$what: want \"\$ bench/report SUB KIND FILE\""
			continue
		fi
		sub=$3 kind=$4 file=$5
		case $file in
		/* | ../* | */../*)
			not_ok "$what: FILE must be a path in the repository"
			continue ;;
		esac
		if [ ! -f "$top/$file" ] || ! tracked "$file"; then
			not_ok "$what: $file is not a committed file of the repository"
			continue
		fi
		if ! (cd "$top" && "$here/report" "$sub" "$kind" "$file") >"$tmp/want" 2>"$tmp/err"; then
			not_ok "$what: the command fails: $(cat "$tmp/err")"
			continue
		fi
		rows=$(wc -l <"$tmp/want")
		if [ "$rows" -eq 0 ]; then
			not_ok "$what: the command prints nothing"
			continue
		fi
		# The document's lines under the command, and the one after them.
		sed -n "$((n + 1)),$((n + rows))p" "$letter" >"$tmp/have"
		after=$(sed -n "$((n + rows + 1))p" "$letter")
		if ! cmp -s "$tmp/want" "$tmp/have"; then
			# The first line that differs (or is missing at the end).
			d=$(awk 'NR == FNR { w[FNR] = $0; nw = FNR; next }
				FNR > nw || $0 != w[FNR] { print FNR; f = 1; exit }
				END { if (!f) print FNR + 1 }' "$tmp/want" "$tmp/have")
			not_ok "$doc:$((n + d)): differs from the output of line $n, $* (- command, + $doc):"
			diff -u "$tmp/want" "$tmp/have" | sed '1,2d; s/^/    /'
		elif [ -n "$after" ] && ! printf '%s\n' "$after" | grep -q '^ *```' &&
		     ! printf '%s\n' "$after" | grep -Eq "$cmdre"; then
			not_ok "$doc:$((n + rows + 1)): a line more than the output of line $n, $*: $after"
		else
			ok "$what"
		fi
	done <"$tmp/lines"
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
