# SPDX-License-Identifier: GPL-2.0
#
# ratios.awk: CSV from results.sh -> one line per (arch, case):
#
#   M <mode>
#   R <arch> <case> <folio> <pairs> <ratio> <stock> <patched> <metric>
#     <stock_faults> <patched_faults> <note> <lo> <hi>
#     <mainline> <mainline/stock> <patched/mainline>
#
# Run i of stock is paired with run i of patched; <ratio> is the median of
# the paired insns ratios (patched/stock), "-" when there is no pair.
# <stock>/<patched> are the medians of the metric: insns per call for the
# fixed small-region shapes (nonerw-4k-*, rorw-4k-*), insns per PTE
# otherwise.
# <note>: ok, no-stock, no-patched, skipped-<variant>:<reason>,
# work-differs (stock and patched ran different amounts of work).
# <lo> <hi>: the lowest and highest paired ratio.
# The mainline fields ("-" without a mainline run) compare the third kernel
# (variant "mainline", 7.2) with both: run i with run i, as above; "-" where
# the runs did different amounts of work.
# Used by table.sh and plot.sh.

function median(arr, n,    i, j, t) {
	for (i = 2; i <= n; i++) {
		t = arr[i]
		for (j = i - 1; j >= 1 && arr[j] > t; j--)
			arr[j + 1] = arr[j]
		arr[j + 1] = t
	}
	if (n % 2)
		return arr[(n + 1) / 2]
	return (arr[n / 2] + arr[n / 2 + 1]) / 2
}

# paired(K1, K2): the median of the paired insns ratios K2/K1 over the
# runs both have, "-" when none (or when a pair ran different work).
function paired(k1, k2,    r, nr, n, pr) {
	n = 0
	nr = maxrun[k1] > maxrun[k2] ? maxrun[k1] : maxrun[k2]
	for (r = 1; r <= nr; r++) {
		if (!((k1, r) in ok) || !((k2, r) in ok))
			continue
		if (ptes[k1, r] != ptes[k2, r] || calls[k1, r] != calls[k2, r] ||
		    insns[k1, r] + 0 == 0)
			return "-"
		pr[++n] = insns[k2, r] / insns[k1, r]
	}
	return n ? sprintf("%.6f", median(pr, n)) : "-"
}

# metric(K, PER_CALL): the median of insns per call (or per PTE) of K.
function metric_of(k, per_call,    r, n, m) {
	n = 0
	for (r = 1; r <= maxrun[k]; r++)
		if ((k, r) in ok)
			m[++n] = insns[k, r] / (per_call ? calls[k, r] : ptes[k, r])
	return n ? sprintf("%.2f", median(m, n)) : "-"
}

BEGIN {
	FS = ","
	mode = ""
}

/^#/ {
	if ($0 ~ /^# mode=/) {
		m = substr($0, 8)
		if (mode != "" && mode != m)
			mode = "mixed"
		else
			mode = m
	}
	next
}

$1 == "arch" || NF < 11 {
	next
}

{
	a = $1; v = $2; r = $3 + 0; c = $4
	if (!(a in seen_arch)) {
		seen_arch[a] = 1
		arches[++narch] = a
	}
	if (!((a, c) in seen_case)) {
		seen_case[a, c] = 1
		ncase[a]++
		cases[a, ncase[a]] = c
		folio[a, c] = "-"
	}
	if ($10 != "")
		folio[a, c] = $10
	k = a SUBSEP v SUBSEP c
	if (r > maxrun[k])
		maxrun[k] = r
	if ($11 != "ok") {
		skipped[k] = substr($11, 9)
		next
	}
	ok[k, r] = 1
	insns[k, r] = $5; calls[k, r] = $6; ptes[k, r] = $7
	faults[k, r] = $9
}

END {
	print "M " (mode == "" ? "icount" : mode)
	for (ai = 1; ai <= narch; ai++) {
		a = arches[ai]
		for (ci = 1; ci <= ncase[a]; ci++) {
			c = cases[a, ci]
			ks = a SUBSEP "stock" SUBSEP c
			kp = a SUBSEP "patched" SUBSEP c
			per_call = c ~ /^(nonerw|rorw)-4k-/
			metric = per_call ? "insns/call" : "insns/pte"
			n = 0; differs = 0
			nr = maxrun[ks] > maxrun[kp] ? maxrun[ks] : maxrun[kp]
			for (r = 1; r <= nr; r++) {
				if (!((ks, r) in ok) || !((kp, r) in ok))
					continue
				if (ptes[ks, r] != ptes[kp, r] ||
				    calls[ks, r] != calls[kp, r] ||
				    insns[ks, r] + 0 == 0) {
					differs = 1
					continue
				}
				rat[++n] = insns[kp, r] / insns[ks, r]
			}
			ratio = n ? sprintf("%.6f", median(rat, n)) : "-"
			split("", mets)
			split("", metp)
			split("", fs)
			split("", fp)
			ns = np = 0
			for (r = 1; r <= maxrun[ks]; r++)
				if ((ks, r) in ok) {
					ns++
					mets[ns] = insns[ks, r] / \
						(per_call ? calls[ks, r] : ptes[ks, r])
					fs[ns] = faults[ks, r]
				}
			for (r = 1; r <= maxrun[kp]; r++)
				if ((kp, r) in ok) {
					np++
					metp[np] = insns[kp, r] / \
						(per_call ? calls[kp, r] : ptes[kp, r])
					fp[np] = faults[kp, r]
				}
			if (differs)
				note = "work-differs"
			else if (!ns && (ks in skipped))
				note = "skipped-stock:" skipped[ks]
			else if (!np && (kp in skipped))
				note = "skipped-patched:" skipped[kp]
			else if (!ns)
				note = "no-stock"
			else if (!np)
				note = "no-patched"
			else
				note = "ok"
			# median() sorted rat[]: the pairs' lowest and highest
			# ratio (the spread of emulated wall time).
			km = a SUBSEP "mainline" SUBSEP c
			printf "R %s %s %s %d %s %s %s %s %s %s %s %s %s %s %s %s\n", a, c,
			       folio[a, c], n, ratio,
			       ns ? sprintf("%.2f", median(mets, ns)) : "-",
			       np ? sprintf("%.2f", median(metp, np)) : "-",
			       metric,
			       ns ? sprintf("%d", median(fs, ns)) : "-",
			       np ? sprintf("%d", median(fp, np)) : "-", note,
			       n ? sprintf("%.3f", rat[1]) : "-",
			       n ? sprintf("%.3f", rat[n]) : "-",
			       metric_of(km, per_call), paired(ks, km), paired(km, kp)
		}
	}
}
