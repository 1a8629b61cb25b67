#!/bin/sh
# tlbcount.sh ARCH INITRD OUTDIR: count the user TLB flushes of every bench
# case on stock and patched. Builds the bench kernels "tlb-stock" (stock +
# bench/tlbcount.patch) and "tlb-patched" (patches/series + the same),
# boots each once under icount with INITRD (mprotect_bench), and prints
# bench/report tlb's table. The counting patch is measurement only: the
# instruction tables come from the kernels without it.
. "$(dirname "$0")/lib.sh"

arch=$1 initrd=$2 out=$3
[ $# -eq 3 ] || die "usage: tlbcount.sh ARCH INITRD OUTDIR"
load_arch "$arch"
# with_count NAME [DIR]: build/series/NAME (see check_variant) = the series
# in DIR (none: stock) with the counting patch last.
with_count() {
	d=$BUILD/series/$1
	rm -rf "$d" && mkdir -p "$d" || die "cannot create $d"
	if [ -n "$2" ]; then
		# Files only: patches/ has the mainline edition in a directory.
		cp "$2"/series "$2"/[0-9]*.patch "$d/" || die "cannot copy $2"
	fi
	cp "$TOP/bench/tlbcount.patch" "$d/" && echo tlbcount.patch >>"$d/series" ||
		die "cannot add bench/tlbcount.patch to $d"
}
with_count tlb-patched "$TOP/patches"
with_count tlb-stock
for v in tlb-stock tlb-patched; do
	"$TOP/scripts/kernel.sh" "$arch" "$v" bench || exit 1
	log=$out/$arch-$v-icount.log
	if ! BOOT_TIMEOUT=${BOOT_TIMEOUT:-3600} "$TOP/scripts/boot.sh" "$arch" "$v" bench icount \
		"$initrd" "$log" >"$log.check"; then
		die "boot $arch $v: $(cat "$log.check")"
	fi
done
echo "== $arch: user TLB flushes per mprotect() call (kernels with bench/tlbcount.patch) =="
"$TOP/bench/report" tlb "$out/$arch-tlb-stock-icount.log" "$out/$arch-tlb-patched-icount.log"
