#!/bin/sh
# SPDX-License-Identifier: GPL-2.0
#
# table.sh: CSV(s) from results.sh -> one table per arch, checked against
# bench/targets.
#
#   bench/table.sh [--report-only] [--gate[=CASES]] [--targets FILE]
#                  [--arches A,B] [--wall] CSV...
#
# Columns: case | folio | metric | stock | patched | ratio | target | result
#   ratio  = patched/stock guest instructions (median of paired runs)
#   with a third kernel (variant "mainline", 7.2) in the CSVs, after ratio:
#   mainline | ml/stock | pat/ml (its metric, and paired ratios against it;
#   the targets stay on patched/stock)
#   a config "<config>-ml" is the mainline edition: stock = 7.2 with its
#   batching taken out, patched = 7.2 + patches/mainline, mainline = 7.2;
#   its cases take the targets of their arch, and pat/ml must also be at
#   most the case's line in targets-ml (--ml-targets FILE)
#   pairs  = (emulated wall time only) the lowest and highest paired ratio
#   result = met / missed / missing / info (no target for this case)
# A case with a target that has no result is "missing", never passed.
# For every case with a target, more write faults in patched than in stock
# is also "missed".
#
# --report-only  always exit 0 (still prints the table)
# --gate[=CASES] the make-check gate: only CASES (comma list, or a file with
#                one case per line; default bench/gate-cases), fail when a
#                no-regression case (target >= 1) has ratio > target or a
#                large-folio case (target < 1) has ratio >= target
# --arches A,B   archs that must be present (default: those in the CSVs)
# --wall         label as emulated wall time (also taken from "# mode=wall")
#
# Exit: 0 all met, 1 a target missed or missing, 2 usage error.
set -eu

here=$(cd "$(dirname "$0")" && pwd)
targets=$here/targets
mltargets=$here/targets-ml
report_only=0
gate=
arches=
wall=0

usage() {
	sed -n '5,8p' "$0" | sed 's/^# *//' >&2
	exit 2
}

while [ $# -gt 0 ]; do
	case $1 in
	--report-only) report_only=1; shift ;;
	--gate) gate=$here/gate-cases; shift ;;
	--gate=*) gate=${1#--gate=}; shift ;;
	--targets) [ $# -ge 2 ] || usage; targets=$2; shift 2 ;;
	--ml-targets) [ $# -ge 2 ] || usage; mltargets=$2; shift 2 ;;
	--arches) [ $# -ge 2 ] || usage; arches=$2; shift 2 ;;
	--wall) wall=1; shift ;;
	-h|--help) usage ;;
	--) shift; break ;;
	-*) echo "$0: unknown option $1" >&2; usage ;;
	*) break ;;
	esac
done
[ $# -ge 1 ] || usage
for f in "$@" "$targets" "$mltargets"; do
	if [ ! -r "$f" ]; then
		echo "$0: cannot read $f" >&2
		exit 2
	fi
done

# Gate case list: a file with one name per line, or a comma list.
gatelist=
if [ -n "$gate" ]; then
	if [ -f "$gate" ]; then
		gatelist=$(sed 's/#.*//' "$gate" | tr -s ' \t\n' ',,,')
	else
		gatelist=$gate
	fi
fi

status=0
awk -f "$here/ratios.awk" "$@" | awk \
	-v targets="$targets" -v mltargets="$mltargets" -v gatelist="$gatelist" \
	-v want_arches="$arches" \
	-v wall="$wall" '
# load_targets(FILE, ML): "arch case max_ratio" lines into tgt[] (the
# ratio to stock), or with ML into mltgt[] (pat/ml of "-ml" configs).
function load_targets(targets, ml,    line, f, n) {
	while ((getline line < targets) > 0) {
		sub(/#.*/, "", line)
		n = split(line, f, /[ \t]+/)
		if (n > 0 && f[1] == "")
			for (n = 1; n < 4; n++)
				f[n] = f[n + 1]
		if (f[1] == "" || f[2] == "")
			continue
		if (f[3] !~ /^[0-9.]+$/) {
			print "table.sh: bad target line: " line > "/dev/stderr"
			bad = 1
			continue
		}
		if (ml) {
			mltgt[f[1], f[2]] = f[3]
			continue
		}
		tgt[f[1], f[2]] = f[3]
		if (!((f[2]) in tcase)) {
			tcase[f[2]] = 1
			tcases[++ntc] = f[2]
		}
		if (f[1] != "*")
			tarch[f[1]] = 1
	}
	close(targets)
}

# The arch a config of the matrix belongs to: "arm64-va52" -> "arm64".
function base(a) {
	sub(/-.*/, "", a)
	return a
}

# The configs compared in one worst-config table: those of an arch, the
# mainline edition'"'"'s ("-ml") apart.
function family(a) {
	return a ~ /-ml$/ ? base(a) "-ml" : base(a)
}

# A config takes its arch'"'"'s targets unless the file names it.
function target(a, c) {
	if ((a, c) in tgt)
		return tgt[a, c]
	if ((base(a), c) in tgt)
		return tgt[base(a), c]
	if (("*", c) in tgt)
		return tgt["*", c]
	return ""
}

# The pat/ml target of a case of the mainline edition ("" elsewhere).
function mltarget(a, c) {
	if (a !~ /-ml$/)
		return ""
	if ((base(a), c) in mltgt)
		return mltgt[base(a), c]
	if (("*", c) in mltgt)
		return mltgt["*", c]
	return ""
}

function add_arch(a) {
	if (!(a in has_arch)) {
		has_arch[a] = 1
		arch[++narch] = a
	}
}

BEGIN {
	load_targets(targets, 0)
	load_targets(mltargets, 1)
	ngate = split(gatelist, g, ",")
	for (i = 1; i <= ngate; i++)
		if (g[i] != "")
			ingate[g[i]] = 1
	n = split(want_arches, w, ",")
	for (i = 1; i <= n; i++)
		if (w[i] != "")
			add_arch(w[i])
	fail = 0
}

$1 == "M" {
	mode = $2
	next
}

$1 == "R" {
	if ($16 != "" && $16 != "-")
		hasml = 1
	a = $2; c = $3
	add_arch(a)
	if (!((a, c) in row)) {
		nrow[a]++
		rows[a, nrow[a]] = c
	}
	row[a, c] = $0
	next
}

function show(a, c, r,    f, t, res, ratio, large, rf, cmp, tm) {
	t = target(a, c)
	if (r != "") {
		split(r, f, " ")
	} else {
		f[4] = "-"; f[5] = 0; f[6] = "-"; f[7] = "-"; f[8] = "-"
		f[9] = "-"; f[10] = "-"; f[11] = "-"; f[12] = "no-result"
	}
	ratio = f[6]
	if (wallmode)
		sub(/^insns/, "ns", f[9])
	large = t != "" && t + 0 < 1
	if (ratio == "-") {
		res = "missing"
		if (f[12] != "ok")
			res = res " (" f[12] ")"
		if (t != "" || gatemode)
			fail = 1
		if (t == "")
			res = res ", no target"
	} else if (t == "") {
		res = "info"
	} else {
		if (gatemode && large)
			cmp = ratio + 0 < t + 0
		else
			cmp = ratio + 0 <= t + 0
		res = cmp ? "met" : "missed"
		if (f[10] != "-" && f[11] != "-" && f[11] + 0 > f[10] + 0) {
			res = "missed (faults " f[10] "->" f[11] ")"
			cmp = 0
		}
		if (f[12] == "work-differs") {
			res = "missed (work differs)"
			cmp = 0
		}
		tm = mltarget(a, c)
		if (cmp && tm != "" && !gatemode) {
			if (f[17] == "" || f[17] == "-") {
				res = "missing (pat/ml)"
				cmp = 0
			} else if (f[17] + 0 > tm + 0) {
				res = sprintf("missed (pat/ml %.3f > %.2f)", f[17], tm)
				cmp = 0
			}
		}
		if (!cmp)
			fail = 1
	}
	if (t == "")
		t = "-"
	else
		t = (gatemode && large ? "<" : "<=") sprintf("%.2f", t)
	printf "%-23s %-5s %-10s %12s %12s %7s%s%s %3s %-7s %s\n", c, f[4], f[9],
	       f[7], f[8], ratio == "-" ? "-" : sprintf("%.3f", ratio),
	       pairs_col(f[13] == "" || f[13] == "-" ? "-" : f[13] "-" f[14]),
	       ml_cols(f[15], f[16], f[17]), f[5], t, res
}

# One line per case and arch with more than one config: the config with the
# highest ratio. The per-config tables above decide the result.
function worst_configs(    ai, a, f, i, c, r, fl, nfl, nf, seen, ord, nord, k, t, mc) {
	if (gatemode)
		return
	for (ai = 1; ai <= narch; ai++) {
		f = family(arch[ai])
		if (!(f in nf)) {
			fl[++nfl] = f
			nf[f] = 0
		}
		nf[f]++
	}
	for (k = 1; k <= nfl; k++) {
		f = fl[k]
		if (nf[f] < 2)
			continue
		printf "== %s: worst config per case ==\n", f
		printf "%-23s %-12s %7s %s%s\n", "case", "config", "ratio",
		       hasml ? sprintf("%-7s", "target") : "target",
		       hasml ? sprintf(" %7s %s", "pat/ml", "(its worst config)") : ""
		split("", seen)
		nord = 0
		for (ai = 1; ai <= narch; ai++) {
			a = arch[ai]
			if (family(a) != f)
				continue
			for (i = 1; i <= nrow[a]; i++) {
				c = rows[a, i]
				split(row[a, c], r, " ")
				if (r[6] == "-" || r[6] == "")
					continue
				if (!(c in seen)) {
					seen[c] = 1
					ord[++nord] = c
				}
				if (!((f, c) in wr) || r[6] + 0 > wr[f, c] + 0) {
					wr[f, c] = r[6]
					wa[f, c] = a
				}
				if (r[17] != "" && r[17] != "-" &&
				    (!((f, c) in wm) || r[17] + 0 > wm[f, c] + 0)) {
					wm[f, c] = r[17]
					wma[f, c] = a
				}
			}
		}
		for (i = 1; i <= nord; i++) {
			c = ord[i]
			t = target(wa[f, c], c)
			mc = ""
			if (hasml && ((f, c) in wm))
				mc = sprintf(" %7.3f %-12s", wm[f, c], wma[f, c])
			else if (hasml)
				mc = sprintf(" %7s %-12s", "-", "-")
			t = t == "" ? "-" : "<=" sprintf("%.2f", t)
			printf "%-23s %-12s %7.3f %s%s\n", c, wa[f, c], wr[f, c],
			       hasml ? sprintf("%-7s", t) : t, mc
		}
		print ""
	}
}

# The mainline columns, when a third kernel was measured.
function ml_cols(m, rs, rp) {
	if (!hasml)
		return ""
	return sprintf(" %12s %8s %7s", m == "" ? "-" : m,
		       rs == "" || rs == "-" ? "-" : sprintf("%.3f", rs),
		       rp == "" || rp == "-" ? "-" : sprintf("%.3f", rp))
}

# The pairs column, in emulated wall time only.
function pairs_col(s) {
	return wallmode ? sprintf(" %-13s", s) : ""
}

END {
	gatemode = ngate > 0
	wallmode = mode == "wall" || wall
	if (wallmode)
		label = "emulated wall time: median of paired patched/stock ratios"
	else
		label = "guest instructions (QEMU -icount shift=0)"
	for (ai = 1; ai <= narch; ai++) {
		a = arch[ai]
		printf "== %s: %s%s ==\n", a, label, gatemode ? " [gate]" : ""
		if (a ~ /-ml$/)
			print "(mainline edition: stock = 7.2 without its batching, patched = 7.2 + patches/mainline, mainline = 7.2)"
		printf "%-23s %-5s %-10s %12s %12s %7s%s%s %3s %-7s %s\n", "case",
		       "folio", "metric", "stock", "patched", "ratio",
		       pairs_col("pairs"),
		       hasml ? sprintf(" %12s %8s %7s", "mainline", "ml/stock", "pat/ml") : "",
		       "n", "target", "result"
		split("", done)
		for (i = 1; i <= nrow[a]; i++) {
			c = rows[a, i]
			if (gatemode && !(c in ingate))
				continue
			show(a, c, row[a, c])
			done[c] = 1
		}
		# Expected cases with no row at all.
		if (gatemode) {
			for (i = 1; i <= ngate; i++)
				if (g[i] != "" && !(g[i] in done)) {
					show(a, g[i], "")
					done[g[i]] = 1
				}
		} else {
			for (i = 1; i <= ntc; i++)
				if (!(tcases[i] in done) &&
				    target(a, tcases[i]) != "")
					show(a, tcases[i], "")
		}
		print ""
	}
	worst_configs()
	if (narch == 0) {
		print "table.sh: no results" > "/dev/stderr"
		fail = 1
	}
	if (bad)
		fail = 1
	print fail ? "RESULT: target(s) missed or missing" : "RESULT: all targets met"
	exit fail
}' || status=$?

if [ "$status" -ne 0 ] && [ "$report_only" -eq 1 ]; then
	status=0
fi
exit "$status"
