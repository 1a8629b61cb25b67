#!/bin/sh
# kselftests.sh ARCH: build the mm selftests named in tests/kselftests.list
# from the 6.12 tree, static, into build/guest/ARCH/.
. "$(dirname "$0")/lib.sh"

arch=$1
load_arch "$arch"
"$TOP/scripts/guest.sh" "$arch" "$TOP/guest/init.c" || exit 1
out=$BUILD/guest/$arch
targets=$(kselftest_list "$arch" | runlist_progs | sed "s|^|$out/|")
missing=
for t in $targets; do [ -x "$t" ] || missing=1; done
[ -z "$missing" ] && exit 0
step "mm selftests $arch" "$BUILD/log/kselftests-$arch.log" \
	make -C "$BUILD/src/stock/tools/testing/selftests/mm" OUTPUT="$out" \
	CC="$GUEST_CC" ARCH="$KARCH" \
	KHDR_INCLUDES="-isystem $BUILD/headers/$arch/include" \
	EXTRA_CFLAGS=-static LDFLAGS=-static $targets
