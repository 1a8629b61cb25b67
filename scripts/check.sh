#!/bin/sh
# check.sh: the test suite (make check). For each arch in $ARCHES: build the
# patched test kernel and boot it with the smoke test, our own tests and the
# stress test; on the arches in $GATE_ARCHES run the icount performance gate
# on the stock and patched bench kernels; then the build checks.
# STOCK_TESTS=yes (make check-all) also boots stock's test kernel with the
# same tests and the tree's mm selftests, and compares: a test that fails on
# stock is a broken test, a selftest that fails on stock too is not counted.
# make check leaves that to make check-all: each kernel costs about ten
# minutes cold on two cores, and CI has 90 minutes.
# Ends with "N passed, N failed, N skipped"; exits non-zero on any failure.
. "$(dirname "$0")/lib.sh"

ARCHES=${ARCHES:-x86_64 arm64}
GATE_ARCHES=${GATE_ARCHES-x86_64}
STOCK_TESTS=${STOCK_TESTS:-no}
case $STOCK_TESTS in yes | no) ;; *) die "STOCK_TESTS must be yes or no, not '$STOCK_TESTS'" ;; esac
# ARCHES=none: only what follows the per-arch tests (e.g. ML_ARCHES=x86_64).
[ "$ARCHES" = none ] && ARCHES=
RESULTS=$BUILD/results.txt
export RESULTS
mkdir -p "$BUILD/runs"
: >"$RESULTS"

# fail_unit NAME: a stage that could not run counts as one failure.
fail_unit() {
	echo "$1 0 1 0" >>"$RESULTS"
}

TEST_LIST=$BUILD/runs/check-tests.list
cat >"$TEST_LIST" <<EOL
@60 smoke @SMOKE_ARGS@ --swap --xfs
@600 mprotect_folios /mnt/xfs
@300 mprotect_folios_extra
@300 mprotect_stress
@300 uffd_wp_migration 4000
EOL
GATE_LIST=$BUILD/runs/check-gate.list
echo "mprotect_bench --case $(grep -v '^#' "$TOP/bench/gate-cases" | paste -sd, -) ${GATE_ARGS:---size 8M --iters 10}" >"$GATE_LIST"

# The cover letters' benchmark tables must be what bench/report cuts from
# the results each names. Host-only and cheap, so before any build.
mkdir -p "$BUILD/log"
log=$BUILD/log/cover-check.log
if sh "$TOP/bench/cover-check.sh" >"$log" 2>&1; then
	r=$(tail -1 "$log")
	echo "cover-tables ${r%% passed*} 0 0" >>"$RESULTS"
	printf '[%5ss] %-44s ok (%s)\n' "$(($(date +%s) - T0))" "cover letter tables" "$r"
else
	fail_unit cover-tables
	printf '[%5ss] %-44s FAILED (log: %s)\n' "$(($(date +%s) - T0))" "cover letter tables" "$log"
	grep -v '^ok - ' "$log" | sed 's/^/    /'
fi

for arch in $ARCHES; do
	CHECK_GATE=yes CHECK_KSELFTESTS=yes SMOKE_ARGS=
	load_arch "$arch"
	case " $GATE_ARCHES " in *" $arch "*) ;; *) CHECK_GATE=no ;; esac
	# The selftests need stock's results to compare with.
	[ "$STOCK_TESTS" = yes ] || CHECK_KSELFTESTS=no
	if ! "$TOP/scripts/guest.sh" "$arch"; then
		fail_unit "$arch-guest-build"
		continue
	fi
	# With STOCK_TESTS=yes stock runs the tests on its test kernel too
	# (like with like: the same debug options); the gate needs the bench
	# kernels.
	tested=patched
	[ "$STOCK_TESTS" = no ] || tested="stock patched"
	kernels=$(for v in $tested; do printf '%s test ' "$v"; done)
	[ "$CHECK_GATE" = no ] || kernels="$kernels stock bench patched bench"
	set -- $kernels
	while [ $# -ge 2 ]; do
		"$TOP/scripts/kernel.sh" "$arch" "$1" "$2" || fail_unit "$arch-kernel-$1-$2"
		shift 2
	done
	# Stock runs the same tests on its test kernel: a test that fails on
	# stock is a broken test, not a regression. One boot per kernel runs
	# our tests, then the tree's mm selftests.
	list=$BUILD/runs/check-$arch.list
	# What this arch's VM has, for the smoke test (machine record).
	sed "s|@SMOKE_ARGS@|${SMOKE_ARGS:---nodes 2}|" "$TEST_LIST" >"$list"
	own=$(runlist_progs <"$TEST_LIST" | tr '\n' ' ')
	if [ "$CHECK_KSELFTESTS" != no ]; then
		"$TOP/scripts/kselftests.sh" "$arch" || fail_unit "$arch-kselftests-build"
		kselftest_list "$arch" >>"$list"
		kst=$(kselftest_list "$arch" | runlist_progs | tr '\n' ' ')
		# An empty list (an arch= typo) would compare nothing and pass.
		[ -n "$kst" ] || fail_unit "$arch-kselftests-list-empty"
	fi
	for v in $tested; do
		[ -f "$(kernel_dir "$v" test)/$KIMAGE" ] || continue
		NOCOUNT=1 "$TOP/scripts/run-guest.sh" "$arch" "$v" test test "$list" "$arch-$v-tests"
		PROGS=$own SKIPS=$TOP/tests/skips/$arch.list \
			"$TOP/scripts/tap-summary.sh" "$arch-$v-tests" "$BUILD/runs/$arch-$v-tests.log" | sed 's/^/    /'
	done
	[ "$CHECK_KSELFTESTS" = no ] ||
		PROGS=$kst "$TOP/scripts/kselftest-compare.sh" "$arch-kselftests" \
			"$BUILD/runs/$arch-stock-tests.log" "$BUILD/runs/$arch-patched-tests.log" | sed 's/^/    /'
	# No anon or shmem large folios on this arch's VM: nothing to gate.
	[ "$CHECK_GATE" = no ] && continue
	gate_ok=1
	for v in stock patched; do
		[ -f "$(kernel_dir "$v" bench)/$KIMAGE" ] &&
			"$TOP/scripts/run-guest.sh" "$arch" "$v" bench icount "$GATE_LIST" "$arch-$v-gate" ||
			gate_ok=0
	done
	if [ $gate_ok = 1 ]; then
		csv=$BUILD/runs/$arch-gate.csv
		BENCH_KERNEL=$(make -s -C "$BUILD/src/stock" kernelversion)
		BENCH_CONFIG_HASH=$(cat "$(kernel_dir stock bench)/.config" "$(kernel_dir patched bench)/.config" |
			sha256sum | cut -c1-12)
		BENCH_SERIES_HASH=$(cat "$BUILD/src/patched/.series-hash")
		BENCH_QEMU=$($QEMU --version | head -1)
		export BENCH_KERNEL BENCH_CONFIG_HASH BENCH_SERIES_HASH BENCH_QEMU
		if "$TOP/bench/report" csv -o "$csv" "$arch:stock:$BUILD/runs/$arch-stock-gate.log" \
			"$arch:patched:$BUILD/runs/$arch-patched-gate.log" >/dev/null &&
			"$TOP/bench/report" table --gate "$csv" >"$BUILD/runs/$arch-gate.txt" 2>&1; then
			echo "$arch-perf-gate 1 0 0" >>"$RESULTS"
			printf '[%5ss] %-44s ok\n' "$(($(date +%s) - T0))" "perf gate $arch"
		else
			fail_unit "$arch-perf-gate"
			printf '[%5ss] %-44s FAILED\n' "$(($(date +%s) - T0))" "perf gate $arch"
		fi
		sed 's/^/    /' "$BUILD/runs/$arch-gate.txt"
	else
		fail_unit "$arch-perf-gate"
	fi
done

# The mainline edition (ML_ARCHES, make check-all: x86_64 arm64): 7.2, 7.2
# with the edition's three series (patches/mainline/series), 7.2 with the
# standalone fixes of patches/mainline/fixes, 7.2 with the small-folio series of
# patches/mainline/lookup and, on arm64, 7.2 with the arm64 series of
# patches/mainline/arm64 run our tests and the 7.2 tree's mm selftests on
# their test kernels. None may have a failure, of our tests or of the
# selftests, that 7.2 does not have. 7.2's own failures are shown, not
# counted: 7.2's bugs that the series fixes (the write-notify tests: clean
# PTEs made writable; on x86_64 the soft-dirty tests of large folios: the
# batch's merged dirty bit sets soft-dirty too).
for arch in $ML_ARCHES; do
	load_arch "$arch"
	ml_variants="mainline mainline-patched mainline-fixes mainline-lookup"
	ml_compare="patched:ml fixes:ml-fixes lookup:ml-lookup"
	# The arm64 series changes no other arch's kernel.
	if [ "$arch" = arm64 ]; then
		ml_variants="$ml_variants mainline-arm64" ml_compare="$ml_compare arm64:ml-arm64"
	fi
	for v in $ml_variants; do
		"$TOP/scripts/kernel.sh" "$arch" "$v" test || fail_unit "$arch-kernel-$v-test"
	done
	"$TOP/scripts/kselftests.sh" "$arch" mainline || fail_unit "$arch-ml-kselftests-build"
	"$TOP/scripts/kselftests.sh" "$arch" mainline-fixes || fail_unit "$arch-mlfix-kselftests-build"
	list=$BUILD/runs/check-$arch-ml.list kstlist=$BUILD/runs/check-$arch-ml-kst.list
	{
		kselftest_list "$arch" ml
		# The selftests as the fixes change them (mlfix-NAME), on every kernel.
		for t in $(fixes_selftests "$arch"); do
			kselftest_list "$arch" mlfix | grep -E "(^| )mlfix-$t( |\$)"
		done
	} >"$kstlist"
	sed "s|@SMOKE_ARGS@|${SMOKE_ARGS:---nodes 2}|" "$TEST_LIST" | cat - "$kstlist" >"$list"
	own=$(runlist_progs <"$TEST_LIST" | tr '\n' ' ')
	kst=$(runlist_progs <"$kstlist" | tr '\n' ' ')
	for v in $ml_variants; do
		[ -f "$(kernel_dir "$v" test)/$KIMAGE" ] || continue
		NOCOUNT=1 "$TOP/scripts/run-guest.sh" "$arch" "$v" test test "$list" "$arch-$v-tests"
	done
	echo "    7.2's own results (shown, not counted):"
	RESULTS=/dev/null PROGS=$own SKIPS=$TOP/tests/skips/$arch.list \
		"$TOP/scripts/tap-summary.sh" "$arch-mainline-tests" "$BUILD/runs/$arch-mainline-tests.log" | sed 's/^/      /'
	for t in "tests:$own" "kselftests:$kst"; do
		for v in $ml_compare; do
			PROGS=${t#*:} "$TOP/scripts/kselftest-compare.sh" "$arch-${v#*:}-${t%%:*}" \
				"$BUILD/runs/$arch-mainline-tests.log" \
				"$BUILD/runs/$arch-mainline-${v%%:*}-tests.log" | sed 's/^/    /'
		done
	done
done

# Host-only self-tests: the harness's counting rules (deliberately broken
# logs must count as failures), the benchmark's table/CSV scripts and its
# program's options, the kernel patches of the upstream-form tests, and
# that every mutant still applies to the series.
mkdir -p "$BUILD/log"
# The bench selftest builds mprotect_bench for this host on the stock
# tree's uapi headers, which only a run that boots an arch has installed.
[ "$(uname -m)" = x86_64 ] &&
	{ "$TOP/scripts/guest.sh" x86_64 "$TOP/bench/mprotect_bench.c" || fail_unit "bench-selftest-headers"; }
for t in harness:tests/harness-selftest.sh bench:bench/selftest.sh \
	selftest-patch:scripts/selftest-patch.sh mutants-apply:scripts/mutants-apply.sh; do
	name=${t%%:*}-selftest log=$BUILD/log/${t%%:*}-selftest.log
	if sh "$TOP/${t#*:}" >"$log" 2>&1; then
		r=$(tail -1 "$log")
		echo "$name ${r%% passed*} 0 0" >>"$RESULTS"
		printf '[%5ss] %-44s ok (%s)\n' "$(($(date +%s) - T0))" "${t%%:*} selftest" "$r"
	else
		fail_unit "$name"
		printf '[%5ss] %-44s FAILED (log: %s)\n' "$(($(date +%s) - T0))" "${t%%:*} selftest" "$log"
	fi
done

# The build matrix: every arch builds the whole series; the prefix walk
# (bisectability) runs on x86_64 here and on arm64 too in make check-all
# (PREFIX_ARCHES), to keep a cold make check within CI's time.
if [ -x "$TOP/scripts/build-matrix.sh" ] && [ -z "$SKIP_MATRIX" ]; then
	# make check leaves the build with Debian's amd64 config (a cold one
	# is the matrix's longest) to make check-all, and the matrix builds of
	# arm64, whose kernel it builds and boots with the series, and of arm
	# and riscv64, which have no protection transaction of their own (i386
	# stands for them). arm64 without THP stays: no booted kernel builds
	# arm64's batched transaction without CONFIG_ARM64_CONTPTE.
	PREFIX_ARCHES=${PREFIX_ARCHES-x86_64} \
		MATRIX_ARCHES=${MATRIX_ARCHES:-x86_64 i386 arm64-nothp s390x powerpc64le} \
		MATRIX_CHECKS=${MATRIX_CHECKS:-checkpatch arches warnings prefixes} \
		"$TOP/scripts/build-matrix.sh" || true
fi

echo
awk '{ p += $2; f += $3; s += $4 } $3 > 0 { print "failed: " $1 }
END { printf "%d passed, %d failed, %d skipped\n", p, f, s; exit f > 0 }' "$RESULTS"
