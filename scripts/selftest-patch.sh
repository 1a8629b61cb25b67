#!/bin/sh
# selftest-patch.sh: the upstream form of the tests (tests/selftest-mm/), on
# the trees it is for: 6.12 (build/src/stock) and 7.2 (build/src/mainline,
# there once make check-all or make bench has fetched it). For each, the
# committed patch must be what mkpatch.sh makes of mprotect_folios.c today,
# must apply to the tree, and must build with the tree's own selftests/mm
# Makefile. Ends with "N passed, N failed, N skipped"; non-zero on a failure.
. "$(dirname "$0")/lib.sh"

pass=0 fail=0 skip=0
# In build/: the trees are hard-linked copies, which need one file system.
mkdir -p "$BUILD" && tmp=$(mktemp -d "$BUILD/selftest-patch.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# The host's uapi headers: guest.sh installs them with any program it builds.
"$TOP/scripts/guest.sh" x86_64 "$TOP/guest/init.c" >/dev/null || die "scripts/guest.sh x86_64 failed"
hdr=$BUILD/headers/x86_64/include

# A patch without what differs between a lone patch and one of a series:
# its commit hash, its number in the subject, and the git version line.
norm() {
	awk 'NR == 1 && /^From [0-9a-f]+ / { next }
	/^-- $/ { exit }
	/^Subject: / {
		s = $0
		while ((getline l) > 0 && l ~ /^ /)
			s = s l
		sub(/^Subject: \[PATCH[^]]*\] /, "Subject: ", s)
		print s
		print l
		next
	}
	{ print }'
}

# check NAME TREE PATCH
check() {
	name=$1 tree=$2 patch=$3
	if [ ! -f "$tree/Makefile" ]; then
		echo "SKIP $name: no tree at $tree"
		skip=$((skip + 1))
		return
	fi
	if ! "$TOP/tests/selftest-mm/mkpatch.sh" "$tree" "$tmp/$name.patch"; then
		echo "FAIL $name: mkpatch.sh failed"
	elif ! norm <"$patch" >"$tmp/$name.a" || ! norm <"$tmp/$name.patch" >"$tmp/$name.b" ||
		! cmp -s "$tmp/$name.a" "$tmp/$name.b"; then
		echo "FAIL $name: $patch is not what mkpatch.sh makes"
		diff "$tmp/$name.a" "$tmp/$name.b" | head -20
	elif ! cp -al "$tree" "$tmp/$name-tree" ||
		! patch -d "$tmp/$name-tree" -p1 -s -N <"$patch"; then
		echo "FAIL $name: the patch does not apply to $tree"
	elif ! mkdir -p "$tmp/$name-out" ||
		! make -s -C "$tmp/$name-tree/tools/testing/selftests/mm" \
			KHDR_INCLUDES="-isystem $hdr" OUTPUT="$tmp/$name-out" \
			"$tmp/$name-out/mprotect_folios" >"$tmp/$name.log" 2>&1 ||
		[ ! -x "$tmp/$name-out/mprotect_folios" ]; then
		echo "FAIL $name: mprotect_folios does not build in the patched tree"
		tail -20 "$tmp/$name.log"
	else
		echo "PASS $name: current, applies, builds with the tree's Makefile"
		pass=$((pass + 1))
		return
	fi
	fail=$((fail + 1))
}

# The series' last patch; its number changes as the series grows.
check 6.12 "$BUILD/src/stock" "$(ls "$TOP"/patches/*-selftests-mm-add-tests-for-mprotect-on-large-folios.patch)"
check 7.2 "$BUILD/src/mainline" "$TOP/tests/selftest-mm/7.2/0001-selftests-mm-add-tests-for-mprotect-on-large-folios.patch"
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" = 0 ]
