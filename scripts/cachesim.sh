#!/bin/sh
# cachesim.sh ARCH INITRD OUTDIR VARIANT...: kernel L1D and last-level cache
# misses per PTE of every bench case's timed loop, from a cache model.
#
# Boots the bench kernel of each VARIANT (as built: stock and patched at
# least, and any of mainline, mainline-nobatch, mainline-patched) under
# -icount with INITRD (mprotect_bench) and the TCG plugin
# bench/tcg/cachesim.c, which runs every guest data access through an L1D
# and an LLC and counts the misses of each timed loop (the markers of
# bench/marker.h). The counts repeat exactly, boot after boot; but which
# physical lines share a cache set moves them, so each kernel boots once
# per guest memory size of CACHE_MEMS (MiB, default "2048 2112 2240"):
# each a different physical layout of the same work (the kernels other
# than stock and patched, which have no target, at the first size only).
# Prints bench/report cache's table (medians over the layouts); exit 1 if
# patched misses more than stock in a case.
# Environment: CACHE_MEMS; L1D=64K:4 and LLC=1M:8 (SIZE:WAYS; default one
# Arm Neoverse N1 core: its L1D and its private L2, the last level a core
# has to itself), LINE=64 (bytes).
. "$(dirname "$0")/lib.sh"

[ $# -ge 5 ] || die "usage: $0 ARCH INITRD OUTDIR stock patched [VARIANT...]"
arch=$1 initrd=$2 out=$3
shift 3
# What bench/report cache takes, checked before hours of boots.
case " $* " in *" stock "*) ;; *) die "stock and patched are both needed (got: $*)" ;; esac
case " $* " in *" patched "*) ;; *) die "stock and patched are both needed (got: $*)" ;; esac
for v in "$@"; do
	case $v in stock | patched | mainline | mainline-nobatch | mainline-patched) ;;
	*) die "unknown VARIANT '$v' (stock patched mainline mainline-nobatch mainline-patched)" ;;
	esac
done
variants=$*
load_arch "$arch"
[ -f "$initrd" ] || die "no $initrd"
l1d=${L1D:-64K:4} llc=${LLC:-1M:8} line=${LINE:-64}
for g in "$l1d" "$llc"; do
	echo "$g" | grep -Eqx '[1-9][0-9]*[KM]?:[1-9][0-9]*' ||
		die "bad cache geometry '$g' (SIZE:WAYS, e.g. L1D=64K:4 LLC=1M:8)"
done
echo "$line" | grep -Eqx '[1-9][0-9]*' || die "bad LINE '$line' (bytes, e.g. 64)"
# shellcheck disable=SC2086
set -- ${CACHE_MEMS:-2048 2112 2240} && first=$1 mems=$*
for m in $mems; do
	echo "$m" | grep -Eqx '[1-9][0-9]{2,5}' || die "bad CACHE_MEMS '$mems' (MiB, e.g. \"2048 2112 2240\")"
done
# boot.sh splits QEMU_EXTRA at blanks, QEMU's -plugin option its arguments
# at commas, report cache its arguments at colons.
case $out in *[[:space:],:]*) die "output directory $out has a blank, comma or colon" ;; esac

SO=$("$TOP/scripts/tcg-plugin.sh" cachesim) || exit 1
plugin="$SO,line=$line,l1d_size=${l1d%:*},l1d_ways=${l1d#*:},llc_size=${llc%:*},llc_ways=${llc#*:}"
for v in $variants; do
	[ -f "$(kernel_dir "$v" bench)/$KIMAGE" ] || die "no $arch $v bench kernel (make kernel ARCH=$arch VARIANT=$v KIND=bench)"
done
specs=
for v in $variants; do
	# The targets are on stock and patched: the other kernels are
	# shown at the first layout only.
	ms=$mems
	case $v in stock | patched) ;; *) ms=$first ;; esac
	for m in $ms; do
		# Not "log": step() sets that.
		con=$out/$arch-$v-cache-$m.log counts=$out/$arch-$v-cache-$m.counts
		rm -f "$counts"
		export QEMU_EXTRA="-plugin $plugin,out=$counts" QEMU_MEM=$m BOOT_TIMEOUT=${BOOT_TIMEOUT:-3600}
		step "cache model boot $arch $v ${m}M" "$con.check" \
			"$TOP/scripts/boot.sh" "$arch" "$v" bench icount "$initrd" "$con" >&2 ||
			die "boot $arch $v failed (console: $con)"
		unset QEMU_EXTRA QEMU_MEM
		[ -s "$counts" ] || die "no counts in $counts (plugin message in $con?)"
		specs="$specs $v:$con:$counts"
	done
done
echo "== $arch: kernel cache misses per PTE, timed loops ($(head -n 1 "$counts" | cut -d' ' -f2-)) =="
# shellcheck disable=SC2086
"$TOP/bench/report" cache $specs
