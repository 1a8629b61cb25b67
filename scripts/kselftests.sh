#!/bin/sh
# kselftests.sh ARCH [mainline]: build the mm selftests named in
# tests/kselftests.list from the 6.12 tree, static, into build/guest/ARCH/;
# with "mainline", from the 7.2 tree, as build/guest/ARCH/ml-NAME (beside
# 6.12's, for the mainline edition's checks).
. "$(dirname "$0")/lib.sh"

arch=$1 tree=${2:-stock}
load_arch "$arch"
"$TOP/scripts/guest.sh" "$arch" "$TOP/guest/init.c" || exit 1
out=$BUILD/guest/$arch
case $tree in
stock) pre='' build=$out hdr=$BUILD/headers/$arch ;;
mainline) pre=ml build=$out/ml-build hdr=$BUILD/headers/$arch-ml
	"$TOP/scripts/source.sh" mainline || exit 1
	# 7.2's selftests use 7.2's uapi (guard regions, newer prctls, ...).
	if [ ! -f "$hdr/include/linux/userfaultfd.h" ]; then
		step "uapi headers $arch (mainline)" "$BUILD/log/headers-$arch-ml.log" \
			make -C "$BUILD/src/mainline" O="$BUILD/headers/$arch-ml-o" ARCH="$KARCH" \
			INSTALL_HDR_PATH="$hdr" headers_install || exit 1
	fi ;;
*) die "usage: kselftests.sh ARCH [mainline]" ;;
esac
names=$(kselftest_list "$arch" | runlist_progs)
missing=
for t in $names; do [ -x "$out/${pre:+$pre-}$t" ] || missing=1; done
[ -z "$missing" ] && exit 0
mkdir -p "$build"
# shellcheck disable=SC2046
step "mm selftests $arch${pre:+ ($tree)}" "$BUILD/log/kselftests-$arch${pre:+-$tree}.log" \
	make -C "$BUILD/src/$tree/tools/testing/selftests/mm" OUTPUT="$build" \
	CC="$GUEST_CC" ARCH="$KARCH" \
	KHDR_INCLUDES="-isystem $hdr/include" \
	EXTRA_CFLAGS=-static LDFLAGS=-static $(echo "$names" | sed "s|^|$build/|") || exit 1
[ -z "$pre" ] && exit 0
for t in $names; do cp "$build/$t" "$out/$pre-$t" || die "no $build/$t"; done
