#!/bin/sh
# matrix-prefixes.sh ARCH...: matrix-prefix-ARCH for each ARCH: every prefix
# 1..N of the series builds mm/ and arch/ARCH/mm/ (matrix-arch.sh's config
# and build); PASS/FAIL count prefixes. The prefixes take turns in one tree,
# build/src/matrix-prefix, with one object dir per arch: each build is
# incremental, as source.sh refreshes the mtimes of the files a prefix
# touches. The tree is left at prefix N, the whole series.
# A job of build-matrix.sh; runs alone too (environment: scripts/matrix-lib.sh).
. "$(dirname "$0")/lib.sh"
. "$TOP/scripts/matrix-lib.sh"
matrix_args "$0 ARCH..." "$@"
matrix_init

walk=
for a; do
	arch_info "$a"
	if ensure_pkg "$PKG"; then
		walk="$walk $a"
	else
		result "matrix-prefix-$a" 0 0 1 "$WHY"
	fi
done
if [ "$N" = 0 ]; then
	for a in $walk; do result "matrix-prefix-$a" 0 0 1 "no patches in $SERIES_DIR/series"; done
	matrix_exit
fi
[ -n "$walk" ] || matrix_exit

pass='' fail=''
ta=$(date +%s) && cpu && ca=$CPU
for k in $(seq 1 "$N"); do
	if ! apply_prefix "$PTREE" "$k" >"$LOGS/prefix-$k.log" 2>&1; then
		echo "    prefix $k ($(echo "$PATCHES" | sed -n "${k}p")) does not apply (log: $LOGS/prefix-$k.log)"
		for a in $walk; do fail="$fail $a:$k"; done
		continue
	fi
	for a in $walk; do
		arch_info "$a"
		if build_arch "$PTREE" "$a" "prefix-$k-$a"; then
			pass="$pass $a:$k"
		else
			fail="$fail $a:$k"
		fi
	done
done
cost $ta $ca
echo "    walk of$walk over prefixes 1..$N: $COST"
for a in $walk; do
	arch_info "$a"
	np=$(echo $pass | tr ' ' '\n' | grep -c "^$a:")
	nf=$(echo $fail | tr ' ' '\n' | grep -c "^$a:")
	if [ "$nf" -gt 0 ]; then
		bad=$(echo $fail | tr ' ' '\n' | sed -n "s/^$a://p" | tr '\n' ' ')
		result "matrix-prefix-$a" "$np" "$nf" 0 "prefixes failing (of 1..$N): $bad(logs: $LOGS/prefix-K-$a.log)"
	else
		result "matrix-prefix-$a" "$np" 0 0 "prefixes 1..$N build mm/ arch/$SRCARCH/mm/ (walk:$walk, $COST)"
	fi
done
matrix_exit
