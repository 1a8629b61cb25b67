#!/bin/sh
# mutants-apply.sh: every mutant of tests/mutants/, and the counting patch
# of tests/contpte-flushes.sh, still applies on top of the series
# (patches/), as scripts/mutants.sh and that script apply them. A mutant's
# context is the series' own code, so a revision that only rewords a
# comment next to it breaks it, unseen until make mutants runs; this dry
# run on the patched tree catches that in make check, without a build. No
# fuzz: a context line that moved or changed is already a stale mutant,
# and patch's fuzz could put a one-line mutant in the wrong place.
# Ends with "N passed, N failed"; exit status 1 if any mutant fails.
. "$(dirname "$0")/lib.sh"

# The tree is scripts/kernel.sh's: take its lock, as a build may swap it.
exec 9>"$BUILD/.kernel-patched.lock"
flock 9
"$TOP/scripts/source.sh" patched >&2 || die "cannot make the patched tree"
passed=0 failed=0
for m in "$TOP"/tests/mutants/*.patch "$TOP"/tests/contpte-flushes.patch; do
	if patch -d "$BUILD/src/patched" -p1 --dry-run -s --fuzz=0 <"$m" >/dev/null 2>&1; then
		echo "ok - $(basename "$m") applies to patches/"
		passed=$((passed + 1))
	else
		echo "not ok - $(basename "$m") does not apply to patches/"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
