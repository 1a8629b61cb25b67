#!/bin/sh
# contpte-refold.sh VARIANT: on arm64 (4K pages), mprotect() from PROT_NONE
# back to RW must leave contpte-mapped folios contpte-mapped, as stock
# does: setting a block's last entry on its own folds the block again, and a
# batch that completes a block must too. Without that, every PROT_NONE round
# trip leaves the folios mapped by single PTEs for good (less TLB reach), and
# nothing user space can read shows it.
#
# Observed in the kernel's execution: scripts/insnprof.sh profiles the bench
# cases nonerw-64k (64K mTHP) and nonerw-thp-pte (PTE-mapped 2M THP), NONE<->RW,
# on build/kernel/arm64-VARIANT-bench. contpte_convert(), which folds (and
# unfolds) a block, must run at least once per folio per NONE -> RW: the
# block a batch that starts after the folio's first PTE completes. The
# profile counts the PTEs of both directions, so that is once every
# 2 * (pages per folio) PTEs. Exits 1 if it runs less often in either case.
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -eq 1 ] || die "usage: contpte-refold.sh VARIANT"
variant=$1
fail=0
for c in nonerw-64k:16 nonerw-thp-pte:512; do
	case=${c%:*} pages=${c#*:}
	log=$BUILD/log/contpte-refold-$variant-$case.log
	SIZE=8M "$TOP/scripts/insnprof.sh" arm64 "$variant" "$case" 40 140 >"$log" 2>&1 ||
		die "insnprof failed (log: $log)"
	awk -v c="$case" -v want="$((2 * pages))" '$1 == "contpte_convert+0x0" { n += $3 }
	END {
		printf "%s: contpte_convert() runs %.5f times per PTE (at least 1/%d = %.5f expected)\n", c, n, want, 1 / want
		exit !(n >= 0.95 / want)
	}' "$BUILD/insnprof/arm64-$variant-$case/tbs" || fail=1
done
exit $fail
