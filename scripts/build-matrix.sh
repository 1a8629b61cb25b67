#!/bin/sh
# build-matrix.sh: build checks of the series (patches/series, or $SERIES_DIR)
# on the arches and configs we do not boot. Called by check.sh; runs alone too.
# Each check is one result line in $RESULTS (NAME PASS FAIL SKIP), made by
# one job script:
#   matrix-checkpatch     matrix-checkpatch.sh: checkpatch.pl --strict
#   matrix-prefix-ARCH    matrix-prefixes.sh: every prefix of the series builds
#   matrix-ARCH           matrix-arch.sh: the series builds mm/ and arch/ARCH/mm/
#                         on tinyconfig + THP
#   matrix-w1-ARCH, matrix-sparse-ARCH
#                         matrix-warnings.sh: no new W=1 or sparse warnings
#   matrix-debian-amd64   matrix-debian.sh: Debian's own amd64 config
# The prefix walk, the warnings and matrix-ARCH of the arches in
# PREFIX_ARCHES share one tree and its object dirs, so that nothing is built
# twice.
#
# Environment (and matrix-lib.sh's: SERIES_DIR, MATRIX_TREE, MATRIX_JOBS,
# MATRIX_NICE, RESULTS):
#   MATRIX_SET       default: all checks, the 7 arches (and arm64 without
#                    THP), prefixes on x86_64
#                    and arm64 (cold ccache, 6-patch series: ~1100 s of CPU,
#                    ~12-15 min on 2 idle cores; ~30 min on a busy machine;
#                    a rerun after a series change rebuilds only what changed);
#                    quick: checkpatch + x86_64 i386 arm64 arm64-nothp +
#                    W=1/sparse;
#                    full: default + i386 in the prefix walk
#   MATRIX_ARCHES    arches for matrix-ARCH (overrides the set)
#   MATRIX_CHECKS    subset of: arches debian prefixes checkpatch warnings
#   PREFIX_ARCHES    arches for the prefix and warnings checks (x86_64 arm64;
#                    empty: none)
# Logs: build/log/matrix/ (build/log/matrix-alt/ for another SERIES_DIR).
# Exit status: non-zero if any check failed. A skip (missing package, empty
# series) is reported with its reason and is not a pass.
. "$(dirname "$0")/lib.sh"
[ $# = 0 ] || die "usage: $0 (no arguments; see its header for the environment)"

case ${MATRIX_SET:-default} in
quick)
	def_arches="x86_64 i386 arm64 arm64-nothp"
	def_checks="arches checkpatch warnings"
	;;
default | full)
	def_arches="x86_64 arm64 arm64-nothp i386 arm riscv64 s390x powerpc64le"
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
. "$TOP/scripts/matrix-lib.sh"
want() { in_list "$1" "$CHECKS"; }

MSTART=$(date +%s)
start=$(wc -l <"$RESULTS")
# A bad name in the lists is a failed check: check.sh counts results, and a
# check that silently did not run would count as nothing.
for c in $CHECKS; do
	in_list "$c" "arches debian prefixes checkpatch warnings" ||
		result "matrix-check-$c" 0 1 0 "unknown check '$c' in MATRIX_CHECKS (known: arches debian prefixes checkpatch warnings)"
done
prefix='' both='' rest=''
for a in $PREFIX_ARCHES; do
	if arch_info "$a"; then
		prefix="$prefix $a"
	else
		result "matrix-prefix-$a" 0 1 0 "unknown arch '$a' in PREFIX_ARCHES (known: $MATRIX_KNOWN)"
	fi
done
for a in $ARCHES_M; do
	if ! arch_info "$a"; then
		result "matrix-$a" 0 1 0 "unknown arch '$a' in MATRIX_ARCHES (known: $MATRIX_KNOWN)"
	elif in_list "$a" "$prefix"; then
		both="$both $a"
	else
		rest="$rest $a"
	fi
done
matrix_init
echo "build matrix: series $SERIES_DIR ($N patches), tree build/src/$TREE, checks: $CHECKS"

# job SCRIPT ARGS...: run one job. Its result lines count; a job that
# failed without a failing result line (it could not start) is one more.
job() {
	j_script=$1 j_before=$(wc -l <"$RESULTS")
	shift
	"$TOP/scripts/$j_script" "$@" && return 0
	tail -n +"$((j_before + 1))" "$RESULTS" | awk '$3 > 0 { f = 1 } END { exit !f }' ||
		result "${j_script%.sh}" 0 1 0 "$j_script failed before it recorded a result"
}

want checkpatch && job matrix-checkpatch.sh
want prefixes && [ -n "$prefix" ] && job matrix-prefixes.sh $prefix
want arches && [ -n "$both" ] && job matrix-arch.sh --prefix-tree $both
want warnings && [ -n "$prefix" ] && job matrix-warnings.sh $prefix
want arches && [ -n "$rest" ] && job matrix-arch.sh $rest
want debian && job matrix-debian.sh
nfail=$(tail -n +"$((start + 1))" "$RESULTS" | awk '$3 > 0' | wc -l)

cost "$MSTART" 0
printf '[%5ss] build matrix done: %s failed checks; %s\n' "$(($(date +%s) - T0))" "$nfail" "$COST"
rm -f "$MB/.times-$$"
[ "$nfail" = 0 ]
