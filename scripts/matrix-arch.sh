#!/bin/sh
# matrix-arch.sh [--prefix-tree] ARCH...: matrix-ARCH for each ARCH: the whole
# series on tinyconfig + configs/matrix/{common,ARCH}.config (THP wherever
# the arch has it) builds mm/, arch/ARCH/mm/ and the dirs of the .c files it
# touches; .config must have every option asked for, and mm/mprotect.o must
# be built. ARCH in x86_64 arm64 i386 (no __HAVE_ARCH_PTEP_MODIFY_PROT_
# TRANSACTION) arm riscv64 s390x powerpc64le (s390 and powerpc override the
# single-PTE transaction).
# In build/src/matrix; with --prefix-tree in the prefix walk's tree, whose
# object dirs matrix-prefixes.sh has just built at the last prefix (the
# whole series): the check then costs no second build of those arches.
# A job of build-matrix.sh; runs alone too (environment: scripts/matrix-lib.sh).
. "$(dirname "$0")/lib.sh"
usage="$0 [--prefix-tree] ARCH..."
ptree=
[ "$1" = --prefix-tree ] && { ptree=1; shift; }
. "$TOP/scripts/matrix-lib.sh"
matrix_args "$usage" "$@"
matrix_init

if [ -n "$ptree" ]; then
	if ! apply_prefix "$PTREE" "$N" >"$LOGS/prefix-$N.log" 2>&1; then
		for a; do result "matrix-$a" 0 1 0 "the series does not apply (log: $LOGS/prefix-$N.log)"; done
		matrix_exit
	fi
elif ! apply_series; then
	for a; do result "matrix-$a" 0 1 0 "the series does not apply (see above)"; done
	matrix_exit
fi
for a; do
	arch_info "$a"
	ta=$(date +%s) && cpu && ca=$CPU
	if ! ensure_pkg "$PKG"; then
		result "matrix-$a" 0 0 1 "$WHY"
		continue
	fi
	if [ -n "$ptree" ]; then
		tree=$PTREE lg=prefix-$N-$a
	else
		tree=$TREE lg=$TREE-$a
	fi
	if build_arch "$tree" "$a" "$lg"; then
		cost $ta $ca
		result "matrix-$a" 1 0 0 "$(build_dirs)built, $(thp_note "$MB/obj/$tree-$a"), mm/mprotect.o ok (log: $LOGS/$lg.log, $COST)"
	else
		cost $ta $ca
		result "matrix-$a" 0 1 0 "build failed (log: $LOGS/$lg.log*) ($COST)"
	fi
done
matrix_exit
