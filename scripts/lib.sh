# Shared shell helpers; sourced by the scripts in this directory.
# shellcheck shell=sh

TOP=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$TOP/build}
T0=${T0:-$(date +%s)}
export T0
# ccache's depend mode: a miss costs the compile only. Its default mode runs
# the preprocessor for every miss to hash the result, which made a cold
# kernel build about 1.5x as long as one without ccache (mm/ and fs/xfs/ of
# the x86_64 test kernel: 78 s cold default, 53 s without ccache, 54 s cold
# in depend mode; hits are direct hits either way). Kbuild passes -MMD.
# Results cached in one mode are not hits in the other: CCACHE_NODEPEND=1
# keeps the default mode, e.g. to reuse a cache filled in it.
[ -n "$CCACHE_NODEPEND" ] || export CCACHE_DEPEND=1

die() {
	echo "error: $*" >&2
	exit 1
}

# step LABEL LOG CMD...: run CMD with its output in LOG, print one line with
# the elapsed time, and on failure name the log and show its tail.
step() {
	label=$1 log=$2
	shift 2
	mkdir -p "$(dirname "$log")"
	s=$(date +%s)
	if "$@" >"$log" 2>&1; then
		printf '[%5ss] %-44s ok (%ss)\n' "$(($(date +%s) - T0))" "$label" "$(($(date +%s) - s))"
		return 0
	fi
	printf '[%5ss] %-44s FAILED (%ss), log: %s\n' "$(($(date +%s) - T0))" "$label" "$(($(date +%s) - s))" "$log"
	tail -n 30 "$log" | sed 's/^/    | /'
	return 1
}

# configure SRC OUT SKIP FRAG...: configure the kernel that $KMAKE (make -C
# SRC O=OUT ARCH=... CROSS_COMPILE=...) builds: tinyconfig, merge_config.sh of
# the fragments in order, olddefconfig. Then every option a fragment asks for
# (as the last fragment that names it asks) must be set so in .config, but
# those named in SKIP (what the arch cannot have): a dependency dropped
# without a word would leave a test measuring, or a build check building,
# another kernel than the fragments say.
configure() {
	cf_src=$1 cf_out=$2 cf_skip=$3
	shift 3
	$KMAKE tinyconfig &&
		"$cf_src/scripts/kconfig/merge_config.sh" -m -O "$cf_out" "$cf_out/.config" "$@" &&
		$KMAKE olddefconfig || return 1
	cf_bad=$(cat "$@" | sed -n -e 's/^\(CONFIG_[A-Z0-9_]*\)=\(.*\)/\1=\2/p' \
		-e 's/^# \(CONFIG_[A-Z0-9_]*\) is not set/\1=n/p' |
		awk -F= '{ if (!($1 in v)) o[n++] = $1; v[$1] = $0 }
			END { for (i = 0; i < n; i++) print v[o[i]] }' |
		while read -r cf_want; do
			case " $cf_skip " in *" ${cf_want%%=*} "*) continue ;; esac
			case $cf_want in
			*=n) ! grep -q "^${cf_want%=n}=" "$cf_out/.config" || echo "${cf_want%%=*}" ;;
			*) grep -qx "$cf_want" "$cf_out/.config" || echo "${cf_want%%=*}" ;;
			esac
		done)
	[ -z "$cf_bad" ] || { echo "options not set as requested:" $cf_bad; return 1; }
}

# config_step LABEL LOG STAMP HASH CMD...: run the configure command CMD as a
# step, unless the .config beside the file STAMP exists and was made from
# inputs of that HASH (which STAMP holds). The stamp goes first, so that a
# configure that failed half way is done again.
config_step() {
	cs_stamp=$3 cs_hash=$4
	[ -f "${cs_stamp%/*}/.config" ] && [ "$(cat "$cs_stamp" 2>/dev/null)" = "$cs_hash" ] &&
		return 0
	rm -f "$cs_stamp"
	cs_label=$1 cs_log=$2
	shift 4
	step "$cs_label" "$cs_log" "$@" || return 1
	echo "$cs_hash" >"$cs_stamp"
}

# load_arch ARCH: read the machine record machines/ARCH.conf.
load_arch() {
	[ -f "$TOP/machines/$1.conf" ] ||
		die "unknown ARCH '$1' (known: $(cd "$TOP/machines" && ls ./*.conf | sed 's,\./,,;s,\.conf,,' | tr '\n' ' '))"
	# A record may boot another record's kernels (KERNEL_OF) with more
	# kernel parameters (ARCH_APPEND), e.g. powerpc's hash MMU.
	KERNEL_OF= ARCH_APPEND= BENCH_MODES=
	# shellcheck disable=SC1090
	. "$TOP/machines/$1.conf"
	ARCH_NAME=$1
	KERNEL_OF=${KERNEL_OF:-$1}
}

# kernel_dir VARIANT KIND: where the arch's kernel of that kind is built.
kernel_dir() {
	echo "$BUILD/kernel/$KERNEL_OF-$1-$2"
}

# kernel_frags VARIANT KIND: the config fragments of the arch's kernel of
# that kind, in merge order. The arch fragments (KCONFIG) come last: they
# may turn off what their arch cannot have.
kernel_frags() {
	kf="$TOP/configs/base.config $TOP/configs/distro.config"
	[ "$2" = test ] && kf="$kf $TOP/configs/debug.config"
	case $1 in mainline*) kf="$kf $TOP/configs/mainline.config" ;; esac
	for f in $KCONFIG; do	# the record may name more than one
		kf="$kf $TOP/configs/$f"
	done
	echo "$kf"
}

# A variant is stock, patched (patches/series), or the name of another series
# kept in build/series/NAME/ (scripts/series-at.sh makes one from a git
# revision), so that an older series can be booted beside the current one.
# The variants with a name of their own (source.sh says what each is).
NAMED_VARIANTS="stock patched mainline mainline-patched mainline-nobatch mainline-fixes mainline-lookup mainline-arm64"
check_variant() {
	for _named in $NAMED_VARIANTS; do [ "$1" = "$_named" ] && return 0; done
	case $1 in
	*[!a-zA-Z0-9_.-]* | '') die "bad VARIANT '$1'" ;;
	*) [ -f "$BUILD/series/$1/series" ] ||
		die "unknown VARIANT '$1' (known: $NAMED_VARIANTS $(ls "$BUILD/series" 2>/dev/null | tr '\n' ' '))" ;;
	esac
}

check_kind() {
	case $1 in
	bench | test) ;;
	*) die "unknown KIND '$1' (known: bench test)" ;;
	esac
}

# runlist_progs: the program names of the run list on stdin (a line is
# "[@SECS] [retry] [norandmaps] PROG ARGS"; comments and blank lines
# skipped), once each.
runlist_progs() {
	grep -v '^[[:space:]]*\(#\|$\)' |
		awk '{ i = 1; while ($i ~ /^@/ || $i == "retry" || $i == "norandmaps") i++; print $i }' | sort -u
}

# fixes_selftests ARCH: the mm selftests of ARCH's list whose sources the
# standalone fixes of patches/mainline/fixes change (their own tests).
fixes_selftests() {
	kselftest_list "$1" | runlist_progs | while read -r t; do
		grep -qx "+++ b/tools/testing/selftests/mm/$t.c" \
			"$TOP"/patches/mainline/fixes/0[0-9]*.patch && echo "$t"
	done
}

# kselftest_list ARCH [PREFIX]: the run list of mm selftests for ARCH; with
# PREFIX, each program's name is PREFIX-NAME (the 7.2 tree's selftests are
# built as ml-NAME beside 6.12's, see kselftests.sh).
kselftest_list() {
	grep -v '^[[:space:]]*\(#\|$\)' "$TOP/tests/kselftests.list" |
		awk -v a="$1" -v pre="$2" '$1 ~ /^arch=/ { if ($1 != "arch=" a) next; $1 = "" }
		{ sub(/^ /, ""); $0 = $0
		  if (pre != "")
			for (i = 1; i <= NF; i++)
				if ($i !~ /^@/ && $i != "retry" && $i != "norandmaps") {
					$i = pre "-" $i
					break
				}
		  print }'
}
