#!/usr/bin/env bash
# Issue 23's measurement on the GPU machine: ArborX's FDBSCAN and DenseBox against pctk's cuda
# DBSCAN on the cases of scripts/gen-dbscan-cases.py, in one run, labels compared.
#
#   scripts/gpu-dbscan-cases.sh BUNDLE OUT [CASE...]      (from the repository root)
#
# BUNDLE holds pctk (a CGO_ENABLED=0 build), lidar.f32 (the real cloud, see gen-dbscan-cases.py)
# and either arborx_dbscan (the driver built in an earlier run) or arborx/ (a copy of
# ../shared/anchors/arborx, built here by its build.sh, about 2 minutes; the binary is then
# copied to OUT). Per case it prints ArborX's best of 3 (points on the GPU, labels left there),
# pctk's device-side steps (`bench --e2e`: device build + the stages' device time), pctk's whole
# `bench --ops dbscan` operation (transfers included, median of 5; and its best), and the label
# comparison; NCU=1 adds each kernel's time (Nsight Compute, clocks left alone) to OUT.
# PCTK_CUDA_PTX, when set, names kernels to load instead of the embedded ones. The cases and
# ArborX's results stay in /tmp/cases for later runs on the same machine (other kernels).
set -u
B=$(cd "$1" && pwd); O=$2; shift 2
cases=${*:-blobs u8 u32 u256 dense lidar}
D=/tmp/cases; mkdir -p "$D" "$O"
[ -s "$D/eps" ] || python3 scripts/gen-dbscan-cases.py "$D" --lidar "$B/lidar.f32" --only "$(echo $cases | tr ' ' ,)" > "$D/eps" || exit 1
AX=$B/arborx_dbscan
if [ ! -x "$AX" ]; then
  (bash "$B/arborx/build.sh" > "$O/arborx-build.log" 2>&1) || { echo "ArborX build failed"; tail "$O/arborx-build.log"; exit 1; }
  AX=/tmp/ax/db/arborx_dbscan; cp $AX "$O/"
fi
P=$B/pctk
summary=()
while read -r c eps; do
  f=$D/$c
  if [ ! -s "$f.ax" ]; then
    "$AX" "$f.f32" "$eps" 10 "$f.fd.i32" fdbscan | sed -n 's/.*best_ms=\([0-9.]*\).*/\1/p' > "$f.ax"
    "$AX" "$f.f32" "$eps" 10 "$f.db.i32" densebox | sed -n 's/.*best_ms=\([0-9.]*\).*/\1/p' >> "$f.ax"
  fi
  fd=$(sed -n 1p "$f.ax"); dbx=$(sed -n 2p "$f.ax")
  "$P" dbscan --backend cuda --eps "$eps" --min-pts 10 "$f.ply" "$f.out.ply" > "$O/$c.dbscan.log" 2>&1
  cmpfd=$(python3 scripts/compare-dbscan-labels.py "$f.out.ply" "$f.fd.i32" 10 | sed 's/^points [0-9]*: //')
  "$P" bench --e2e --backends cuda --repeat 3 --eps "$eps" --min-pts 10 "$f.ply" > "$O/$c.e2e.log" 2>&1
  dev=$(awk '$1=="cuda" && $2==3 {printf "%.1f + %.1f = %.1f", $8, $11, $8+$11}' "$O/$c.e2e.log")
  "$P" bench --backends cuda --ops dbscan --repeat 5 --eps "$eps" --min-pts 10 --json "$f.ply" > "$O/$c.bench.json" 2>"$O/$c.bench.err"
  whole=$(python3 -c "
import json,sys; d=json.load(open('$O/$c.bench.json'))
r=[x for x in (d.get('results') or d.get('rows') or d) if x.get('op')=='dbscan'][0]
print('%.2f + %.2f = %.1f' % (r['build_ms'], r['ms'], r['build_ms']+r['ms']))" 2>>"$O/$c.bench.err")
  if [ "${NCU:-}" = 1 ]; then
    ncu --clock-control none --metrics gpu__time_duration.sum --csv "$P" dbscan --backend cuda --eps "$eps" \
      --min-pts 10 "$f.ply" /tmp/ncu.ply > "$O/$c.ncu.csv" 2>/dev/null
    python3 - "$O/$c.ncu.csv" <<'PY' > "$O/$c.kernels.txt"
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
h = rows[0]; k = h.index("Kernel Name"); v = h.index("Metric Value"); u = h.index("Metric Unit")
t = collections.OrderedDict()
for r in rows[1:]:
    x = float(r[v].replace(",", "")) * {"ns": 1e-6, "nsecond": 1e-6, "us": 1e-3, "usecond": 1e-3, "ms": 1, "msecond": 1}[r[u]]
    t[r[k].split("(")[0]] = t.get(r[k].split("(")[0], 0) + x
print(" ".join("%s=%.2f" % (n, x) for n, x in t.items()))
PY
    summary+=("   kernels ms: $(cat "$O/$c.kernels.txt")")
  fi
  summary+=("$c eps=$eps | fdbscan $fd | densebox $dbx | pctk device $dev | pctk whole $whole | $cmpfd")
done < "$D/eps"
printf '%s\n' "${summary[@]}" | tee "$O/summary.txt"
