#!/bin/sh
# kselftests.sh ARCH [mainline|mainline-fixes]: build the mm selftests
# named in tests/kselftests.list from the 6.12 tree, static, into
# build/guest/ARCH/; with "mainline", from the 7.2 tree, as
# build/guest/ARCH/ml-NAME (beside 6.12's, for the mainline edition's
# checks); with "mainline-fixes", from 7.2 with patches/mainline/fixes
# (which adds tests of its own to them), as mlfix-NAME.
. "$(dirname "$0")/lib.sh"

arch=$1 tree=${2:-stock}
load_arch "$arch"
"$TOP/scripts/guest.sh" "$arch" "$TOP/guest/init.c" || exit 1
out=$BUILD/guest/$arch
case $tree in
stock) pre='' build=$out hdr=$BUILD/headers/$arch ;;
mainline | mainline-fixes)
	pre=ml
	[ "$tree" = mainline-fixes ] && pre=mlfix
	build=$out/$pre-build hdr=$BUILD/headers/$arch-ml
	"$TOP/scripts/source.sh" "$tree" || exit 1
	# 7.2's selftests use 7.2's uapi (guard regions, newer prctls, ...).
	if [ ! -f "$hdr/include/linux/userfaultfd.h" ]; then
		step "uapi headers $arch (mainline)" "$BUILD/log/headers-$arch-ml.log" \
			make -C "$BUILD/src/mainline" O="$BUILD/headers/$arch-ml-o" ARCH="$KARCH" \
			INSTALL_HDR_PATH="$hdr" headers_install || exit 1
	fi ;;
*) die "usage: kselftests.sh ARCH [mainline|mainline-fixes]" ;;
esac
if [ "$tree" = mainline-fixes ]; then
	# Only the tests that the fixes change, and always through make: a
	# new version of the fixes must not run an older build of its tests.
	names=$(fixes_selftests "$arch")
	[ -n "$names" ] || exit 0
else
	names=$(kselftest_list "$arch" | runlist_progs)
	missing=
	for t in $names; do [ -x "$out/${pre:+$pre-}$t" ] || missing=1; done
	[ -z "$missing" ] && exit 0
fi
mkdir -p "$build"
# shellcheck disable=SC2046
step "mm selftests $arch${pre:+ ($tree)}" "$BUILD/log/kselftests-$arch${pre:+-$tree}.log" \
	make -C "$BUILD/src/$tree/tools/testing/selftests/mm" OUTPUT="$build" \
	CC="$GUEST_CC" ARCH="$KARCH" \
	KHDR_INCLUDES="-isystem $hdr/include" \
	EXTRA_CFLAGS=-static LDFLAGS=-static $(echo "$names" | sed "s|^|$build/|") || exit 1
[ -z "$pre" ] && exit 0
for t in $names; do cp "$build/$t" "$out/$pre-$t" || die "no $build/$t"; done
