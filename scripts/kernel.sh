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
# The arch fragment comes last: it may turn off what its arch cannot have.
frags="$TOP/configs/base.config $TOP/configs/distro.config"
[ "$kind" = test ] && frags="$frags $TOP/configs/debug.config"
case $variant in mainline*) frags="$frags $TOP/configs/mainline.config" ;; esac
for f in $KCONFIG; do	# the record may name more than one
	frags="$frags $TOP/configs/$f"
done
mkdir -p "$out"
# ccache's own directory (not build/) survives "make clean" and fresh
# clones; the base dir makes its hashes independent of where the clone is.
export CCACHE_BASEDIR=${CCACHE_BASEDIR:-$TOP}
export CCACHE_NOHASHDIR=1
KMAKE="make -C $src O=$out ARCH=$KARCH CROSS_COMPILE=$CROSS_COMPILE"

configure() {
	$KMAKE tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags &&
		$KMAKE olddefconfig || return 1
	# Every option a fragment asks for must have stuck (as the last fragment
	# that names it asks): a silently dropped dependency would leave the
	# tests measuring a different kernel.
	bad=$(cat $frags | sed -n -e 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)/\1=\2/p' \
		-e 's/^# \(CONFIG_[A-Z0-9_]*\) is not set/\1=n/p' |
		awk -F= '{ if (!($1 in v)) o[n++] = $1; v[$1] = $0 }
			END { for (i = 0; i < n; i++) print v[o[i]] }' |
		while read -r want; do
			case $want in
			*=n) ! grep -q "^${want%=n}=" "$out/.config" || echo "${want%%=*}" ;;
			*) grep -qx "$want" "$out/.config" || echo "${want%%=*}" ;;
			esac
		done)
	[ -z "$bad" ] || { echo "options not set as requested:" $bad; return 1; }
}

fraghash=$(cat $frags | sha256sum | cut -c1-16)
if [ ! -f "$out/.config" ] || [ "$(cat "$out/.frag-hash" 2>/dev/null)" != "$fraghash" ]; then
	step "config $arch $variant $kind" "$log" configure || exit 1
	echo "$fraghash" >"$out/.frag-hash"
fi
command -v ccache >/dev/null && cc="ccache ${CROSS_COMPILE}gcc" || cc="${CROSS_COMPILE}gcc"
step "build $arch $variant $kind" "$log" \
	$KMAKE CC="$cc" -j"$(nproc)" || exit 1
[ -f "$out/$KIMAGE" ] || die "$out/$KIMAGE missing after build (log: $log)"
