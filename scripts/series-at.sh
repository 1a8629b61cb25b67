#!/bin/sh
# series-at.sh REV NAME: put the series as it was at git revision REV into
# build/series/NAME/, so that VARIANT=NAME builds and boots it beside stock
# and patched (e.g. "series-at.sh 3a1c2b4 v2" to show a bug v3 fixes).
. "$(dirname "$0")/lib.sh"

[ $# = 2 ] || die "usage: series-at.sh REV NAME"
rev=$1 name=$2
case $name in
stock | patched | *[!a-zA-Z0-9_.-]* | '') die "bad series name '$name'" ;;
esac
git -C "$TOP" rev-parse -q --verify "$rev^{commit}" >/dev/null || die "no git revision '$rev'"
dir=$BUILD/series/$name
rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
git -C "$TOP" archive "$rev" patches | tar -x -C "$dir.tmp" --strip-components=1 ||
	die "cannot export patches/ at $rev"
[ -f "$dir.tmp/series" ] || die "no patches/series at $rev"
rm -rf "$dir" && mv "$dir.tmp" "$dir"
echo "series $name: patches/ at $(git -C "$TOP" rev-parse --short "$rev")"
