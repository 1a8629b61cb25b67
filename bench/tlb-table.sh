#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# tlb-table.sh STOCK_LOG PATCHED_LOG: the user TLB flushes per mprotect()
# call of each case, stock and patched (the "tlb_range= tlb_pages=
# tlb_mm=" fields mprotect_bench prints on kernels with
# bench/tlbcount.patch). A case fails when patched flushes more often
# (ranged + whole-mm), over more pages, or more often the whole address
# space than stock. Exits 1 if a case fails or a log has no counts, 2 on
# bad usage.
[ $# -eq 2 ] || { echo "usage: $0 STOCK_LOG PATCHED_LOG" >&2; exit 2; }
for f in "$1" "$2"; do
	[ -r "$f" ] || { echo "$0: cannot read $f" >&2; exit 2; }
done
# One "case range pages mm" line per counted case.
counts() {
	tr -d '\r' <"$1" | awk '/^BENCH case=/ && / tlb_range=/ {
		c = r = p = m = ""
		for (i = 2; i <= NF; i++) {
			split($i, kv, "=")
			if (kv[1] == "case") c = kv[2]
			else if (kv[1] == "tlb_range") r = kv[2]
			else if (kv[1] == "tlb_pages") p = kv[2]
			else if (kv[1] == "tlb_mm") m = kv[2]
		}
		print c, r, p, m }'
}
tmp=$(mktemp) || exit 2
trap 'rm -f "$tmp"' EXIT
counts "$1" | sed 's/^/S /' >"$tmp"
counts "$2" | sed 's/^/P /' >>"$tmp"
awk '
$1 == "S" { n++; order[n] = $2; sr[$2] = $3; sp[$2] = $4; sm[$2] = $5; next }
{ pr[$2] = $3; pp[$2] = $4; pm[$2] = $5 }
END {
	if (n == 0) { print "no TLB flush counts in the stock log (kernel without bench/tlbcount.patch?)"; exit 1 }
	printf "%-23s %27s   %27s  %s\n", "", "stock", "patched", ""
	printf "%-23s %9s %9s %7s   %9s %9s %7s  %s\n", "case", "flushes", "pages", "all-mm", "flushes", "pages", "all-mm", "result"
	bad = 0
	for (i = 1; i <= n; i++) {
		c = order[i]
		if (!(c in pr)) { printf "%-23s missing on patched\n", c; bad++; continue }
		ok = pr[c] + pm[c] <= sr[c] + sm[c] + 1e-9 && pp[c] <= sp[c] + 1e-9 && pm[c] <= sm[c] + 1e-9
		if (!ok) bad++
		printf "%-23s %9.3f %9.3f %7.3f   %9.3f %9.3f %7.3f  %s\n", c, sr[c], sp[c], sm[c], pr[c], pp[c], pm[c], ok ? "ok" : "MORE"
	}
	printf "flushes and pages per mprotect() call; %s\n", bad ? bad " case(s) flush more than stock" : "no case flushes more than stock"
	exit bad > 0
}' "$tmp"
