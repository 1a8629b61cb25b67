#!/bin/sh
# table.sh: the figures of patches 7 and 8's messages, from this folder's
# logs (run from the repository's top). arm64's stock and "up to patch 6"
# boots are v13's and v12's (identical kernels since).
D=results/6.12-v14/messages
t=$(mktemp -d) || exit 1
zcat results/6.12-v13/messages/arm64-stock-msg.log.gz >$t/arm64-stock
zcat results/6.12-v12/messages/arm64-v12p6-msg.log.gz >$t/arm64-p6
for f in arm64-v14p7 arm64-v14p8 x86_64-stock x86_64-v14p7 x86_64-v14p8; do
	zcat $D/$f-msg.log.gz >$t/$f
done
row() { # ARCH CASE LOG...
	a=$1 c=$2; shift 2
	printf "%-7s %-18s" "$a" "$c"
	for l; do printf " %8.1f" "$(bench/report field "$t/$l" "$c" per_pte)"; done
	echo
}
echo "arm64: stock, up to patch 6, 7, 8"
for c in rorw-thp-pte rorw-64k nonerw-64k shmem-rorw-64k shmem-nonerw-64k rorw-16k rorw-4k; do
	row arm64 $c arm64-stock arm64-p6 arm64-v14p7 arm64-v14p8
done
echo "x86_64: stock, up to patch 7 (x86_64's objects are those of patch 6), 8"
for c in rorw-thp-pte rorw-64k rorw-64k-mixed rorw-64k-each rorw-16k rorw-4k nonerw-4k-4000KiB memfd-rorw-4k shmem-nonerw-64k; do
	row x86_64 $c x86_64-stock x86_64-v14p7 x86_64-v14p8
done
rm -rf "$t"
