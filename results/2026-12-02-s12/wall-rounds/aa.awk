# aa.awk LOG1 LOG2 LOG3 ...: consecutive logs paired (1,2),(3,4)...; per case the median pair ratio; summary
BEGIN { if (F == "") F = "min_block" }
/^BENCH case=/ && /min_block=/ {
  sub(/\r$/, "")
  if (FILENAME != last) { fi++; last = FILENAME }
  for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1]=="case") c=kv[2]; if (kv[1]==F) m=kv[2]+0 }
  v[c, fi] = m; cs[c] = 1
}
END {
  np = int(fi/2); nc = 0; all = 0; w2 = 0; w1 = 0
  for (c in cs) {
    k = 0
    for (p = 1; p <= np; p++) { r = v[c, 2*p] / v[c, 2*p-1]; q[++k] = r; all++; if (r <= 1.02 && r >= 1/1.02) w2++; if (r <= 1.01 && r >= 1/1.01) w1++ }
    for (i=1;i<=k;i++) for (j=i+1;j<=k;j++) if (q[j]<q[i]) { t=q[i]; q[i]=q[j]; q[j]=t }
    med = k % 2 ? q[(k+1)/2] : (q[k/2] + q[k/2+1]) / 2
    d = med >= 1 ? med : 1/med
    dev[++nc] = d; nm[nc] = c
  }
  for (i=1;i<=nc;i++) for (j=i+1;j<=nc;j++) if (dev[j]<dev[i]) { t=dev[i]; dev[i]=dev[j]; dev[j]=t; t=nm[i]; nm[i]=nm[j]; nm[j]=t }
  c1=0; c2=0; for (i=1;i<=nc;i++) { if (dev[i]<=1.01) c1++; if (dev[i]<=1.02) c2++ }
  printf "pairs %d: pair ratios within 1%%: %d/%d, 2%%: %d/%d; case medians within 1%%: %d/%d, 2%%: %d/%d, worst %.3f (%s)\n", np, w1, all, w2, all, c1, nc, c2, nc, dev[nc], nm[nc]
}
