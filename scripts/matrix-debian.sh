#!/bin/sh
# matrix-debian.sh: matrix-debian-amd64: the series in build/src/matrix builds
# mm/, arch/x86/mm/ and the dirs of the .c files it touches with Debian's
# own amd64 config (linux-config-6.12, config.amd64_none_amd64.xz). It has
# PARAVIRT, so x86's paravirt protection transaction is the one compiled.
# MATRIX_DEBIAN_DEBUG_INFO=1 keeps Debian's DEBUG_INFO (off by default: it
# only slows the compile, it changes no code). A job of build-matrix.sh;
# runs alone too (environment: scripts/matrix-lib.sh).
. "$(dirname "$0")/lib.sh"
[ $# = 0 ] || die "usage: $0 (no arguments; SERIES_DIR names the series)"
. "$TOP/scripts/matrix-lib.sh"
matrix_init

# debian_config SRC OUT CFG: Debian's config, with what a partial build
# cannot have turned off.
debian_config() {
	xz -dc "$3" >"$2/.config" || return 1
	# Only what a partial build cannot have: signing keys, and debug info
	# (compile time only) unless asked for.
	"$1/scripts/config" --file "$2/.config" --set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str SYSTEM_REVOCATION_KEYS "" --set-str MODULE_SIG_KEY "certs/signing_key.pem"
	if [ -z "$MATRIX_DEBIAN_DEBUG_INFO" ]; then
		"$1/scripts/config" --file "$2/.config" --disable DEBUG_INFO \
			--disable DEBUG_INFO_DWARF5 --disable DEBUG_INFO_DWARF4 \
			--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_BTF \
			--enable DEBUG_INFO_NONE
	fi
	nice -n "$NICE" make -C "$1" O="$2" ARCH=x86_64 olddefconfig || return 1
	for o in CONFIG_PARAVIRT=y CONFIG_TRANSPARENT_HUGEPAGE=y CONFIG_NUMA=y; do
		grep -qx "$o" "$2/.config" || { echo "Debian config lost $o"; return 1; }
	done
}

if ! apply_series; then
	result matrix-debian-amd64 0 1 0 "the series does not apply (see above)"
	matrix_exit
fi
ta=$(date +%s) && cpu && ca=$CPU
arch_info x86_64
cfg=$(ls /usr/src/linux-config-6.12/config.amd64_none_amd64.xz 2>/dev/null)
if [ -z "$cfg" ] && ensure_pkg linux-config-6.12; then
	cfg=$(ls /usr/src/linux-config-6.12/config.amd64_none_amd64.xz 2>/dev/null)
	[ -n "$cfg" ] || WHY="linux-config-6.12 has no config.amd64_none_amd64.xz"
fi
if [ -z "$cfg" ]; then
	result matrix-debian-amd64 0 0 1 "$WHY"
	matrix_exit
fi
src=$BUILD/src/$TREE out=$MB/obj/$TREE-debian-amd64 dlog=$LOGS/$TREE-debian-amd64.log
mkdir -p "$out"
dirs=$(build_dirs)
# shellcheck disable=SC2086
if config_step "config debian-amd64 ($(basename "$cfg"))" "$dlog.config" "$out/.cfg-hash" \
	"$( (sha256sum <"$cfg"; echo "$MATRIX_DEBIAN_DEBUG_INFO") | sha256sum | cut -c1-16)" \
	debian_config "$src" "$out" "$cfg" &&
	step "build debian-amd64 ($TREE): $dirs" "$dlog" kbuild "$src" "$out" $dirs &&
	[ -f "$out/mm/mprotect.o" ]; then
	cost $ta $ca
	result matrix-debian-amd64 1 0 0 "${dirs}built with $(basename "$cfg") (PARAVIRT=y, $(thp_note "$out")) ($COST)"
else
	cost $ta $ca
	result matrix-debian-amd64 0 1 0 "build failed (log: $dlog*) ($COST)"
fi
matrix_exit
