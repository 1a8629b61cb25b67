#!/bin/sh
# mkpatch.sh TREE OUT: write to OUT the kernel patch (git format-patch
# output) that adds mprotect_folios.c to TREE's tools/testing/selftests/mm/:
# the file, its Makefile and .gitignore lines and its run_vmtests.sh line.
# TREE is 6.12 or 7.2; 7.2 calls thp_settings.h hugepage_settings.h. The
# author and dates are fixed, so the same inputs give the same patch.
[ $# = 2 ] || { echo "usage: $0 TREE OUT" >&2; exit 2; }
tree=$1 out=$2
here=$(cd "$(dirname "$0")" && pwd) || exit 1
mm=tools/testing/selftests/mm
for f in Makefile .gitignore run_vmtests.sh; do
	[ -f "$tree/$mm/$f" ] || { echo "$0: no $tree/$mm/$f" >&2; exit 1; }
done
grep -qx 'TEST_GEN_FILES += mlock2-tests' "$tree/$mm/Makefile" &&
	grep -q '^CATEGORY="thp" run_test ./split_huge_page_test' "$tree/$mm/run_vmtests.sh" ||
	{ echo "$0: $tree/$mm: no place for the new lines" >&2; exit 1; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/$mm"
cp "$tree/$mm/Makefile" "$tree/$mm/.gitignore" "$tree/$mm/run_vmtests.sh" "$tmp/$mm/" || exit 1
export GIT_AUTHOR_NAME="mprotect-batch project" GIT_AUTHOR_EMAIL="mprotect-batch@users.noreply.invalid"
export GIT_COMMITTER_NAME="$GIT_AUTHOR_NAME" GIT_COMMITTER_EMAIL="$GIT_AUTHOR_EMAIL"
export GIT_AUTHOR_DATE="2026-12-03T07:57:03Z" GIT_COMMITTER_DATE="2026-12-03T07:57:03Z"
g() { git -C "$tmp" "$@"; }
g init -q && g add -A && g commit -q -m base || exit 1

header=thp_settings.h
[ -f "$tree/$mm/hugepage_settings.h" ] && header=hugepage_settings.h
sed "s/#include \"thp_settings.h\"/#include \"$header\"/" "$here/mprotect_folios.c" >"$tmp/$mm/mprotect_folios.c"
sed -i '/^TEST_GEN_FILES += mlock2-tests$/a TEST_GEN_FILES += mprotect_folios' "$tmp/$mm/Makefile"
echo mprotect_folios >>"$tmp/$mm/.gitignore"
# After split_huge_page_test's line: the XFS image it mounts is ours too.
sed -i '/^CATEGORY="thp" run_test .\/split_huge_page_test/a \
\
CATEGORY="thp" run_test ./mprotect_folios ${SPLIT_HUGE_PAGE_TEST_XFS_PATH}' "$tmp/$mm/run_vmtests.sh"
# Below the cut, for scripts/matrix-checkpatch.sh: checkpatch asks any
# patch that adds a file whether MAINTAINERS needs updating.
note="checkpatch: MAINTAINERS already covers tools/testing/selftests/mm/ (MEMORY MANAGEMENT)."
g add -A && g commit -q -F "$here/commit-message" && g notes add -m "$note" &&
	g format-patch -q -1 --notes --stdout >"$out.tmp" && mv "$out.tmp" "$out"
