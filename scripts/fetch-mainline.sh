#!/bin/sh
# fetch-mainline.sh: put Debian unstable's linux-source-7.2 tarball (mainline,
# the third kernel of make bench) at build/dl/linux-source-7.2.tar.xz.
# apt reads unstable through a sources list and lists directory of its own
# under build/apt/ and only downloads the one package; the system's sources,
# lists and installed packages are left as they are.
. "$(dirname "$0")/lib.sh"

PKG=${MAINLINE_PKG:-linux-source-7.2}
DL=$BUILD/dl
TARBALL=$DL/$PKG.tar.xz
[ -f "$TARBALL" ] && exit 0

APTDIR=$BUILD/apt
mkdir -p "$APTDIR/lists/partial" "$APTDIR/cache/archives/partial" "$DL"
echo "deb [signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] ${MAINLINE_MIRROR:-http://deb.debian.org/debian} unstable main" \
	>"$APTDIR/sources.list"
# _apt cannot write into a root-owned build/: download as the caller.
apt_u() {
	apt-get -q -o Dir::Etc::sourcelist="$APTDIR/sources.list" \
		-o Dir::Etc::sourceparts=- -o Dir::State::Lists="$APTDIR/lists" \
		-o Dir::Cache="$APTDIR/cache" -o APT::Sandbox::User="$(id -un)" "$@"
}
fetch() {
	apt_u update && (cd "$DL" && apt_u download "$PKG") &&
		deb=$(ls "$DL/${PKG}_"*.deb | tail -n 1) &&
		dpkg-deb --fsys-tarfile "$deb" |
		tar -xO "./usr/src/$PKG.tar.xz" >"$TARBALL.tmp" &&
		mv "$TARBALL.tmp" "$TARBALL" && rm -f "$deb"
}
step "fetch $PKG (Debian unstable)" "$BUILD/log/fetch-mainline.log" fetch ||
	die "could not fetch $PKG from unstable (log: $BUILD/log/fetch-mainline.log)"
