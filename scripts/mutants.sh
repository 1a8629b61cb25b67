#!/bin/sh
# mutants.sh: show that the tests catch every mutant in tests/mutants/.
# Each mutant is a small patch on top of patches/series that re-introduces a
# known bug class. It is built into the patched test kernel (incrementally;
# the real series is rebuilt at the end), booted with our tests, and must
# make at least one test or the console check fail.
# A mutant runs on x86_64 unless its patch has a "Mutant-arch: ARCH" line
# (a bug class only one arch can show); MUTANT_ARCH overrides both.
# MUTANTS="a.patch b.patch" to pick some.
. "$(dirname "$0")/lib.sh"

dir=$TOP/tests/mutants
[ -n "$MUTANTS" ] || MUTANTS=$(cd "$dir" 2>/dev/null && ls ./*.patch 2>/dev/null | sed 's,^\./,,')
[ -n "$MUTANTS" ] || die "no mutants in $dir"
"$TOP/scripts/source.sh" stock || exit 1
list=$BUILD/runs/mutants.list
cat >"$list" <<EOL
@600 mprotect_batch
@300 mprotect_stress
EOL
table=$BUILD/runs/mutants-table.txt
printf '%-40s %-7s %-8s %s\n' mutant arch result "caught by" >"$table"
missed=0
arches_used=
for m in $MUTANTS; do
	[ -f "$dir/$m" ] || die "no mutant $dir/$m"
	arch=$(sed -n 's/^Mutant-arch: *//p' "$dir/$m" | head -n 1)
	arch=${MUTANT_ARCH:-${arch:-x86_64}}
	load_arch "$arch"
	case " $arches_used " in
	*" $arch "*) ;;
	*) "$TOP/scripts/guest.sh" "$arch" || exit 1; arches_used="$arches_used $arch" ;;
	esac
	series=$BUILD/mutant-series
	rm -rf "$series" && mkdir -p "$series"
	cp "$TOP"/patches/*.patch "$series"/ 2>/dev/null
	cp "$TOP/patches/series" "$series/series"
	cp "$dir/$m" "$series/zz-$m"
	echo "zz-$m" >>"$series/series"
	name=mutant-${m%.patch}
	by=
	# The mutant goes into the patched tree and test kernel themselves, so
	# that kbuild rebuilds only what the mutant changes; restored below.
	if ! SERIES_DIR=$series "$TOP/scripts/kernel.sh" "$arch" patched test; then
		result=ERROR by="(does not apply or build)"
		missed=$((missed + 1))
	else
		RESULTS=$BUILD/runs/$name.results NOCOUNT=1 \
			"$TOP/scripts/run-guest.sh" "$arch" patched test test "$list" "$name"
		log=$BUILD/runs/$name.log
		by=$( { "$TOP/scripts/console-check.sh" "$log" | sed 's/.*:[0-9]*:/console: /' | cut -c1-60
			RESULTS=/dev/null "$TOP/scripts/tap-summary.sh" "$name" "$log" |
				sed -n 's/^  FAIL [^ ]* //p' | sed 's/^[^:]*: not ok [0-9]* //' | cut -c1-50; } |
			head -n 4 | paste -sd';' -)
		if [ -n "$by" ]; then result=caught; else result=MISSED missed=$((missed + 1)); fi
	fi
	printf '%-40s %-7s %-8s %s\n' "${m%.patch}" "$arch" "$result" "$by" | tee -a "$table"
done
for arch in $arches_used; do
	"$TOP/scripts/kernel.sh" "$arch" patched test || die "could not restore the $arch patched test kernel"
done
echo "mutants table: $table"
[ $missed = 0 ] || die "$missed mutant(s) not caught"
echo "all mutants caught"
