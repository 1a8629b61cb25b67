#!/bin/sh
# boot-one.sh ARCH VARIANT KIND "PROG ARGS": build what is needed, boot, and
# show the console; with an empty PROG, an interactive busybox shell.
. "$(dirname "$0")/lib.sh"

arch=$1 variant=$2 kind=$3 prog=$4
load_arch "$arch"
"$TOP/scripts/kernel.sh" "$arch" "$variant" "$kind" || exit 1
"$TOP/scripts/guest.sh" "$arch" || exit 1
name=boot-$arch-$variant-$kind
list=$BUILD/runs/$name.list
initrd=$BUILD/runs/$name.cpio
mkdir -p "$BUILD/runs"
if [ -z "$prog" ]; then
	bb=/bin/busybox
	[ "$arch" = x86_64 ] && [ -x "$bb" ] ||
		die "interactive boot needs busybox-static (x86_64 only); give RUN=\"prog args\""
	: >"$list"
	mkdir -p "$BUILD/runs/$name.extra/bin"
	cp "$bb" "$BUILD/runs/$name.extra/bin/busybox"
	ln -sf busybox "$BUILD/runs/$name.extra/bin/sh"
	EMPTY_OK=1 INITRAMFS_EXTRA="$BUILD/runs/$name.extra=." "$TOP/scripts/initramfs.sh" "$arch" "$list" "$initrd" || exit 1
	exec "$TOP/scripts/boot.sh" "$arch" "$variant" "$kind" interactive "$initrd" -
fi
echo "$prog" | tr ';' '\n' >"$list"
"$TOP/scripts/initramfs.sh" "$arch" "$list" "$initrd" || exit 1
mode=test
[ "$kind" = bench ] && mode=${MODE:-icount}
"$TOP/scripts/boot.sh" "$arch" "$variant" "$kind" "$mode" "$initrd" "$BUILD/runs/$name.log"
rc=$?
cat "$BUILD/runs/$name.log"
exit $rc
