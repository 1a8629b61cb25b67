#!/bin/sh
# mutants.sh: show that the tests catch every mutant in tests/mutants/.
# Each mutant is a small patch on top of patches/series that re-introduces a
# known bug class. It is built into the patched test kernel (incrementally;
# the real series is rebuilt at the end) and booted with our tests twice:
# as the tests boot it, and with page_table_check=0. The first boot must
# make a test or the console check fail; the second must make a named test
# fail its own assertion ("not ok"): a debug check that kills the boot, a
# Bail out or a timeout does not count there.
# A mutant runs on x86_64 unless its patch has a "Mutant-arch: ARCH" line
# (a bug class only one arch can show); MUTANT_ARCH overrides both.
# MUTANTS="a.patch b.patch" to pick some. MUTANT_BASE=DIR with
# MUTANT_DIR=DIR runs mutants written against another series (default:
# patches/ and tests/mutants/), and MUTANT_VARIANT=NAME builds them into
# test kernels of their own (build/series/NAME/) instead of the patched
# ones.
. "$(dirname "$0")/lib.sh"

dir=${MUTANT_DIR:-$TOP/tests/mutants}
base=${MUTANT_BASE:-$TOP/patches}
case $dir in /*) ;; *) dir=$TOP/$dir ;; esac
case $base in /*) ;; *) base=$TOP/$base ;; esac
variant=${MUTANT_VARIANT:-patched}
case $variant in stock | mainline*) die "MUTANT_VARIANT $variant: not a variant of the series" ;; esac
# The series a mutant's kernel is built from: patched takes SERIES_DIR,
# any other variant its build/series/ directory (scripts/source.sh).
series=$BUILD/mutant-series
[ "$variant" = patched ] || series=$BUILD/series/$variant
[ -n "$MUTANTS" ] || MUTANTS=$(cd "$dir" 2>/dev/null && ls ./*.patch 2>/dev/null | sed 's,^\./,,')
[ -n "$MUTANTS" ] || die "no mutants in $dir"
"$TOP/scripts/source.sh" stock || exit 1
list=$BUILD/runs/mutants.list
cat >"$list" <<EOL
@600 mprotect_folios /mnt/xfs
@300 mprotect_folios_extra
@300 mprotect_stress
EOL
table=$BUILD/runs/mutants-table.txt
printf '%-28s %-7s %-8s %-44s %s\n' mutant arch result "caught by (as tested)" \
	"caught by a test's assertion (page_table_check=0)" >"$table"
missed=0
arches_used=
# catchers NAME: what failed in boot NAME, up to 4, ';'-separated; with
# "named", only tests that failed their own assertion (not a synthetic
# record of tap-records.sh such as "(incomplete TAP)", nor the console).
catchers() {
	log=$BUILD/runs/$1.log
	{ [ "$2" = named ] || "$TOP/scripts/console-check.sh" "$log" | sed 's/.*:[0-9]*:/console: /' | cut -c1-60
		"$TOP/scripts/tap-records.sh" "$log" |
			awk -F'\t' -v named="$2" '$3 == "fail" && !(named != "" && $2 ~ /^\(/) { print $1 ": " $2 }' |
			cut -c1-50; } | head -n 4 | paste -sd';' -
}
for m in $MUTANTS; do
	[ -f "$dir/$m" ] || die "no mutant $dir/$m"
	arch=$(sed -n 's/^Mutant-arch: *//p' "$dir/$m" | head -n 1)
	arch=${MUTANT_ARCH:-${arch:-x86_64}}
	load_arch "$arch"
	case " $arches_used " in
	*" $arch "*) ;;
	*) "$TOP/scripts/guest.sh" "$arch" || exit 1; arches_used="$arches_used $arch" ;;
	esac
	rm -rf "$series" && mkdir -p "$series"
	cp "$base"/*.patch "$series"/ 2>/dev/null
	cp "$base/series" "$series/series"
	cp "$dir/$m" "$series/zz-$m"
	echo "zz-$m" >>"$series/series"
	name=mutant-${m%.patch}
	by= named=
	# The mutant goes into the patched tree and test kernel themselves, so
	# that kbuild rebuilds only what the mutant changes; restored below.
	if ! SERIES_DIR=$series "$TOP/scripts/kernel.sh" "$arch" "$variant" test; then
		result=ERROR by="(does not apply or build)"
		missed=$((missed + 1))
	else
		RESULTS=$BUILD/runs/$name.results NOCOUNT=1 \
			"$TOP/scripts/run-guest.sh" "$arch" "$variant" test test "$list" "$name"
		RESULTS=$BUILD/runs/$name.results NOCOUNT=1 BOOT_APPEND="$BOOT_APPEND page_table_check=0" \
			"$TOP/scripts/run-guest.sh" "$arch" "$variant" test test "$list" "$name-noptc"
		by=$(catchers "$name")
		named=$(catchers "$name-noptc" named)
		if [ -n "$by" ] && [ -n "$named" ]; then
			result=caught
		else
			result=MISSED missed=$((missed + 1))
		fi
	fi
	printf '%-28s %-7s %-8s %-44s %s\n' "${m%.patch}" "$arch" "$result" "${by:--}" "${named:--}" | tee -a "$table"
done
if [ "$variant" != patched ]; then
	rm -rf "$series" && mkdir -p "$series" && cp "$base"/*.patch "$base/series" "$series"/
fi
for arch in $arches_used; do
	"$TOP/scripts/kernel.sh" "$arch" "$variant" test || die "could not restore the $arch $variant test kernel"
done
echo "mutants table: $table"
[ $missed = 0 ] || die "$missed mutant(s) not caught"
echo "all mutants caught"
