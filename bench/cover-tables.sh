#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# cover-tables.sh: the cover letters' benchmark tables, from table.sh's
# output (build/bench/table-icount.txt of a make bench run).
#
#   bench/cover-tables.sh series TABLE     6.12 series: per case of the
#                                          x86_64 and arm64 configs, then
#                                          the worst config of each arch
#   bench/cover-tables.sh mainline TABLE   mainline edition: the worst
#                                          -ml config per case, /nobatch
#                                          and /7.2
set -eu
usage() {
	echo "usage: $0 series|mainline TABLE" >&2
	exit 2
}
[ $# -eq 2 ] && [ -r "$2" ] || usage
case $1 in series|mainline) ;; *) usage ;; esac
# Trailing blanks (empty columns) are cut: mail tools would flag them.
case $1 in
series)
	awk '
	/^== / { sec = $2; sub(/:$/, "", sec); worst = $0 ~ /worst config/; next }
	/^case / || NF < 6 { next }
	!worst && (sec == "x86_64" || sec == "arm64") {
		t = $(NF - 1) == "-" ? "" : $(NF - 1)
		rows[sec] = rows[sec] sprintf("  %-7s %-23s %-5s %9s %9s  %s  %s\n",
			sec, $1, $2, $4, $5, $6, t)
	}
	worst && (sec == "x86_64" || sec == "arm64") {
		t = $4 == "-" ? "" : $4
		wrows[sec] = wrows[sec] sprintf("  %-7s %-23s %-11s %6s  %s\n",
			sec, $1, $2, $3, t)
	}
	END {
		printf "  %-7s %-23s %-5s %9s %9s  %-5s  %s\n", "arch", "case",
		       "folio", "stock", "patched", "ratio", "target"
		printf "%s%s\n", rows["x86_64"], rows["arm64"]
		printf "  %-7s %-23s %-11s %6s  %s\n", "arch", "case", "config",
		       "ratio", "target"
		printf "%s%s", wrows["x86_64"], wrows["arm64"]
	}' "$2" ;;
mainline)
	# Per config "-ml": stock = 7.2 without its batching, patched = 7.2 +
	# series, pat/ml = against 7.2. The worst of the configs per case.
	awk '
	/^== / { sec = $2; sub(/:$/, "", sec); worst = $0 ~ /worst config/; next }
	/^case / || NF < 9 || worst { next }
	sec ~ /-ml$/ && $6 ~ /^[0-9.]+$/ && $9 ~ /^[0-9.]+$/ {
		f = sec ~ /^x86_64/ ? "x86_64" : "arm64"
		if (!((f, $1) in r) || $6 + 0 > r[f, $1] + 0) { r[f, $1] = $6; rc[f, $1] = sec }
		if (!((f, $1) in m) || $9 + 0 > m[f, $1] + 0) { m[f, $1] = $9; mc[f, $1] = sec }
		if (!($1 in seen)) { seen[$1] = 1; ord[++n] = $1 }
	}
	END {
		printf "  %-23s %-22s %-22s\n", "", "x86_64 (worst config)", "arm64 (worst config)"
		printf "  %-23s %-11s %-10s %-11s %-10s\n", "case", "/nobatch", "/7.2", "/nobatch", "/7.2"
		for (i = 1; i <= n; i++) {
			c = ord[i]
			printf "  %-23s", c
			split("x86_64 arm64", fs, " ")
			for (k = 1; k <= 2; k++) {
				f = fs[k]
				if ((f, c) in r)
					printf " %5s %-5s %5s %-5s", r[f, c], short(rc[f, c]), m[f, c], short(mc[f, c])
				else
					printf " %-22s", "-"
			}
			printf "\n"
		}
	}
	function short(s) { sub(/-ml$/, "", s); sub(/^x86_64/, "", s); sub(/^arm64/, "", s)
		return s == "" ? "" : substr(s, 2) }' "$2" ;;
esac | sed 's/[[:space:]]*$//'
