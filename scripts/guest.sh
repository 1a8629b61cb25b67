#!/bin/sh
# guest.sh ARCH [SRC.c ...]: build guest programs, static, into
# build/guest/ARCH/. Without arguments: guest/, tests/, tests/selftest-mm/
# and bench/ programs.
# Rebuilds a program only when its source or a header beside it changed.
. "$(dirname "$0")/lib.sh"

arch=$1
shift
load_arch "$arch"
"$TOP/scripts/source.sh" stock || exit 1
KSRC=$BUILD/src/stock
HDR=$BUILD/headers/$arch
out=$BUILD/guest/$arch
mkdir -p "$out"

if [ ! -f "$HDR/include/linux/userfaultfd.h" ]; then
	step "uapi headers $arch" "$BUILD/log/headers-$arch.log" \
		make -C "$KSRC" O="$BUILD/headers/$arch-o" ARCH="$KARCH" \
		INSTALL_HDR_PATH="$HDR" headers_install || exit 1
fi

[ $# -gt 0 ] || set -- "$TOP"/guest/*.c "$TOP"/tests/*.c "$TOP"/bench/*.c \
	"$TOP"/tests/selftest-mm/*.c
# Every program but /init builds on the tree's mm selftest helpers: it may
# include vm_util.h and thp_settings.h, whose .c files are linked in, as
# tools/testing/selftests/mm/'s Makefile does.
mm=$KSRC/tools/testing/selftests/mm
built=0
for c in "$@"; do
	[ -f "$c" ] || continue
	name=$(basename "$c" .c)
	dir=$(dirname "$c")
	bin=$out/$name
	helpers="-I $mm $mm/vm_util.c $mm/thp_settings.c"
	# A new source tree brings new helpers: rebuild against them.
	deps="$mm/vm_util.c $mm/vm_util.h $mm/thp_settings.c $mm/thp_settings.h"
	[ "$c" != "$TOP/guest/init.c" ] || helpers= deps=
	# A program may include another's .c (mprotect_folios_extra.c does).
	for inc in $(sed -n 's/^#include "\(.*\.c\)"$/\1/p' "$c"); do
		deps="$deps $dir/$inc"
	done
	if [ -f "$bin" ] && [ -z "$(find "$c" "$dir" -maxdepth 1 \( -name '*.h' -o -name "$name.c" \) -newer "$bin")" ] &&
		{ [ -z "$deps" ] || [ -z "$(find $deps -newer "$bin")" ]; }; then
		continue
	fi
	step "guest $arch $name" "$BUILD/log/guest-$arch-$name.log" \
		"$GUEST_CC" -static -O2 -g0 -Wall -Wextra \
		-isystem "$HDR/include" -I "$KSRC/tools/testing/selftests" \
		-I "$dir" -o "$bin" "$c" $helpers -lpthread || exit 1
	built=$((built + 1))
done
exit 0
