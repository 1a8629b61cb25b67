#!/bin/sh
# initramfs.sh ARCH RUNLIST OUT: pack /init, /run.list and the programs the
# run list names (from build/guest/ARCH/) into a newc cpio archive.
. "$(dirname "$0")/lib.sh"

arch=$1 runlist=$2 outfile=$3
load_arch "$arch"
[ -f "$runlist" ] || die "no run list $runlist"
# A run list that names no program would boot, run nothing and pass:
# only the interactive shell (boot-one.sh) asks for one, with EMPTY_OK=1.
[ -n "$EMPTY_OK" ] || [ -n "$(runlist_progs <"$runlist")" ] ||
	die "run list $runlist names no program"
bins=$BUILD/guest/$arch
root=$(mktemp -d)
trap 'rm -rf "$root"' EXIT
mkdir -p "$root/bin" "$root/dev" "$root/proc" "$root/sys" "$root/tmp"
cp "$bins/init" "$root/init" || die "guest init not built for $arch"
[ -s "$runlist" ] && cp "$runlist" "$root/run.list"
for p in $(runlist_progs <"$runlist"); do
	[ -x "$bins/$p" ] || die "run list names '$p', not built in $bins"
	cp "$bins/$p" "$root/bin/$p"
done
# Extra files a program needs (e.g. the selftests' data), as DIR=DEST pairs.
for extra in $INITRAMFS_EXTRA; do
	mkdir -p "$root/${extra#*=}" && cp -a "${extra%%=*}/." "$root/${extra#*=}/"
done
mkdir -p "$(dirname "$outfile")"
# Byte-identical archives for identical inputs: the guest parses the cpio
# headers, and under icount a different mtime or inode number there shifts
# the boot by a few instructions, the timer ticks with it, and with them the
# page allocator's history -- which on arm64 moves per-PTE costs (see
# bench/README.md, "What moves the figures").
find "$root" -exec touch -h -d @0 {} + || die "touch failed"
(cd "$root" && find . | LC_ALL=C sort |
	cpio -o -H newc --quiet --reproducible --owner=0:0) >"$outfile" ||
	die "cpio failed"
