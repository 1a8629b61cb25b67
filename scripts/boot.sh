#!/bin/sh
# boot.sh ARCH VARIANT KIND MODE INITRD LOG: boot build/kernel/ARCH-VARIANT-KIND
# under QEMU TCG with INITRD, console to LOG, and check the console.
# MODE icount: 1 vCPU, -icount shift=0,sleep=off (guest ns == instructions)
# MODE wall:   1 vCPU, no icount (emulated wall time)
# MODE test:   2 vCPUs, 2 NUMA nodes of 1 GiB (QEMU_MEM/2), 512 MiB swap
#              disk, XFS disk
# MODE interactive: like test, console on this terminal, no timeout
. "$(dirname "$0")/lib.sh"

arch=$1 variant=$2 kind=$3 mode=$4 initrd=$5 log=$6
load_arch "$arch"
kernel=$(kernel_dir "$variant" "$kind")/$KIMAGE
[ -f "$kernel" ] || die "no kernel $kernel (make kernel ARCH=$arch VARIANT=$variant KIND=$kind)"
[ -f "$initrd" ] || die "no initramfs $initrd"
command -v "$QEMU" >/dev/null || die "$QEMU not found (make deps)"
timeout=${BOOT_TIMEOUT:-900}
# Guest RAM in MiB (the machine record may ask for more: QEMU_MEM).
mem=${QEMU_MEM:-2048}

# loglevel=7: info messages too, among them the CPU features the kernel
# detected (see CONSOLE_EXPECT in the machine record).
append="console=$QEMU_CONSOLE panic=-1 oops=panic loglevel=7 $ARCH_APPEND $BOOT_APPEND"
swap=
case $mode in
# A fixed virtual RTC (and on x86 no RDRAND/RDSEED, see machines/) keeps the
# host's clock out of the guest, so icount figures repeat exactly.
# Random stack offsets change copy alignments and so instruction counts.
icount)
	machine="-smp 1 -m ${mem}M -icount shift=0,sleep=off -rtc base=2026-01-01T00:00:00,clock=vm"
	append="$append nokaslr randomize_kstack_offset=off"
	;;
wall) machine="-smp 1 -m ${mem}M" ;;
test | interactive)
	machine="-smp 2,sockets=2,cores=1,threads=1 -m ${mem}M"
	# Two NUMA nodes where the machine has them (QEMU_NUMA=no: one).
	[ "${QEMU_NUMA:-yes}" = no ] || machine="$machine
	-object memory-backend-ram,id=m0,size=$((mem / 2))M -object memory-backend-ram,id=m1,size=$((mem / 2))M
	-numa node,nodeid=0,cpus=0,memdev=m0 -numa node,nodeid=1,cpus=1,memdev=m1"
	# A blank disk for swap, and XFS (mkfs here: the guest has no mkfs)
	# for the tests of a shared file mapping with page_mkwrite and large
	# folios; 300 MiB is mkfs.xfs's minimum. Both files are sparse.
	swap=${log%.log}.swap.img
	xfs=${log%.log}.xfs.img
	rm -f "$swap" "$xfs" && truncate -s 512M "$swap" && truncate -s 300M "$xfs" ||
		die "cannot create disk images next to $log"
	mkfs.xfs -q "$xfs" || die "mkfs.xfs failed (package xfsprogs)"
	machine="$machine $(echo "$QEMU_DISK" | sed "s|@FILE@|$swap|g; s|@ID@|swap|g")"
	machine="$machine $(echo "$QEMU_DISK" | sed "s|@FILE@|$xfs|g; s|@ID@|xfs|g")"
	;;
*) die "unknown MODE '$mode' (known: icount wall test interactive)" ;;
esac

# QEMU_EXTRA: more QEMU options, e.g. a TCG plugin for a profile.
set -- "$QEMU" $QEMU_MACHINE $machine $QEMU_EXTRA -nographic -no-reboot \
	-kernel "$kernel" -initrd "$initrd" -append "$append"
if [ "$mode" = interactive ]; then
	"$@"
	rc=$?
	[ -n "$swap" ] && rm -f "$swap" "$xfs"
	exit $rc
fi
mkdir -p "$(dirname "$log")"
timeout -k 10 "$timeout" "$@" </dev/null >"$log" 2>&1
rc=$?
[ -n "$swap" ] && rm -f "$swap" "$xfs"
if [ $rc = 124 ] || [ $rc = 137 ]; then
	echo "guest timeout after ${timeout}s: $arch $variant $kind ($log)" >>"$log"
fi
# The kernel that booted must be the one built: its banner names the build.
# (No banner at all is console-check.sh's to report.)
uts=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' \
	"$(kernel_dir "$variant" "$kind")/include/generated/utsversion.h" 2>/dev/null)
if [ -n "$uts" ] && grep -q "Linux version" "$log" && ! grep -qF "$uts" "$log"; then
	echo "booted kernel is not the one built ($uts): stale image"
	exit 1
fi
exec "$TOP/scripts/console-check.sh" "$log" "$CONSOLE_EXPECT"
