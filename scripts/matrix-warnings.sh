#!/bin/sh
# matrix-warnings.sh ARCH...: for each ARCH, the warnings of mm/mprotect.o
# and of the .c files the series touches (generic or of ARCH), stock against
# patched, none new allowed:
#   matrix-w1-ARCH      W=1 gcc warnings (all of them, headers included),
#                       line numbers ignored
#   matrix-sparse-ARCH  sparse (C=2), context imbalances compared by kind and
#                       file (inlining moves them to other functions)
# In the prefix walk's tree and object dirs (matrix-prefixes.sh), at prefix N
# (the whole series) and then at prefix 0 (stock), which the walk leaves to
# the next one to start from. A job of build-matrix.sh; runs alone too
# (environment: scripts/matrix-lib.sh).
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/matrix-lib.sh"
matrix_args "$0 ARCH..." "$@"
matrix_init

# w1_objs: mm/mprotect.o and the touched kernel .c files, generic or of this
# arch (a selftest under tools/ is a user program, not a kbuild object).
w1_objs() {
	objs="mm/mprotect.o"
	for f in $(touched_here); do
		case $f in tools/*) continue ;; esac
		objs="$objs ${f%.c}.o"
	done
	echo $objs | tr ' ' '\n' | sort -u | tr '\n' ' '
}

# norm SRC: warning lines, without line/column numbers and tree prefixes.
norm() {
	grep -E ': (warning|error):' | sed -e "s,$1/,,g" \
		-e 's/^\([^:]*\):[0-9]*:[0-9]*:/\1:/' -e 's/^\([^:]*\):[0-9]*:/\1:/' | sort
}

# measure ARCH KIND TAG OBJS...: KIND (w1|sparse) warnings of OBJS in the
# prefix tree as it is now, in $WARN/ARCH-TAG.KIND, normalized. Objects
# whose source is not in the tree (added by the series) are left out on
# the stock side.
measure() {
	m_a=$1 m_kind=$2 m_tag=$3
	shift 3
	m_src=$BUILD/src/$PTREE m_out=$MB/obj/$PTREE-$m_a m_log=$LOGS/$m_kind-$m_tag-$m_a.log
	m_objs=
	for o; do
		[ -f "$m_src/${o%.o}.c" ] && m_objs="$m_objs $o"
	done
	if [ "$m_kind" = w1 ]; then
		# Rebuilt now (a ccache hit replays the warnings).
		for o in $m_objs; do rm -f "$m_out/$o"; done
		step "W=1 $m_a $m_tag:$m_objs" "$m_log" kbuild "$m_src" "$m_out" W=1 $m_objs || return 1
		norm "$m_src" <"$m_log" >"$WARN/$m_a-$m_tag.$m_kind"
	else
		step "sparse $m_a $m_tag:$m_objs" "$m_log" kbuild "$m_src" "$m_out" C=2 $m_objs || return 1
		# gcc's own warnings (objects rebuilt without W=1) are not sparse's.
		# Sparse reports a lock context imbalance in the outermost function
		# that an inline function is inlined into: inlining a function
		# with an old imbalance into two callers moves it and doubles it.
		# So compare those by kind and file, not by function or count.
		grep -v '\[-W[^]]*\]$' "$m_log" | norm "$m_src" |
			sed "s/context imbalance in '[^']*'/context imbalance in a function/" |
			awk '!/context imbalance in a function/ || !seen[$0]++' \
			>"$WARN/$m_a-$m_tag.$m_kind"
	fi
}

# compare NAME BASE NEW LOG: no warning more often in NEW than in BASE.
compare() {
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

# skip_both ARCH WHY: neither check could run.
skip_both() {
	result "matrix-w1-$1" 0 0 1 "$2"
	result "matrix-sparse-$1" 0 0 1 "$2"
}

SPARSE_MISSING=
ensure_pkg sparse || SPARSE_MISSING=$WHY
if [ "$N" = 0 ]; then
	for a; do skip_both "$a" "no patches in $SERIES_DIR/series"; done
	matrix_exit
fi
rm -f "$WARN"/*.w1 "$WARN"/*.sparse
if ! apply_prefix "$PTREE" "$N" >"$LOGS/prefix-$N.log" 2>&1; then
	for a; do
		result "matrix-w1-$a" 0 1 0 "the series does not apply (log: $LOGS/prefix-$N.log)"
		result "matrix-sparse-$a" 0 1 0 "the series does not apply (log: $LOGS/prefix-$N.log)"
	done
	matrix_exit
fi
built=
for a; do
	arch_info "$a"
	if ! ensure_pkg "$PKG"; then
		skip_both "$a" "$WHY"
		continue
	fi
	# Counted as failed in matrix-ARCH already; nothing to compare.
	if ! build_arch "$PTREE" "$a" "prefix-$N-$a"; then
		skip_both "$a" "not run: the series does not build on $a (see matrix-$a)"
		continue
	fi
	built="$built $a"
	measure "$a" w1 patched $(w1_objs)
	[ -n "$SPARSE_MISSING" ] || measure "$a" sparse patched $(w1_objs)
done
[ -n "$built" ] || matrix_exit
# Back to stock: the touched files get new mtimes, so rebuilt.
apply_prefix "$PTREE" 0 >"$LOGS/prefix-0.log" 2>&1 ||
	echo "    cannot make the stock prefix tree (log: $LOGS/prefix-0.log)"
for a in $built; do
	arch_info "$a"
	if measure "$a" w1 stock $(w1_objs) && [ -f "$WARN/$a-patched.w1" ]; then
		compare "matrix-w1-$a" "$WARN/$a-stock.w1" "$WARN/$a-patched.w1" "$LOGS/w1-patched-$a.log"
	else
		result "matrix-w1-$a" 0 1 0 "W=1 build failed (logs: $LOGS/w1-*-$a.log)"
	fi
	if [ -n "$SPARSE_MISSING" ]; then
		result "matrix-sparse-$a" 0 0 1 "$SPARSE_MISSING"
	elif measure "$a" sparse stock $(w1_objs) && [ -f "$WARN/$a-patched.sparse" ]; then
		compare "matrix-sparse-$a" "$WARN/$a-stock.sparse" "$WARN/$a-patched.sparse" \
			"$LOGS/sparse-patched-$a.log"
	else
		result "matrix-sparse-$a" 0 1 0 "sparse run failed (logs: $LOGS/sparse-*-$a.log)"
	fi
done
matrix_exit
