#!/bin/sh
# build-matrix.sh: build checks of the series (patches/series, or $SERIES_DIR)
# on the arches and configs we do not boot. Called by check.sh; runs alone too.
#
# Checks (one result line each in $RESULTS: NAME PASS FAIL SKIP):
#   matrix-ARCH          tinyconfig + configs/matrix/{common,ARCH}.config (THP
#                        wherever the arch has it) with the series applied:
#                        build mm/, arch/ARCH/mm/ and the dirs of touched .c
#                        files; .config must have every asked-for option and
#                        mm/mprotect.o must be built. ARCH in x86_64 arm64
#                        i386 (no __HAVE_ARCH_PTEP_MODIFY_PROT_TRANSACTION)
#                        arm riscv64 s390x powerpc64le (s390 and powerpc
#                        override the single-PTE transaction).
#   matrix-debian-amd64  Debian's own amd64 config (linux-config-6.12; it has
#                        PARAVIRT, so x86's paravirt transaction is used):
#                        mm/ arch/x86/mm/ with the series applied.
#   matrix-prefix-ARCH   every prefix 1..N of the series builds mm/ and
#                        arch/ARCH/mm/, same config as matrix-ARCH; PASS/FAIL
#                        count prefixes. ARCH in $PREFIX_ARCHES, whose
#                        matrix-ARCH is the build of prefix N.
#   matrix-checkpatch    checkpatch.pl --strict on each patch: a patch with
#                        reports passes only if its message has a line
#                        "checkpatch: <why>"; PASS/FAIL count patches.
#   matrix-w1-ARCH       W=1 gcc warnings (all of them, headers included) of
#                        mm/mprotect.o and of the touched .c files: stock vs
#                        patched, none new allowed (line numbers ignored).
#   matrix-sparse-ARCH   sparse (C=2) on the same objects, none new allowed
#                        (context imbalances by kind and file: inlining moves
#                        them to other functions).
#                        ARCH in $PREFIX_ARCHES for both.
#
# Environment:
#   MATRIX_SET       default: all checks, the 7 arches, prefixes on x86_64
#                    and arm64 (cold ccache, 6-patch series: ~1100 s of CPU,
#                    ~12-15 min on 2 idle cores; ~30 min on a busy machine;
#                    a rerun after a series change rebuilds only what changed);
#                    quick: checkpatch + x86_64 i386 arm64 + W=1/sparse;
#                    full: default + i386 in the prefix walk
#   MATRIX_ARCHES    arches for matrix-ARCH (overrides the set)
#   MATRIX_CHECKS    subset of: arches debian prefixes checkpatch warnings
#   PREFIX_ARCHES    arches for the prefix and warnings checks (x86_64 arm64;
#                    empty: none)
#   SERIES_DIR       series to check (default patches/); another dir gets its
#                    own trees (build/src/matrix-alt*), patches/ is untouched
#   MATRIX_TREE      name of that tree (default matrix, or matrix-alt)
#   MATRIX_JOBS      make -j (default 2); MATRIX_NICE (default 15)
#   MATRIX_DEBIAN_DEBUG_INFO=1  keep Debian's DEBUG_INFO (off by default: it
#                    only slows the compile, it changes no code)
#   RESULTS          result file to append to (default
#                    build/matrix/results-matrix.txt, truncated when not given)
# Logs: build/log/matrix/ (build/log/matrix-alt/ for another SERIES_DIR).
# Exit status: non-zero if any check failed. A skip (missing package, empty
# series) is reported with its reason and is not a pass.
. "$(dirname "$0")/lib.sh"

JOBS=${MATRIX_JOBS:-2}
NICE=${MATRIX_NICE:-15}
export CCACHE_DIR=${CCACHE_DIR:-$BUILD/ccache}

case ${MATRIX_SET:-default} in
quick)
	def_arches="x86_64 i386 arm64"
	def_checks="arches checkpatch warnings"
	;;
default | full)
	def_arches="x86_64 arm64 i386 arm riscv64 s390x powerpc64le"
	def_checks="checkpatch arches warnings prefixes debian"
	;;
*) die "unknown MATRIX_SET '$MATRIX_SET' (known: quick default full)" ;;
esac
ARCHES_M=${MATRIX_ARCHES:-$def_arches}
CHECKS=${MATRIX_CHECKS:-$def_checks}
if [ "${MATRIX_SET:-default}" = full ]; then
	PREFIX_ARCHES=${PREFIX_ARCHES-x86_64 arm64 i386}
else
	PREFIX_ARCHES=${PREFIX_ARCHES-x86_64 arm64}
fi
want() { case " $CHECKS " in *" $1 "*) return 0 ;; esac; return 1; }

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
PTREE=$TREE-prefix
MB=$BUILD/matrix
LOGS=$BUILD/log/$TREE
WARN=$MB/warn-$TREE
mkdir -p "$MB" "$LOGS" "$WARN"
if [ -z "$RESULTS" ]; then
	RESULTS=$MB/results-$TREE.txt
	: >"$RESULTS"
fi

nfail=0
MSTART=$(date +%s)
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

# The arch records: kbuild ARCH, cross prefix, Debian package, arch dir.
arch_info() {
	case $1 in
	x86_64) KA=x86_64 CROSS='' PKG=gcc SRCARCH=x86 ;;
	i386) KA=i386 CROSS='' PKG=gcc SRCARCH=x86 ;;
	arm64) KA=arm64 CROSS=aarch64-linux-gnu- PKG=gcc-aarch64-linux-gnu SRCARCH=arm64 ;;
	arm) KA=arm CROSS=arm-linux-gnueabihf- PKG=gcc-arm-linux-gnueabihf SRCARCH=arm ;;
	riscv64) KA=riscv CROSS=riscv64-linux-gnu- PKG=gcc-riscv64-linux-gnu SRCARCH=riscv ;;
	s390x) KA=s390 CROSS=s390x-linux-gnu- PKG=gcc-s390x-linux-gnu SRCARCH=s390 ;;
	powerpc64le) KA=powerpc CROSS=powerpc64le-linux-gnu- PKG=gcc-powerpc64le-linux-gnu SRCARCH=powerpc ;;
	*) return 1 ;;
	esac
}

# ensure_pkg PKG: installed, or installed now; else sets WHY and fails.
# apt-get update runs once, and only when something is missing.
APT_UPDATED=
ensure_pkg() {
	local cand
	dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'ok installed' && return 0
	[ "$(id -u)" = 0 ] || { WHY="$1 not installed (not root)"; return 1; }
	export DEBIAN_FRONTEND=noninteractive
	if [ -z "$APT_UPDATED" ]; then
		apt-get update -q >>"$LOGS/apt.log" 2>&1
		APT_UPDATED=1
	fi
	cand=$(apt-cache policy "$1" 2>/dev/null | sed -n 's/^ *Candidate: *//p')
	case $cand in
	'' | '(none)')
		WHY="package $1 not available from apt (apt-cache policy: no candidate)"
		return 1
		;;
	esac
	echo "installing $1"
	apt-get install -y -q --no-install-recommends "$1" >>"$LOGS/apt.log" 2>&1 ||
		{ WHY="apt-get install $1 failed (log: $LOGS/apt.log)"; return 1; }
}

"$TOP/scripts/deps.sh" || die "scripts/deps.sh failed"
"$TOP/scripts/source.sh" stock || die "no stock tree"
STOCK=$BUILD/src/stock

# The series, as a list of patch files.
PATCHES=
if [ -f "$SERIES_DIR/series" ]; then
	PATCHES=$(grep -v '^[[:space:]]*\(#\|$\)' "$SERIES_DIR/series" | awk '{print $1}')
fi
N=$(echo $PATCHES | wc -w)
# Files the series touches (paths in the tree).
TOUCHED=$(for p in $PATCHES; do
	sed -n 's,^+++ b/\([^[:space:]]*\).*,\1,p' "$SERIES_DIR/$p"
done | sort -u)
TOUCHED_C=$(echo "$TOUCHED" | grep '\.c$' || true)
echo "build matrix: series $SERIES_DIR ($N patches), tree build/src/$TREE, checks: $CHECKS"

# apply_prefix NAME K: build/src/NAME = stock + the first K patches.
apply_prefix() {
	local d=$MB/series-$1 p

	rm -rf "$d" && mkdir -p "$d"
	echo "$PATCHES" | head -n "$2" | sed '/^$/d' >"$d/series"
	for p in $(cat "$d/series"); do cp "$SERIES_DIR/$p" "$d/$p"; done
	SERIES_DIR=$d PATCHED_NAME=$1 "$TOP/scripts/source.sh" patched
}

# configure SRC OUT ARCH: tinyconfig + the fragments; every option asked for
# must stick, except those the arch fragment lists as not-on-this-arch.
configure() {
	local src=$1 out=$2 a=$3 frags notarch bad
	frags="$TOP/configs/matrix/common.config $TOP/configs/matrix/$a.config"
	kmake() { nice -n "$NICE" make -C "$src" O="$out" ARCH="$KA" CROSS_COMPILE="$CROSS" "$@"; }
	kmake tinyconfig &&
		"$src/scripts/kconfig/merge_config.sh" -m -O "$out" "$out/.config" $frags &&
		kmake olddefconfig || return 1
	notarch=$(sed -n 's/^# not-on-this-arch://p' "$TOP/configs/matrix/$a.config")
	bad=$(cat $frags | sed -n 's/^\(CONFIG_[A-Z0-9_]*=.*\)/\1/p' | while read -r w; do
		n=${w%%=*} v=${w#*=}
		case " $notarch " in *" $n "*) continue ;; esac
		if [ "$v" = n ]; then
			grep -q "^$n=" "$out/.config" && echo "$n"
		else
			grep -qx "$w" "$out/.config" || echo "$n"
		fi
	done)
	[ -z "$bad" ] || { echo "options not set as requested:" $bad; return 1; }
}

# kbuild SRC OUT TARGETS...: make with ccache, niced.
kbuild() {
	local src=$1 out=$2
	shift 2
	LC_ALL=C nice -n "$NICE" make -C "$src" O="$out" ARCH="$KA" \
		CROSS_COMPILE="$CROSS" CC="ccache ${CROSS}gcc" -j"$JOBS" "$@"
}

# build_dirs ARCH: the directories to build for ARCH.
build_dirs() {
	local dirs f
	dirs="mm/ arch/$SRCARCH/mm/"
	for f in $TOUCHED_C; do
		case $f in
		arch/"$SRCARCH"/* | mm/*) ;;
		arch/*) continue ;;
		esac
		dirs="$dirs ${f%/*}/"
	done
	echo $dirs | tr ' ' '\n' | sort -u | tr '\n' ' '
}

# build_arch TREE ARCH LOGNAME: configure (when the fragments changed) and
# build the dirs; mm/mprotect.o must exist afterwards.
build_arch() {
	local src=$BUILD/src/$1 out=$MB/obj/$1-$2 a=$2 blog=$LOGS/$3.log fh
	mkdir -p "$out"
	fh=$(cat "$TOP/configs/matrix/common.config" "$TOP/configs/matrix/$a.config" | sha256sum | cut -c1-16)
	if [ ! -f "$out/.config" ] || [ "$(cat "$out/.frag-hash" 2>/dev/null)" != "$fh" ]; then
		rm -f "$out/.frag-hash"
		step "config $3 ($a, $1)" "$blog.config" configure "$src" "$out" "$a" || return 1
		echo "$fh" >"$out/.frag-hash"
	fi
	# shellcheck disable=SC2046
	if ! step "build $3: $(build_dirs)" "$blog" kbuild "$src" "$out" $(build_dirs); then
		# The first errors, which the log's tail may not show.
		grep -m 5 ': error:' "$blog" | sed "s,$src/,,g; s/^/    first errors: /"
		return 1
	fi
	[ -f "$out/mm/mprotect.o" ] || { echo "    mm/mprotect.o not built (log: $blog)"; return 1; }
}

thp_note() {
	if grep -q '^CONFIG_TRANSPARENT_HUGEPAGE=y' "$1/.config"; then
		echo "THP=y"
	else
		echo "THP unavailable"
	fi
}

# --- checkpatch -------------------------------------------------------------
if want checkpatch; then
	if [ "$N" = 0 ]; then
		result matrix-checkpatch 0 0 1 "no patches in $SERIES_DIR/series"
	else
		ok=0 bad=0 total=0 cplog=$LOGS/checkpatch.log
		: >"$cplog"
		for p in $PATCHES; do
			out=$(cd "$STOCK" && perl scripts/checkpatch.pl --strict --color=never \
				"$SERIES_DIR/$p" 2>&1)
			{ echo "=== $p"; echo "$out"; } >>"$cplog"
			counts=$(echo "$out" | sed -n 's/^total: \([0-9]*\) errors, \([0-9]*\) warnings, \([0-9]*\) checks.*/\1 \2 \3/p' | tail -n 1)
			[ -n "$counts" ] || counts="1 0 0"
			set -- $counts
			n=$(($1 + $2 + $3))
			total=$((total + n))
			# The commit message: up to the first "---" line.
			why=$(sed -n '/^---$/q;p' "$SERIES_DIR/$p" | grep -i '^[[:space:]]*checkpatch:' | head -n 1)
			if [ "$n" = 0 ]; then
				ok=$((ok + 1))
				echo "    $p: clean"
			elif [ -n "$why" ]; then
				ok=$((ok + 1))
				echo "    $p: $1 errors, $2 warnings, $3 checks, justified: $(echo "$why" | sed 's/^[[:space:]]*//')"
			else
				bad=$((bad + 1))
				echo "    $p: $1 errors, $2 warnings, $3 checks, not justified in the commit message"
				echo "$out" | grep -E '^(ERROR|WARNING|CHECK):' | sed 's/^/      /' | head -n 10
			fi
		done
		result matrix-checkpatch $ok $bad 0 "$N patches, $total reports, $bad patches with unjustified reports (log: $cplog)"
	fi
fi

# --- W=1 and sparse helpers ----------------------------------------------------
# The objects: mm/mprotect.o and the touched .c files, generic or of this arch.
w1_objs() {
	local objs f
	objs="mm/mprotect.o"
	for f in $TOUCHED_C; do
		case $f in
		arch/"$SRCARCH"/*) ;;
		arch/*) continue ;;
		esac
		objs="$objs ${f%.c}.o"
	done
	echo $objs | tr ' ' '\n' | sort -u | tr '\n' ' '
}

# norm SRC: warning lines, without line/column numbers and tree prefixes.
norm() {
	grep -E ': (warning|error):' | sed -e "s,$1/,,g" \
		-e 's/^\([^:]*\):[0-9]*:[0-9]*:/\1:/' -e 's/^\([^:]*\):[0-9]*:/\1:/' | sort
}

# measure TREE ARCH KIND TAG OBJS...: KIND (w1|sparse) warnings of OBJS in
# $WARN/ARCH-TAG.KIND, normalized. Objects whose source is not in TREE
# (added by the series) are left out on the stock side.
measure() {
	local tree=$1 a=$2 kind=$3 tag=$4 src out objs o mlog
	shift 4
	src=$BUILD/src/$tree out=$MB/obj/$tree-$a mlog=$LOGS/$kind-$tag-$a.log
	objs=
	for o in "$@"; do
		[ -f "$src/${o%.o}.c" ] && objs="$objs $o"
	done
	if [ "$kind" = w1 ]; then
		# Rebuilt now (a ccache hit replays the warnings).
		for o in $objs; do rm -f "$out/$o"; done
		step "W=1 $a $tag:$objs" "$mlog" kbuild "$src" "$out" W=1 $objs || return 1
		norm "$src" <"$mlog" >"$WARN/$a-$tag.$kind"
	else
		step "sparse $a $tag:$objs" "$mlog" kbuild "$src" "$out" C=2 $objs || return 1
		# gcc's own warnings (objects rebuilt without W=1) are not sparse's.
		# Sparse reports a lock context imbalance in the outermost function
		# that an inline function is inlined into: inlining a function
		# with an old imbalance into two callers moves it and doubles it.
		# So compare those by kind and file, not by function or count.
		grep -v '\[-W[^]]*\]$' "$mlog" | norm "$src" |
			sed "s/context imbalance in '[^']*'/context imbalance in a function/" |
			awk '!/context imbalance in a function/ || !seen[$0]++' \
			>"$WARN/$a-$tag.$kind"
	fi
}

# compare NAME BASE NEW LOG: no warning more often in NEW than in BASE.
compare() {
	local new nb nn
	new=$(uniq -c <"$3" | sed 's/^ *//' | while read -r c line; do
		b=$(grep -cxF -- "$line" "$2")
		[ "$c" -gt "$b" ] && echo "+$((c - b)) $line"
	done)
	nb=$(wc -l <"$2") nn=$(wc -l <"$3")
	if [ -z "$new" ]; then
		result "$1" 1 0 0 "no new warnings (stock $nb, patched $nn) (log: $4)"
	else
		result "$1" 0 1 0 "$(echo "$new" | wc -l) new warnings (stock $nb, patched $nn) (log: $4)"
		echo "$new" | head -n 20 | sed 's/^/    /'
	fi
}

in_list() { case " $2 " in *" $1 "*) return 0 ;; esac; return 1; }

# --- the series, applied -----------------------------------------------------
SERIES_BROKEN=
if want arches || want debian; then
	if ! out=$(SERIES_DIR=$SERIES_DIR PATCHED_NAME=$TREE "$TOP/scripts/source.sh" patched 2>&1); then
		echo "$out" | tail -n 30 | sed 's/^/    | /'
		# The walk still tells which prefix stops applying.
		SERIES_BROKEN=1
		for a in $ARCHES_M; do
			in_list "$a" "$PREFIX_ARCHES" && continue
			want arches && result "matrix-$a" 0 1 0 "the series does not apply (see above)"
		done
		want debian && result matrix-debian-amd64 0 1 0 "the series does not apply (see above)"
	fi
	[ -n "$out" ] && echo "$out"
fi

# --- the walk: prefixes, matrix-ARCH, W=1 and sparse for $PREFIX_ARCHES ----------
# One object dir per arch on build/src/matrix-prefix ($PTREE), holding prefix k of
# the series for k = 1..N in turn (only N without the prefixes check): each
# build is incremental, as source.sh refreshes the mtimes of the files a
# prefix touches. Prefix N is matrix-ARCH; then W=1 and sparse of the touched
# objects there and, after going back to k = 0, in stock.
WALK=
SPARSE_MISSING=
want warnings && { ensure_pkg sparse || SPARSE_MISSING=$WHY; }
for a in $PREFIX_ARCHES; do
	arch_info "$a" || die "unknown arch $a in PREFIX_ARCHES"
	if { want prefixes || want warnings || { want arches && in_list "$a" "$ARCHES_M"; }; }; then
		if ensure_pkg "$PKG"; then
			WALK="$WALK $a"
		else
			want prefixes && result "matrix-prefix-$a" 0 0 1 "$WHY"
			want warnings && result "matrix-w1-$a" 0 0 1 "$WHY" &&
				result "matrix-sparse-$a" 0 0 1 "$WHY"
			want arches && in_list "$a" "$ARCHES_M" && result "matrix-$a" 0 0 1 "$WHY"
		fi
	fi
done
if [ -n "$WALK" ]; then
	if want prefixes && [ "$N" -gt 0 ]; then
		ks=$(seq 1 "$N")
	else
		ks=$N
	fi
	want prefixes && [ "$N" = 0 ] && for a in $WALK; do
		result "matrix-prefix-$a" 0 0 1 "no patches in $SERIES_DIR/series"
	done
	pass='' fail='' noapply=''
	rm -f "$WARN"/*.w1 "$WARN"/*.sparse
	ta=$(date +%s) && cpu && ca=$CPU
	for k in $ks; do
		p=stock
		[ "$k" -gt 0 ] && p=$(echo "$PATCHES" | sed -n "${k}p")
		if ! apply_prefix "$PTREE" "$k" >"$LOGS/prefix-$k.log" 2>&1; then
			echo "    prefix $k ($p) does not apply (log: $LOGS/prefix-$k.log)"
			for a in $WALK; do fail="$fail $a:$k" noapply="$noapply $a:$k"; done
			continue
		fi
		for a in $WALK; do
			arch_info "$a"
			if build_arch "$PTREE" "$a" "prefix-$k-$a"; then
				pass="$pass $a:$k"
			else
				fail="$fail $a:$k"
			fi
		done
	done
	cost $ta $ca
	echo "    walk of$WALK over prefixes $(printf '%s ' $ks): $COST"
	for a in $WALK; do
		arch_info "$a"
		lg=$LOGS/prefix-$N-$a.log
		okN=0
		in_list "$a:$N" "$pass" && okN=1
		if want arches && in_list "$a" "$ARCHES_M"; then
			if [ $okN = 1 ]; then
				result "matrix-$a" 1 0 0 "$(build_dirs)built, $(thp_note "$MB/obj/$PTREE-$a"), mm/mprotect.o ok (log: $lg)"
			elif in_list "$a:$N" "$noapply"; then
				result "matrix-$a" 0 1 0 "the series does not apply (log: $LOGS/prefix-$N.log)"
			else
				result "matrix-$a" 0 1 0 "build failed (log: $lg*)"
			fi
		fi
		if want prefixes && [ "$N" -gt 0 ]; then
			np=$(echo $pass | tr ' ' '\n' | grep -c "^$a:")
			nf=$(echo $fail | tr ' ' '\n' | grep -c "^$a:")
			if [ "$nf" -gt 0 ]; then
				bad=$(echo $fail | tr ' ' '\n' | sed -n "s/^$a://p" | tr '\n' ' ')
				result "matrix-prefix-$a" "$np" "$nf" 0 "prefixes failing (of 1..$N): $bad(logs: $LOGS/prefix-K-$a.log)"
			else
				result "matrix-prefix-$a" "$np" 0 0 "prefixes 1..$N build mm/ arch/$SRCARCH/mm/ (walk:$WALK, $COST)"
			fi
		fi
		if want warnings && [ $okN = 1 ]; then
			measure "$PTREE" "$a" w1 patched $(w1_objs)
			[ -n "$SPARSE_MISSING" ] || measure "$PTREE" "$a" sparse patched $(w1_objs)
		fi
	done
	if want warnings; then
		# Back to stock: the touched files get new mtimes, so rebuilt.
		if [ "$N" -gt 0 ] && ! apply_prefix "$PTREE" 0 >"$LOGS/prefix-0.log" 2>&1; then
			echo "    cannot make the stock prefix tree (log: $LOGS/prefix-0.log)"
		fi
		for a in $WALK; do
			arch_info "$a"
			if ! in_list "$a:$N" "$pass"; then
				# Counted as failed in matrix-ARCH already; nothing to compare.
				result "matrix-w1-$a" 0 0 1 "not run: the series does not build on $a (see matrix-$a)"
				result "matrix-sparse-$a" 0 0 1 "not run: the series does not build on $a (see matrix-$a)"
				continue
			fi
			if measure "$PTREE" "$a" w1 stock $(w1_objs) && [ -f "$WARN/$a-patched.w1" ]; then
				compare "matrix-w1-$a" "$WARN/$a-stock.w1" "$WARN/$a-patched.w1" "$LOGS/w1-patched-$a.log"
			else
				result "matrix-w1-$a" 0 1 0 "W=1 build failed (logs: $LOGS/w1-*-$a.log)"
			fi
			if [ -n "$SPARSE_MISSING" ]; then
				result "matrix-sparse-$a" 0 0 1 "$SPARSE_MISSING"
			elif measure "$PTREE" "$a" sparse stock $(w1_objs) && [ -f "$WARN/$a-patched.sparse" ]; then
				compare "matrix-sparse-$a" "$WARN/$a-stock.sparse" "$WARN/$a-patched.sparse" \
					"$LOGS/sparse-patched-$a.log"
			else
				result "matrix-sparse-$a" 0 1 0 "sparse run failed (logs: $LOGS/sparse-*-$a.log)"
			fi
		done
	fi
fi

# --- matrix-ARCH, the other arches --------------------------------------------------
if want arches && [ -z "$SERIES_BROKEN" ]; then
	for a in $ARCHES_M; do
		in_list "$a" "$PREFIX_ARCHES" && continue
		arch_info "$a" || { result "matrix-$a" 0 1 0 "unknown arch $a"; continue; }
		ta=$(date +%s) && cpu && ca=$CPU
		if ! ensure_pkg "$PKG"; then
			result "matrix-$a" 0 0 1 "$WHY"
			continue
		fi
		if build_arch "$TREE" "$a" "$TREE-$a"; then
			cost $ta $ca
			result "matrix-$a" 1 0 0 "$(build_dirs)built, $(thp_note "$MB/obj/$TREE-$a"), mm/mprotect.o ok ($COST)"
		else
			cost $ta $ca
			result "matrix-$a" 0 1 0 "build failed (log: $LOGS/$TREE-$a.log*) ($COST)"
		fi
	done
fi

# --- matrix-debian-amd64 ---------------------------------------------------------
debian_config() {
	local src=$1 out=$2 cfg=$3 o
	xz -dc "$cfg" >"$out/.config" || return 1
	# Only what a partial build cannot have: signing keys, and debug info
	# (compile time only) unless asked for.
	"$src/scripts/config" --file "$out/.config" --set-str SYSTEM_TRUSTED_KEYS "" \
		--set-str SYSTEM_REVOCATION_KEYS "" --set-str MODULE_SIG_KEY "certs/signing_key.pem"
	if [ -z "$MATRIX_DEBIAN_DEBUG_INFO" ]; then
		"$src/scripts/config" --file "$out/.config" --disable DEBUG_INFO \
			--disable DEBUG_INFO_DWARF5 --disable DEBUG_INFO_DWARF4 \
			--disable DEBUG_INFO_DWARF_TOOLCHAIN_DEFAULT --disable DEBUG_INFO_BTF \
			--enable DEBUG_INFO_NONE
	fi
	kmake() { nice -n "$NICE" make -C "$src" O="$out" ARCH=x86_64 "$@"; }
	kmake olddefconfig || return 1
	for o in CONFIG_PARAVIRT=y CONFIG_TRANSPARENT_HUGEPAGE=y CONFIG_NUMA=y; do
		grep -qx "$o" "$out/.config" || { echo "Debian config lost $o"; return 1; }
	done
}

if want debian && [ -z "$SERIES_BROKEN" ]; then
	ta=$(date +%s) && cpu && ca=$CPU
	arch_info x86_64
	cfg=$(ls /usr/src/linux-config-6.12/config.amd64_none_amd64.xz 2>/dev/null)
	if [ -z "$cfg" ] && ensure_pkg linux-config-6.12; then
		cfg=$(ls /usr/src/linux-config-6.12/config.amd64_none_amd64.xz 2>/dev/null)
		[ -n "$cfg" ] || WHY="linux-config-6.12 has no config.amd64_none_amd64.xz"
	fi
	if [ -z "$cfg" ]; then
		result matrix-debian-amd64 0 0 1 "$WHY"
	else
		src=$BUILD/src/$TREE out=$MB/obj/$TREE-debian-amd64 dlog=$LOGS/$TREE-debian-amd64.log
		mkdir -p "$out"
		ch=$( (sha256sum <"$cfg"; echo "$MATRIX_DEBIAN_DEBUG_INFO") | sha256sum | cut -c1-16)
		cok=1
		if [ ! -f "$out/.config" ] || [ "$(cat "$out/.cfg-hash" 2>/dev/null)" != "$ch" ]; then
			rm -f "$out/.cfg-hash"
			if step "config debian-amd64 ($(basename "$cfg"))" "$dlog.config" debian_config "$src" "$out" "$cfg"; then
				echo "$ch" >"$out/.cfg-hash"
			else
				cok=0
			fi
		fi
		dirs=$(build_dirs)
		# shellcheck disable=SC2086
		if [ $cok = 1 ] && step "build debian-amd64 ($TREE): $dirs" "$dlog" kbuild "$src" "$out" $dirs &&
			[ -f "$out/mm/mprotect.o" ]; then
			cost $ta $ca
			result matrix-debian-amd64 1 0 0 "${dirs}built with $(basename "$cfg") (PARAVIRT=y, $(thp_note "$out")) ($COST)"
		else
			cost $ta $ca
			result matrix-debian-amd64 0 1 0 "build failed (log: $dlog*) ($COST)"
		fi
	fi
fi

cost "$MSTART" 0
printf '[%5ss] build matrix done: %s failed checks; %s\n' "$(($(date +%s) - T0))" "$nfail" "$COST"
rm -f "$MB/.times-$$"
[ "$nfail" = 0 ]
