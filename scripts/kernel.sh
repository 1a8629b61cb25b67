#!/bin/sh
# kernel.sh ARCH VARIANT KIND: configure and build one kernel into
# build/kernel/ARCH-VARIANT-KIND (incremental, ccache).
# KIND bench: tinyconfig + configs/{base,distro}.config + the machine record's
# fragments (KCONFIG, in order; configs/ARCH.config)
# KIND test:  the same with configs/debug.config before the arch fragments
# VARIANT mainline* (7.2): configs/mainline.config before the arch fragments
. "$(dirname "$0")/lib.sh"

arch=$1 variant=$2 kind=$3
load_arch "$arch"
check_kind "$kind"
# One kernel step at a time: applying a new series swaps the source tree,
# which would pull it from under a build that is still running.
mkdir -p "$BUILD"
exec 9>"$BUILD/.kernel-$variant.lock"
flock 9
check_variant "$variant"
"$TOP/scripts/source.sh" "$variant" || exit 1

src=$BUILD/src/$variant
out=$(kernel_dir "$variant" "$kind")
log=$BUILD/log/kernel-$arch-$variant-$kind.log
frags=$(kernel_frags "$variant" "$kind")
mkdir -p "$out"
# ccache's own directory (not build/) survives "make clean" and fresh
# clones; the base dir makes its hashes independent of where the clone is.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$TOP}
export CCACHE_NOHASHDIR=1
KMAKE="make -C $src O=$out ARCH=$KARCH CROSS_COMPILE=$CROSS_COMPILE"

# shellcheck disable=SC2086
config_step "config $arch $variant $kind" "$log" "$out/.frag-hash" \
	"$(cat $frags | sha256sum | cut -c1-16)" configure "$src" "$out" "" $frags || exit 1
command -v ccache >/dev/null && cc="ccache ${CROSS_COMPILE}gcc" || cc="${CROSS_COMPILE}gcc"
step "build $arch $variant $kind" "$log" \
	$KMAKE CC="$cc" -j"$(nproc)" || exit 1
# A compressed image's piggy.o .incbins the compressed vmlinux, which
# ccache's depend mode cannot see: piggy.S names only the sizes, so when
# they repeat (xz rounds them), the cache hands back a piggy.o that holds an
# older kernel. Assemble it again past the cache; the rest is up to date.
# Only a piggy.o written since the last such pass can be one from the cache.
stamp=$out/.piggy-stamp
if [ -f "$stamp" ]; then
	piggies=$(find "$out/arch" -name piggy.o -newer "$stamp" 2>/dev/null)
else
	piggies=$(find "$out/arch" -name piggy.o 2>/dev/null)
fi
if [ -n "$piggies" ]; then
	# shellcheck disable=SC2086
	rm -f $piggies
	(
		export CCACHE_DISABLE=1
		step "image $arch $variant $kind" "${log%.log}-image.log" \
			$KMAKE CC="$cc" -j"$(nproc)"
	) || exit 1
fi
touch "$stamp"
[ -f "$out/$KIMAGE" ] || die "$out/$KIMAGE missing after build (log: $log)"
