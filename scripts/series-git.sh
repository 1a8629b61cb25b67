#!/bin/sh
# series-git.sh import|export: edit the series as git commits.
#   import: build/sgit/ becomes a git repository holding stock 6.12's
#           versions of the files the series touches (plus $EXTRA_FILES),
#           with patches/series applied on top as commits (git am).
#   export: patches/NNNN-*.patch and patches/series are written anew from
#           the commits after the base (git format-patch); the cover
#           letter, patches/0000-cover-letter.patch, is kept as it is.
# Blob hashes depend on content only, so the patches' index lines are
# those of a full kernel tree.
. "$(dirname "$0")/lib.sh"

repo=$BUILD/sgit
case $1 in
import)
	"$TOP/scripts/source.sh" stock || exit 1
	files=$(grep -v '^[[:space:]]*\(#\|$\)' "$TOP/patches/series" | while read -r p _; do
		sed -n 's,^+++ b/\([^[:space:]]*\).*,\1,p' "$TOP/patches/$p"
	done | sort -u)
	rm -rf "$repo" && mkdir -p "$repo" || exit 1
	for f in $files $EXTRA_FILES; do
		mkdir -p "$repo/$(dirname "$f")" && cp "$BUILD/src/stock/$f" "$repo/$f" ||
			die "no $f in stock 6.12"
	done
	cd "$repo" && git init -q . &&
		git config user.name "mprotect-batch project" &&
		git config user.email "mprotect-batch@users.noreply.invalid" &&
		git add -A && git commit -q -m "6.12 base: the files the series touches" &&
		git tag base || die "cannot make $repo"
	for p in $(grep -v '^[[:space:]]*\(#\|$\)' "$TOP/patches/series" | awk '{print $1}'); do
		git am -q "$TOP/patches/$p" || die "git am $p failed"
	done
	echo "$repo: $(git rev-list --count base..HEAD) commits on tag base"
	;;
export)
	[ -d "$repo/.git" ] || die "no $repo (series-git.sh import)"
	n=$(git -C "$repo" rev-list --count base..HEAD)
	[ "$n" -gt 0 ] || die "no commits after base in $repo"
	find "$TOP/patches" -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
	git -C "$repo" format-patch -q --subject-prefix="PATCH 6.12" -o "$TOP/patches" base..HEAD ||
		die "format-patch failed"
	(cd "$TOP/patches" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$TOP/patches/series"
	echo "patches/: $n patches (cover letter kept; update its subject to 00/$n)"
	;;
*) die "usage: series-git.sh import|export" ;;
esac
