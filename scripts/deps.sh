#!/bin/sh
# Install the Debian packages the harness needs, once; fail clearly when that
# cannot be done.
. "$(dirname "$0")/lib.sh"

# Each machine record names its QEMU and cross packages (DEBIAN_PKGS).
ARCH_PKGS=$(for f in "$TOP"/machines/*.conf; do (. "$f" && echo "$DEBIAN_PKGS"); done)
PKGS="linux-source-6.12 gcc libc6-dev make flex bison bc libelf-dev libssl-dev
cpio ccache xz-utils patch rsync gnuplot-nox libnuma-dev libnuma-dev:arm64 xfsprogs
$ARCH_PKGS $EXTRA_PKGS"

missing=
for p in $PKGS; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'ok installed' ||
		missing="$missing $p"
done
[ -z "$missing" ] && exit 0

[ "$(id -u)" = 0 ] || die "missing packages:$missing; run as root so they can be installed"
echo "installing:$missing"
export DEBIAN_FRONTEND=noninteractive
# The kernel's mm selftests link libnuma statically, for arm64 too.
dpkg --print-foreign-architectures | grep -qx arm64 || dpkg --add-architecture arm64
mkdir -p "$BUILD"
apt-get update -q >"$BUILD/apt.log" 2>&1 || true
# shellcheck disable=SC2086
apt-get install -y -q --no-install-recommends $missing >>"$BUILD/apt.log" 2>&1 ||
	{ tail -n 20 "$BUILD/apt.log" >&2; die "could not install:$missing (log: $BUILD/apt.log)"; }
