#!/bin/sh
# objcmp.sh CONFIG VARIANT_A VARIANT_B: whether two versions of the series
# compile to the same instructions on a bench config. Builds, with the
# config's bench .config (the fragments scripts/kernel.sh merges), only
# the objects that hold the series' code paths: mm/mprotect.o and
# mm/memory.o, and on arm64 arch/arm64/mm/contpte.o and mmu.o; then
# compares their disassembly (objdump -d -r). Prints one line per object; exits 1 if any differs.
# A revision that changes only comments, messages, compile-time checks or
# code under DEBUG_VM keeps the benchmark results of the one before it.
# Output trees: build/objcmp/CONFIG-VARIANT/.
. "$(dirname "$0")/lib.sh"

[ $# = 3 ] || die "usage: $0 CONFIG VARIANT_A VARIANT_B"
cfg=$1 va=$2 vb=$3
load_arch "$cfg"
check_variant "$va" && check_variant "$vb"
case $KARCH in
arm64) objs="mm/mprotect.o mm/memory.o arch/arm64/mm/contpte.o arch/arm64/mm/mmu.o" ;;
*) objs="mm/mprotect.o mm/memory.o" ;;
esac
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$TOP} CCACHE_NOHASHDIR=1
command -v ccache >/dev/null && cc="ccache ${CROSS_COMPILE}gcc" || cc="${CROSS_COMPILE}gcc"
status=0
for v in "$va" "$vb"; do
	# The tree is scripts/kernel.sh's: take its lock, as a build may swap it.
	exec 9>"$BUILD/.kernel-$v.lock"
	flock 9
	"$TOP/scripts/source.sh" "$v" || exit 1
	out=$BUILD/objcmp/$cfg-$v
	frags=$(kernel_frags "$v" bench)
	mkdir -p "$out"
	KMAKE="make -C $BUILD/src/$v O=$out ARCH=$KARCH CROSS_COMPILE=$CROSS_COMPILE"
	config_step "config $cfg $v (objcmp)" "$out.config.log" "$out/.frag-hash" \
		"$(cat $frags | sha256sum | cut -c1-16)" configure "$BUILD/src/$v" "$out" "" $frags ||
		exit 1
	step "objects $cfg $v" "$out.log" $KMAKE CC="$cc" -j"$(nproc)" $objs || exit 1
	exec 9>&-
done
for o in $objs; do
	for v in "$va" "$vb"; do
		s=$BUILD/objcmp/$cfg-$v.$(basename "$o").s
		"${CROSS_COMPILE}objdump" -d -r "$BUILD/objcmp/$cfg-$v/$o" >"$s.tmp" ||
			die "objdump of $cfg-$v/$o failed"
		# Line 2 names the file; the rest is the same for the same code.
		tail -n +3 "$s.tmp" >"$s" && rm -f "$s.tmp"
	done
	a=$BUILD/objcmp/$cfg-$va.$(basename "$o").s b=$BUILD/objcmp/$cfg-$vb.$(basename "$o").s
	n=$(grep -c '^ *[0-9a-f]*:' "$a")
	[ "$n" -gt 0 ] || die "$cfg $o: no instructions in $va's object"
	if cmp -s "$a" "$b"; then
		echo "$cfg $o: identical ($n instructions)"
	else
		echo "$cfg $o: DIFFERS ($(diff "$a" "$b" | grep -c '^[<>]') lines of $n)"
		status=1
	fi
done
exit $status
