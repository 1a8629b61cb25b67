# spread.awk LOG...: per case, max/min over logs of min_block (and insns=median)
BEGIN { if (F == "") F = "min_block" }
/^BENCH case=/ && /min_block=/ {
  sub(/\r$/, "")
  c=""; m=""; md=""
  for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1]=="case") c=kv[2]; if (kv[1]==F) m=kv[2]+0; if (kv[1]=="insns") md=kv[2]+0 }
  f = FILENAME
  if (!(c in lo) || m < lo[c]) lo[c]=m
  if (!(c in hi) || m > hi[c]) hi[c]=m
  if (!(c in lo2) || md < lo2[c]) lo2[c]=md
  if (!(c in hi2) || md > hi2[c]) hi2[c]=md
  v[c, ++n[c]] = m
}
END {
  nc=0
  for (c in lo) { r[++nc] = hi[c]/lo[c]; r2[nc] = hi2[c]/lo2[c]; name[nc]=c }
  # sort
  for (i=1;i<=nc;i++) for (j=i+1;j<=nc;j++) if (r[j]<r[i]) { t=r[i]; r[i]=r[j]; r[j]=t; t=name[i]; name[i]=name[j]; name[j]=t; t=r2[i]; r2[i]=r2[j]; r2[j]=t }
  w1=0; w2=0; for (i=1;i<=nc;i++) { if (r[i]<=1.01) w1++; if (r[i]<=1.02) w2++ }
  printf "cases %d, runs %d: min_block max/min: median %.3f, 90%% %.3f, worst %.3f (%s); within 1%%: %d, 2%%: %d\n", nc, n[name[1]], r[int((nc+1)/2)], r[int(nc*0.9)], r[nc], name[nc], w1, w2
  if (verbose) for (i=1;i<=nc;i++) printf "  %-26s %.3f  (median-block %.3f)\n", name[i], r[i], r2[i]
}
