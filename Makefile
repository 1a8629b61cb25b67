# Entry points. The work is done by the scripts in scripts/; see README.md.
ARCH    ?= x86_64
VARIANT ?= patched
KIND    ?= test
# check: x86_64 arm64, gate on x86_64; bench: x86_64 arm64 (the scripts' defaults)
ARCHES  ?=
RUN     ?= smoke --nodes 2 --swap

S := scripts
export ARCHES

.PHONY: help deps source kernel kernels guest boot check check-all bench bench-cache mutants clean

help:
	@echo 'make check              tests on patched debug kernels of x86_64 and arm64, perf gate on x86_64, build matrix (the CI job)'
	@echo 'make check-all          make check with stock baselines and mm selftests, the gate on every arch, s390x, arm64 16K and 64K, ppc64le (radix, hash), riscv64, bisectability walk on arm64 too'
	@echo 'make bench              stock vs patched benchmark tables and plot, per config (the main job)'
	@echo 'make bench-cache        kernel L1D and LLC misses per PTE from a cache model alone (part of make bench)'
	@echo 'make kernel ARCH=x86_64|arm64|s390x|arm64-16k|arm64-64k|ppc64le|riscv64 VARIANT=stock|patched KIND=bench|test'
	@echo 'make boot ARCH=.. VARIANT=.. KIND=.. RUN="prog args"   boot and run one guest program'
	@echo 'make boot ARCH=x86_64 RUN=                              interactive shell (busybox-static)'
	@echo 'make guest ARCH=..      build the guest programs'
	@echo 'make source             extract stock 6.12 and apply patches/series'
	@echo 'make mutants            show every mutant in tests/mutants/ is caught'
	@echo 'make deps               install the Debian packages (root)'
	@echo 'make clean              remove build/'
	@echo 'Variables: ARCHES="x86_64 arm64" (check; bench: x86_64 arm64 x86_64-os arm64-os arm64-va52 arm64-va39; also arm64-16k arm64-64k x86_64-debian arm64-debian), GATE_ARCHES="x86_64", STOCK_TESTS=no|yes (check), BOOT_TIMEOUT=seconds'

deps:
	@$(S)/deps.sh

source: deps
	@$(S)/source.sh stock && $(S)/source.sh patched

kernel: deps
	@$(S)/kernel.sh $(ARCH) $(VARIANT) $(KIND)

guest: deps
	@$(S)/guest.sh $(ARCH)

boot: deps
	@$(S)/boot-one.sh $(ARCH) $(VARIANT) $(KIND) "$(RUN)"

check: deps
	@$(S)/check.sh

# check on every booted arch (s390x, arm64 with 16K and 64K pages, ppc64le with the
# radix and the hash MMU, riscv64), with stock's test kernels booted beside
# the patched ones (baseline, mm selftests) and the gate wherever the
# machine record allows it, plus the prefix
# walk on arm64 as well (make check: x86_64 only), the build with
# Debian's amd64 config, and the mainline edition's tests (ML_ARCHES).
CHECK_ALL_ARCHES := x86_64 arm64 s390x arm64-16k arm64-64k ppc64le ppc64le-hash riscv64
check-all: deps
	@ARCHES="$${ARCHES:-$(CHECK_ALL_ARCHES)}" PREFIX_ARCHES="x86_64 arm64" \
		GATE_ARCHES="$${GATE_ARCHES-$${ARCHES:-$(CHECK_ALL_ARCHES)}}" STOCK_TESTS=yes \
		ML_ARCHES="$${ML_ARCHES-x86_64 arm64}" \
		MATRIX_ARCHES="x86_64 arm64 arm64-nothp i386 arm riscv64 s390x powerpc64le" \
		MATRIX_CHECKS="checkpatch arches warnings prefixes debian" $(S)/check.sh

bench: deps
	@$(S)/bench.sh

# make bench's cache-model column alone: the kernels of x86_64 and arm64
# booted under the cache model of bench/tcg/cachesim.c at each layout, no
# instruction, wall-time or TLB runs.
bench-cache: deps
	@ARCHES="$${ARCHES:-x86_64 arm64}" REPEAT=0 WALL_PAIRS=0 TLBCOUNT=no CACHE=yes $(S)/bench.sh

mutants: deps
	@$(S)/mutants.sh

clean:
	rm -rf build
