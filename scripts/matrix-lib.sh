# Shared helpers of the build matrix (build-matrix.sh and its jobs,
# matrix-*.sh); sourced after lib.sh.
# shellcheck shell=sh
#
# Environment:
#   SERIES_DIR   series to check (default patches/); another dir gets its own
#                trees (build/src/matrix-alt*), patches/ is untouched
#   MATRIX_TREE  name of that tree (default matrix, or matrix-alt)
#   MATRIX_JOBS  make -j (default 2); MATRIX_NICE (default 15)
#   RESULTS      result file to append to (default
#                build/matrix/results-TREE.txt, truncated when not given)
# Logs: build/log/TREE/.

JOBS=${MATRIX_JOBS:-2}
NICE=${MATRIX_NICE:-15}
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}
# The arches the matrix knows (arch_info).
MATRIX_KNOWN="x86_64 i386 arm64 arm64-nothp arm riscv64 s390x powerpc64le"

DEFAULT_SERIES=$TOP/patches
SERIES_DIR=${SERIES_DIR:-$DEFAULT_SERIES}
if [ -d "$SERIES_DIR" ]; then
	SERIES_DIR=$(cd "$SERIES_DIR" && pwd)
elif [ "$SERIES_DIR" != "$DEFAULT_SERIES" ]; then
	die "SERIES_DIR $SERIES_DIR missing"
fi
# Our own trees: never build/src/patched, which kernel.sh may be using.
if [ -n "$MATRIX_TREE" ]; then
	TREE=$MATRIX_TREE
elif [ "$SERIES_DIR" = "$DEFAULT_SERIES" ]; then
	TREE=matrix
else
	TREE=matrix-alt
fi
case $TREE in stock | patched) die "MATRIX_TREE must not be $TREE" ;; esac
# The prefix walk's tree: it holds one prefix of the series at a time.
PTREE=$TREE-prefix
MB=$BUILD/matrix
LOGS=$BUILD/log/$TREE
WARN=$MB/warn-$TREE
mkdir -p "$MB" "$LOGS" "$WARN"
if [ -z "$RESULTS" ]; then
	RESULTS=$MB/results-$TREE.txt
	: >"$RESULTS"
fi
[ -e "$RESULTS" ] || : >"$RESULTS" || die "cannot write $RESULTS"
export RESULTS

nfail=0
# cpu: CPU=seconds (user + sys) of the children waited for so far; with the
# wall time this tells what a check costs on an idle machine (cpu / cores).
# Not in a subshell: times reports the calling shell's children.
cpu() {
	times >"$MB/.times-$$"
	CPU=$(sed -n 2p "$MB/.times-$$" | awk '{ t = 0
		for (i = 1; i <= 2; i++) { split($i, a, "m"); sub("s", "", a[2]); t += a[1] * 60 + a[2] }
		printf "%d\n", t }')
}
# cost WALL0 CPU0: COST="Ns wall, Ms cpu" since then.
cost() {
	cpu
	COST="$(($(date +%s) - $1))s wall, $((CPU - $2))s cpu"
}
# result NAME PASS FAIL SKIP TEXT: record one check and print its summary.
result() {
	echo "$1 $2 $3 $4" >>"$RESULTS"
	if [ "$3" -gt 0 ]; then
		verdict=FAIL nfail=$((nfail + 1))
	elif [ "$2" -gt 0 ]; then
		verdict=PASS
	else
		verdict=SKIP
	fi
	printf '[%5ss] %-26s %-4s %s\n' "$(($(date +%s) - T0))" "$1" "$verdict" "$5"
}
# matrix_exit: end a job, non-zero if one of its checks failed.
matrix_exit() {
	rm -f "$MB/.times-$$"
	[ "$nfail" = 0 ]
	exit
}

in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# arch_info ARCH: kbuild ARCH, cross prefix, Debian package, arch dir.
arch_info() {
	case $1 in
	x86_64) KA=x86_64 CROSS='' PKG=gcc SRCARCH=x86 ;;
	i386) KA=i386 CROSS='' PKG=gcc SRCARCH=x86 ;;
	arm64 | arm64-nothp) KA=arm64 CROSS=aarch64-linux-gnu- PKG=gcc-aarch64-linux-gnu SRCARCH=arm64 ;;
	arm) KA=arm CROSS=arm-linux-gnueabihf- PKG=gcc-arm-linux-gnueabihf SRCARCH=arm ;;
	riscv64) KA=riscv CROSS=riscv64-linux-gnu- PKG=gcc-riscv64-linux-gnu SRCARCH=riscv ;;
	s390x) KA=s390 CROSS=s390x-linux-gnu- PKG=gcc-s390x-linux-gnu SRCARCH=s390 ;;
	powerpc64le) KA=powerpc CROSS=powerpc64le-linux-gnu- PKG=gcc-powerpc64le-linux-gnu SRCARCH=powerpc ;;
	*) return 1 ;;
	esac
}

# matrix_args USAGE ARCH...: a job's arch arguments: at least one, each known.
matrix_args() {
	ma_usage=$1
	shift
	[ $# -gt 0 ] || die "usage: $ma_usage"
	for ma_a; do
		case $ma_a in -*) die "unknown option '$ma_a' (usage: $ma_usage)" ;; esac
		arch_info "$ma_a" || die "unknown arch '$ma_a' (known: $MATRIX_KNOWN)"
	done
}

# ensure_pkg PKG: installed, or installed now; else sets WHY and fails.
# apt-get update runs once, and only when something is missing.
APT_UPDATED=
ensure_pkg() {
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed' && return 0
	[ "$(id -u)" = 0 ] || { WHY="$1 not installed (not root)"; return 1; }
	export DEBIAN_FRONTEND=noninteractive
	if [ -z "$APT_UPDATED" ]; then
		apt-get update -q >>"$LOGS/apt.log" 2>&1
		APT_UPDATED=1
	fi
	ep_cand=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	case $ep_cand in
	'' | '(none)')
		WHY="package $1 not available from apt (apt-cache policy: no candidate)"
		return 1
		;;
	esac
	echo "installing $1"
	apt-get install -y -q --no-install-recommends "$1" >>"$LOGS/apt.log" 2>&1 ||
		{ WHY="apt-get install $1 failed (log: $LOGS/apt.log)"; return 1; }
}

# matrix_init: after a job has checked its arguments: the packages, the
# stock tree, and the series: PATCHES (the patch files, in order), N (how
# many), TOUCHED_C (the .c files they touch, paths in the tree).
matrix_init() {
	"$TOP/scripts/deps.sh" || die "scripts/deps.sh failed"
	"$TOP/scripts/source.sh" stock || die "no stock tree"
	STOCK=$BUILD/src/stock
	PATCHES=
	if [ -f "$SERIES_DIR/series" ]; then
		PATCHES=$(grep -v '^[[:space:]]*\(#\|$\)' "$SERIES_DIR/series" | awk '{print $1}')
	fi
	N=$(echo $PATCHES | wc -w)
	TOUCHED_C=$(for mi_p in $PATCHES; do
		sed -n 's,^+++ b/\([^[:space:]]*\).*,\1,p' "$SERIES_DIR/$mi_p"
	done | sort -u | grep '\.c$' || true)
}

# apply_series: build/src/$TREE = stock + the whole series; if it does not
# apply, show why and fail.
apply_series() {
	if ! as_out=$(SERIES_DIR=$SERIES_DIR PATCHED_NAME=$TREE "$TOP/scripts/source.sh" patched 2>&1); then
		echo "$as_out" | tail -n 30 | sed 's/^/    | /'
		return 1
	fi
	[ -z "$as_out" ] || echo "$as_out"
}

# apply_prefix NAME K: build/src/NAME = stock + the first K patches. The
# files a prefix touches get fresh mtimes (source.sh), so a build in the
# same object dir after another prefix is incremental.
apply_prefix() {
	ap_d=$MB/series-$1
	rm -rf "$ap_d" && mkdir -p "$ap_d"
	echo "$PATCHES" | head -n "$2" | sed '/^$/d' >"$ap_d/series"
	for ap_p in $(cat "$ap_d/series"); do cp "$SERIES_DIR/$ap_p" "$ap_d/$ap_p"; done
	SERIES_DIR=$ap_d PATCHED_NAME=$1 "$TOP/scripts/source.sh" patched
}

# kbuild SRC OUT TARGETS...: make with ccache, niced.
kbuild() {
	kb_src=$1 kb_out=$2
	shift 2
	LC_ALL=C nice -n "$NICE" make -C "$kb_src" O="$kb_out" ARCH="$KA" \
		CROSS_COMPILE="$CROSS" CC="ccache ${CROSS}gcc" -j"$JOBS" "$@"
}

# touched_here: the touched .c files that the arch of arch_info builds
# (generic ones and its own).
touched_here() {
	for th_f in $TOUCHED_C; do
		case $th_f in
		arch/"$SRCARCH"/* | mm/*) ;;
		arch/*) continue ;;
		esac
		echo "$th_f"
	done
}

# build_dirs: the directories to build for the arch of arch_info: mm/, its
# arch's mm/, and the dirs of the touched .c files (generic or of this arch).
build_dirs() {
	bd_dirs="mm/ arch/$SRCARCH/mm/"
	for bd_f in $(touched_here); do
		bd_dirs="$bd_dirs ${bd_f%/*}/"
	done
	echo $bd_dirs | tr ' ' '\n' | sort -u | tr '\n' ' '
}

# build_arch TREE ARCH LOGNAME: configure (when the fragments changed:
# tinyconfig + configs/matrix/{common,ARCH}.config, every option asked for
# must stick but those the arch fragment lists as "# not-on-this-arch:")
# and build the dirs; mm/mprotect.o must exist afterwards.
build_arch() {
	ba_src=$BUILD/src/$1 ba_out=$MB/obj/$1-$2 ba_log=$LOGS/$3.log
	ba_frags="$TOP/configs/matrix/common.config $TOP/configs/matrix/$2.config"
	mkdir -p "$ba_out"
	KMAKE="nice -n $NICE make -C $ba_src O=$ba_out ARCH=$KA CROSS_COMPILE=$CROSS"
	# shellcheck disable=SC2086
	config_step "config $3 ($2, $1)" "$ba_log.config" "$ba_out/.frag-hash" \
		"$(cat $ba_frags | sha256sum | cut -c1-16)" \
		configure "$ba_src" "$ba_out" \
		"$(sed -n 's/^# not-on-this-arch://p' "$TOP/configs/matrix/$2.config")" $ba_frags ||
		return 1
	# shellcheck disable=SC2046
	if ! step "build $3: $(build_dirs)" "$ba_log" kbuild "$ba_src" "$ba_out" $(build_dirs); then
		# The first errors, which the log's tail may not show.
		grep -m 5 ': error:' "$ba_log" | sed "s,$ba_src/,,g; s/^/    first errors: /"
		return 1
	fi
	[ -f "$ba_out/mm/mprotect.o" ] || { echo "    mm/mprotect.o not built (log: $ba_log)"; return 1; }
}

thp_note() {
	if grep -q '^CONFIG_TRANSPARENT_HUGEPAGE=y' "$1/.config"; then
		echo "THP=y"
	else
		echo "THP unavailable"
	fi
}
