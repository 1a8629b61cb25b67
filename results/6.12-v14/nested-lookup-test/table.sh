#!/bin/sh
# prints the nested-lookup table: stock, flat (committed CSVs), nested (logs)
D=results/6.12-v14/nested-lookup-test
flat() { awk -F, -v a=$1 -v c=$2 '$1==a && $2=="patched" && $3=="1" && $4==c {print $8}' $3; }
printf "%-22s %-7s %9s %9s %9s %7s %7s\n" case arch stock flat nested flat/st nest/st
for a in x86_64 arm64; do
	case $a in x86_64) csv=results/6.12-v13/bench/icount-x86_64-v12.csv ;; arm64) csv=results/6.12-v14/bench/icount-20261207T235246Z.csv ;; esac
	zcat $D/$a-stock-bench.log.gz > /tmp/ns.log; zcat $D/$a-patched-nested-bench.log.gz > /tmp/np.log
	for c in rorw-4k rorw-write-4k nonerw-4k-4KiB nonerw-4k-4000KiB rorw-4k-4KiB memfd-rorw-4k shmem-rorw-write-4k shmem-nonerw-64k nonero-64k rorw-64k-2pages rorw-16k-half rorw-thp-pte rorw-64k; do
		s=$(bench/report field /tmp/ns.log $c per_pte 2>/dev/null); n=$(bench/report field /tmp/np.log $c per_pte 2>/dev/null); f=$(flat $a $c $csv)
		printf "%-22s %-7s %9s %9s %9s %7s %7s\n" $c $a $s $f $n $(echo "$f $s" | awk '{printf "%.3f", $1/$2}') $(echo "$n $s" | awk '{printf "%.3f", $1/$2}')
	done
done
