#!/bin/sh
# mutants-apply.sh: every mutant of tests/mutants/ still applies on top of
# the series (patches/), as scripts/mutants.sh applies it. A mutant's
# context is the series' own code, so a revision that only rewords a
# comment next to it breaks it, unseen until make mutants runs; this dry
# run on the patched tree catches that in make check, without a build.
# Ends with "N passed, N failed"; exit status 1 if any mutant fails.
. "$(dirname "$0")/lib.sh"

"$TOP/scripts/source.sh" patched >/dev/null || die "cannot make the patched tree"
passed=0 failed=0
for m in "$TOP"/tests/mutants/*.patch; do
	if patch -d "$BUILD/src/patched" -p1 --dry-run -s <"$m" >/dev/null 2>&1; then
		echo "ok - $(basename "$m") applies to patches/"
		passed=$((passed + 1))
	else
		echo "not ok - $(basename "$m") does not apply to patches/"
		failed=$((failed + 1))
	fi
done
echo "$passed passed, $failed failed"
[ "$failed" = 0 ]
