#!/bin/sh
# run-guest.sh ARCH VARIANT KIND MODE RUNLIST NAME: pack RUNLIST into an
# initramfs, boot it, and count its results (console check + TAP) under NAME.
# Logs: build/runs/NAME.log
. "$(dirname "$0")/lib.sh"

arch=$1 variant=$2 kind=$3 mode=$4 runlist=$5 name=$6
RESULTS=${RESULTS:-$BUILD/results.txt}
export RESULTS
log=$BUILD/runs/$name.log
initrd=$BUILD/runs/$name.cpio
mkdir -p "$BUILD/runs"
# No older log may be counted for this boot, whatever fails below.
rm -f "$log"
if ! "$TOP/scripts/initramfs.sh" "$arch" "$runlist" "$initrd"; then
	printf '[%5ss] %-44s FAILED (initramfs)\n' "$(($(date +%s) - T0))" "boot $name"
	echo "$name-initramfs 0 1 0" >>"$RESULTS"
	exit 1
fi
s=$(date +%s)
if msg=$("$TOP/scripts/boot.sh" "$arch" "$variant" "$kind" "$mode" "$initrd" "$log"); then
	printf '[%5ss] %-44s ok (%ss)\n' "$(($(date +%s) - T0))" "boot $name" "$(($(date +%s) - s))"
	echo "$name-console 1 0 0" >>"$RESULTS"
else
	printf '[%5ss] %-44s FAILED (%ss)\n  %s\n' "$(($(date +%s) - T0))" "boot $name" "$(($(date +%s) - s))" "$msg"
	echo "$name-console 0 1 0" >>"$RESULTS"
fi
# The caller may count the TAP results itself (NOCOUNT=1).
[ -n "$NOCOUNT" ] || "$TOP/scripts/tap-summary.sh" "$name" "$log" | sed 's/^/    /'
