#!/bin/sh
# table.sh: stock, v14 and the variant on x86_64 (run from the repository's top).
R=results/6.12-v13/one-lookup-test D=results/6.12-v14/after-upgrade-batch-test
t=$(mktemp -d) || exit 1
zcat $R/x86_64-stock.log.gz >$t/s; zcat $R/x86_64-v13.log.gz >$t/v; zcat $D/x86_64-variant.log.gz >$t/w
printf "%-20s %9s %9s %9s %7s %7s\n" case stock v14 variant v14/st var/st
for c in shmem-nonerw-64k nonero-64k nonerw-4k-4000KiB rorw-4k memfd-rorw-4k shmem-rorw-write-4k rorw-64k rorw-thp-pte nonerw-4k-4KiB rorw-4k-4KiB; do
	s=$(bench/report field $t/s $c per_pte) v=$(bench/report field $t/v $c per_pte) w=$(bench/report field $t/w $c per_pte)
	printf "%-20s %9s %9s %9s %7s %7s\n" $c $s $v $w $(echo "$v $s" | awk '{printf "%.3f", $1/$2}') $(echo "$w $s" | awk '{printf "%.3f", $1/$2}')
done
rm -rf "$t"
