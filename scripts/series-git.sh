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
# SERIES=mainline/fixes (or lookup, arm64): the same for a series of the
# mainline edition on Debian's linux-source-7.2 (build/mgit-fixes/ ...);
# PREFIX=RFC gives its patches "[RFC PATCH n/N]".
. "$(dirname "$0")/lib.sh"

case ${SERIES:-6.12} in
6.12) repo=$BUILD/sgit pdir=$TOP/patches base=stock prefix="PATCH 6.12" ;;
mainline/fixes | mainline/lookup | mainline/arm64)
	repo=$BUILD/mgit-${SERIES#mainline/} pdir=$TOP/patches/$SERIES base=mainline
	prefix="${PREFIX:+$PREFIX }PATCH" ;;
*) die "unknown SERIES '$SERIES' (known: 6.12 mainline/fixes mainline/lookup mainline/arm64)" ;;
esac
case $1 in
import)
	"$TOP/scripts/source.sh" $base || exit 1
	files=$([ -f "$pdir/series" ] && grep -v '^[[:space:]]*\(#\|$\)' "$pdir/series" | while read -r p _; do
		sed -n 's,^+++ b/\([^[:space:]]*\).*,\1,p' "$pdir/$p"
	done | sort -u)
	rm -rf "$repo" && mkdir -p "$repo" || exit 1
	for f in $files $EXTRA_FILES; do
		# A file the series creates (the selftest) has no stock version.
		case " $EXTRA_FILES " in *" $f "*) ;; *) [ -e "$BUILD/src/$base/$f" ] || continue ;; esac
		mkdir -p "$repo/$(dirname "$f")" && cp "$BUILD/src/$base/$f" "$repo/$f" ||
			die "no $f in $base"
	done
	cd "$repo" && git init -q . &&
		git config user.name "mprotect-batch project" &&
		git config user.email "mprotect-batch@users.noreply.invalid" &&
		git add -A && git commit -q -m "$base base: the files the series touches" &&
		git tag base || die "cannot make $repo"
	for p in $([ -f "$pdir/series" ] && grep -v '^[[:space:]]*\(#\|$\)' "$pdir/series" | awk '{print $1}'); do
		git am -q "$pdir/$p" || die "git am $p failed"
		# git am drops the notes below the cut; export writes them back.
		note=$(awk '/^---$/ { cut = 1; next } cut && /^Notes:$/ { n = 1; next }
			n && /^    / { sub(/^    /, ""); print; next } n { exit }' "$pdir/$p")
		[ -z "$note" ] || git notes add -m "$note" HEAD || die "git notes add failed"
	done
	echo "$repo: $(git rev-list --count base..HEAD) commits on tag base"
	;;
export)
	[ -d "$repo/.git" ] || die "no $repo (series-git.sh import)"
	n=$(git -C "$repo" rev-list --count base..HEAD)
	[ "$n" -gt 0 ] || die "no commits after base in $repo"
	mkdir -p "$pdir"
	find "$pdir" -maxdepth 1 -name '[0-9][0-9][0-9][0-9]-*.patch' ! -name '0000-*' -delete
	git -C "$repo" format-patch -q --notes --subject-prefix="$prefix" -o "$pdir" base..HEAD ||
		die "format-patch failed"
	(cd "$pdir" && ls [0-9][0-9][0-9][0-9]-*.patch | grep -v '^0000-') >"$pdir/series"
	echo "${pdir#$TOP/}/: $n patches (cover letter kept; update its subject to 00/$n)"
	;;
*) die "usage: series-git.sh import|export" ;;
esac
