#!/bin/sh
# contpte-refold.sh VARIANT: on arm64 (4K pages), mprotect() from PROT_NONE
# back to RW must leave contpte-mapped 64K folios contpte-mapped, as stock
# does: setting a block's last entry on its own folds the block again, and a
# batch that completes a block must too. Without that, every PROT_NONE round
# trip leaves the folios mapped by single PTEs for good (less TLB reach), and
# nothing user space can read shows it.
#
# Observed in the kernel's execution: scripts/insnprof.sh profiles the bench
# case nonerw-64k (64K mTHP, NONE<->RW) on build/kernel/arm64-VARIANT-bench,
# and contpte_convert(), which folds (and unfolds) a block, must run at least
# once per folio per NONE -> RW, i.e. once every 32 PTEs of the profile (it
# counts the PTEs of both directions). Exits 1 if it runs less often.
. "$(dirname "$0")/../scripts/lib.sh"

[ $# -eq 1 ] || die "usage: contpte-refold.sh VARIANT"
variant=$1
run=$BUILD/insnprof/arm64-$variant-nonerw-64k
SIZE=8M "$TOP/scripts/insnprof.sh" arm64 "$variant" nonerw-64k 40 140 >"$BUILD/log/contpte-refold-$variant.log" 2>&1 ||
	die "insnprof failed (log: $BUILD/log/contpte-refold-$variant.log)"
awk '$1 == "contpte_convert+0x0" { n += $3 }
END {
	printf "contpte_convert() runs %.4f times per PTE (at least 1/32 = 0.0312 expected)\n", n
	exit !(n >= 0.95 / 32)
}' "$run/tbs"
