#!/bin/sh
# contpte-refold.sh VARIANT: on arm64 (4K pages), mprotect() from PROT_NONE
# back to RW must leave contpte-mapped folios contpte-mapped, as stock
# does: setting a block's last entry on its own folds the block again, and a
# batch must leave every block it completes folded. Without that, every
# PROT_NONE round trip leaves the folios mapped by single PTEs for good
# (less TLB reach), and nothing user space can read shows it.
#
# Observed in the kernel's execution: scripts/insnprof.sh profiles the bench
# cases nonerw-64k (64K mTHP) and nonerw-thp-pte (PTE-mapped 2M THP), NONE<->RW,
# on build/kernel/arm64-VARIANT-bench, and counts the entries of the
# functions that only a contiguous block reaches: contpte_convert(), which
# stock runs to fold a block and to unfold it (the series for a block a
# batch completes but does not cover), and contpte_try_unfold_partial(),
# which the series' batched start runs for a batch of contiguous entries. A
# batch that covers whole blocks is folded by set_ptes() itself, which shows
# only there, at the next RW -> NONE. Together they must run at least once
# per folio per round trip; the profile counts the PTEs of both directions,
# so that is once every 2 * (pages per folio) PTEs. Exits 1 if they run less
# often in either case.
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -eq 1 ] || die "usage: contpte-refold.sh VARIANT"
variant=$1
fail=0
for c in nonerw-64k:16 nonerw-thp-pte:512; do
	case=${c%:*} pages=${c#*:}
	log=$BUILD/log/contpte-refold-$variant-$case.log
	SIZE=8M "$TOP/scripts/insnprof.sh" arm64 "$variant" "$case" 40 140 >"$log" 2>&1 ||
		die "insnprof failed (log: $log)"
	awk -v c="$case" -v want="$((2 * pages))" '
	$1 == "contpte_convert+0x0" || $1 == "contpte_try_unfold_partial+0x0" { n += $3 }
	END {
		printf "%s: contpte_convert() and contpte_try_unfold_partial() run %.5f times per PTE (at least 1/%d = %.5f expected)\n", c, n, want, 1 / want
		exit !(n >= 0.95 / want)
	}' "$BUILD/insnprof/arm64-$variant-$case/tbs" || fail=1
done
exit $fail
