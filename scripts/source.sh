#!/bin/sh
# source.sh stock|patched|mainline: prepare build/src/VARIANT.
# stock is Debian's linux-source-6.12 as shipped; patched is a hard-linked
# copy of it with patches/series applied in order. A patch that does not
# apply stops here with its name and the rejects. mainline is Debian
# unstable's linux-source-7.2 as shipped (scripts/fetch-mainline.sh), the
# third kernel of make bench; mainline-patched is 7.2 with the mainline
# edition, its three series in order (patches/mainline/series),
# mainline-nobatch 7.2 with its mprotect() batching taken out
# (bench/mainline-nobatch/, measurement only: the "before batching"
# reference on the same tree), mainline-fixes
# 7.2 with the standalone fixes of patches/mainline/fixes/, mainline-lookup
# 7.2 with the small-folio series of patches/mainline/lookup/, mainline-arm64
# 7.2 with the arm64 series of patches/mainline/arm64/; mainline-NAME
# (any other name) is 7.2 with build/series/mainline-NAME/, an experiment.
. "$(dirname "$0")/lib.sh"

variant=$1
check_variant "$variant"
TARBALL=${TARBALL:-/usr/src/linux-source-6.12.tar.xz}
STOCK=$BUILD/src/stock
case $variant in
mainline*)
	TARBALL=$BUILD/dl/linux-source-7.2.tar.xz STOCK=$BUILD/src/mainline
	[ -f "$TARBALL" ] || "$TOP/scripts/fetch-mainline.sh" || exit 1
	case $variant in
	mainline-patched) SERIES_DIR=${MAINLINE_SERIES_DIR:-$TOP/patches/mainline} PATCHED_NAME=$variant ;;
	mainline-nobatch) SERIES_DIR=$TOP/bench/mainline-nobatch PATCHED_NAME=$variant ;;
	mainline-fixes) SERIES_DIR=$TOP/patches/mainline/fixes PATCHED_NAME=$variant ;;
	mainline-lookup) SERIES_DIR=$TOP/patches/mainline/lookup PATCHED_NAME=$variant ;;
	mainline-arm64) SERIES_DIR=$TOP/patches/mainline/arm64 PATCHED_NAME=$variant ;;
	# An experiment on 7.2 (measurement only): build/series/VARIANT/.
	mainline?*) SERIES_DIR=$BUILD/series/$variant PATCHED_NAME=$variant ;;
	esac
	;;
stock | patched) SERIES_DIR=${SERIES_DIR:-$TOP/patches} ;;
*) SERIES_DIR=$BUILD/series/$variant PATCHED_NAME=$variant ;;
esac

if [ ! -f "$STOCK/Makefile" ]; then
	[ -f "$TARBALL" ] || die "$TARBALL missing: install linux-source-6.12 (make deps)"
	rm -rf "$STOCK.tmp" && mkdir -p "$STOCK.tmp"
	step "extract $(basename "$TARBALL")" "$BUILD/log/extract.log" \
		tar -xJf "$TARBALL" -C "$STOCK.tmp" --strip-components=1 || exit 1
	mv "$STOCK.tmp" "$STOCK"
fi
case $variant in stock | mainline) exit 0 ;; esac

# The files a series touches, so their mtimes can be refreshed: a hard-linked
# copy keeps stock's old mtime, which kbuild would take for "unchanged".
series_files() {
	[ -f "$1/series" ] || return 0
	grep -v '^[[:space:]]*\(#\|$\)' "$1/series" | while read -r p _; do
		sed -n 's,^+++ b/\([^[:space:]]*\).*,\1,p' "$1/$p"
	done
}

series_hash() {
	{
		cat "$SERIES_DIR/series" 2>/dev/null
		grep -v '^[[:space:]]*\(#\|$\)' "$SERIES_DIR/series" 2>/dev/null |
			while read -r p _; do cat "$SERIES_DIR/$p"; done
	} | sha256sum | cut -c1-16
}

PATCHED=$BUILD/src/${PATCHED_NAME:-patched}
hash=$(series_hash)
[ -f "$PATCHED/.series-hash" ] && [ "$(cat "$PATCHED/.series-hash")" = "$hash" ] && exit 0

old_files=$(cat "$PATCHED/.series-files" 2>/dev/null)
rm -rf "$PATCHED.tmp"
cp -al "$STOCK" "$PATCHED.tmp" || die "cannot copy $STOCK"
n=0
if [ -f "$SERIES_DIR/series" ]; then
	for p in $(grep -v '^[[:space:]]*\(#\|$\)' "$SERIES_DIR/series" | awk '{print $1}'); do
		[ -f "$SERIES_DIR/$p" ] || die "series names $p, which is not in $SERIES_DIR"
		if ! out=$(patch -d "$PATCHED.tmp" -p1 -N -s --no-backup-if-mismatch \
			<"$SERIES_DIR/$p" 2>&1); then
			echo "$out" >&2
			find "$PATCHED.tmp" -name '*.rej' -exec sh -c 'echo "--- reject $1:"; cat "$1"' _ {} \; >&2
			rm -rf "$PATCHED.tmp"
			die "patch $p does not apply to $(make -s -C "$STOCK" kernelversion 2>/dev/null)"
		fi
		n=$((n + 1))
	done
fi
new_files=$(series_files "$SERIES_DIR")
for f in $old_files $new_files; do
	[ -e "$PATCHED.tmp/$f" ] || continue
	# Break the hard link first: stock's mtime must not move.
	[ "$PATCHED.tmp/$f" -ef "$STOCK/$f" ] &&
		cp --remove-destination "$STOCK/$f" "$PATCHED.tmp/$f"
	# Unchanged since the last tree: keep its mtime, so that kbuild does
	# not rebuild what includes it (a header touches most of the kernel).
	if [ -e "$PATCHED/$f" ] && cmp -s "$PATCHED/$f" "$PATCHED.tmp/$f"; then
		touch -r "$PATCHED/$f" "$PATCHED.tmp/$f"
	else
		touch "$PATCHED.tmp/$f"
	fi
done
echo "$new_files" >"$PATCHED.tmp/.series-files"
echo "$hash" >"$PATCHED.tmp/.series-hash"
# Keep the old tree's build-relevant state out of the way, then swap.
rm -rf "$PATCHED"
mv "$PATCHED.tmp" "$PATCHED"
printf '[%5ss] %-44s ok (%s patches, series %s)\n' "$(($(date +%s) - T0))" "apply series -> ${PATCHED##*/}" "$n" "$hash"
