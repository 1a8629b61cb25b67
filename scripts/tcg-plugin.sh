#!/bin/sh
# tcg-plugin.sh NAME: build the QEMU TCG plugin bench/tcg/NAME.c as
# build/tcg/libNAME.so (if missing or older than its sources) and print
# its path.
#
# qemu-plugin.h is not installed by Debian (debian/not-installed), so it
# comes, once, from the qemu source package of the installed QEMU, through
# a sources list and apt lists of our own under build/tcg/apt/ (the
# system's apt setup is left alone).
. "$(dirname "$0")/lib.sh"

name=$1
[ $# = 1 ] && [ -f "$TOP/bench/tcg/$name.c" ] ||
	die "usage: $0 NAME (a plugin bench/tcg/NAME.c; got '$*')"
for t in gcc apt-get dpkg-query tar; do
	command -v $t >/dev/null || die "$t not found"
done
OUT=$BUILD/tcg
HDR=$OUT/include
mkdir -p "$OUT"

fetch_header() {
	apt=$OUT/apt
	mkdir -p "$apt/lists/partial" "$apt/cache/archives/partial" "$apt/src"
	key=/usr/share/keyrings/debian-archive-keyring.gpg
	{
		echo "deb-src [signed-by=$key] ${MIRROR:-http://deb.debian.org/debian} bookworm main"
		echo "deb-src [signed-by=$key] ${SECURITY_MIRROR:-http://deb.debian.org/debian-security} bookworm-security main"
	} >"$apt/sources.list"
	# _apt cannot write into a root-owned build/: download as the caller.
	aptq() {
		apt-get -q -o Dir::Etc::sourcelist="$apt/sources.list" \
			-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$apt/lists" \
			-o Dir::Cache="$apt/cache" -o APT::Sandbox::User="$(id -un)" "$@"
	}
	aptq update || return 1
	# The source version of the installed QEMU (every qemu-system-*
	# depends on qemu-system-common), else the newest one.
	ver=$(dpkg-query -W -f='${source:Version}' qemu-system-common 2>/dev/null)
	echo "QEMU source version ${ver:-?}"
	(cd "$apt/src" && rm -f qemu_* &&
		{ { [ -n "$ver" ] && aptq source --download-only "qemu=$ver"; } ||
			{ echo "warning: qemu $ver not in the lists, taking the newest" &&
				aptq source --download-only qemu; }; }) || return 1
	orig=$(ls "$apt/src"/qemu_*.orig.tar.* 2>/dev/null | tail -n 1)
	[ -n "$orig" ] || { echo "no orig tarball in $apt/src"; return 1; }
	rm -rf "$HDR.tmp" && mkdir -p "$HDR.tmp" &&
		tar -xf "$orig" -C "$HDR.tmp" --wildcards '*/include/qemu/qemu-plugin.h' &&
		mv "$HDR.tmp"/*/include/qemu/qemu-plugin.h "$HDR.tmp/" &&
		rm -rf "$HDR.tmp"/*/ && rm -rf "$HDR" && mv "$HDR.tmp" "$HDR" &&
		rm -f "$apt/src"/qemu_*
}
if [ ! -f "$HDR/qemu-plugin.h" ]; then
	step "qemu-plugin.h (Debian qemu source)" "$OUT/log/header.log" fetch_header >&2 ||
		die "could not get qemu-plugin.h (log: $OUT/log/header.log)"
fi

SO=$OUT/lib$name.so
# Its sources: bench/tcg/, and bench/marker.h, which cachesim.c shares
# with mprotect_bench.
if [ ! -f "$SO" ] || [ -n "$(find "$TOP/bench/tcg/" "$TOP/bench/marker.h" "$HDR/qemu-plugin.h" -newer "$SO" -name '*.[ch]')" ]; then
	step "plugin lib$name.so" "$OUT/log/$name.log" \
		gcc -shared -fPIC -O2 -Wall -Wextra -Wno-unused-parameter -I "$HDR" \
		-o "$SO" "$TOP/bench/tcg/$name.c" >&2 || die "plugin build failed (log: $OUT/log/$name.log)"
fi
echo "$SO"
