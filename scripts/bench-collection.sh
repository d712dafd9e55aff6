#!/usr/bin/env bash
# Issue 32's job: a cleanup pipeline over a tile collection, cpu against cuda (and optix), beside
# `pctk convert` of the same collection (the I/O floor), with the outputs compared byte for byte.
#
#   scripts/bench-collection.sh PCTK TILES POINTS WORK [RUNS] [BACKEND...]
#
# PCTK is the pctk binary; TILES files of POINTS points each are made with `pctk synth street`
# (seeds 1..TILES: streets over the same ground, as issue 32 asks) under WORK/tiles (kept for
# later runs); each backend (default: cpu cuda) runs the pipeline RUNS times (default 2), alternating,
# and the best wall time is printed with its ratio to cpu and to convert. STEPS overrides the steps
# (one per line), MEM the pipeline's --max-memory (default: pctk's, 1GiB). Every backend's outputs
# must equal the cpu ones (cmp).
set -u
P=$1; T=$2; N=$3; W=$4; R=${5:-2}; shift 5 2>/dev/null || shift $#
backends=${*:-cpu cuda}
STEPS=${STEPS:-"denoise statistical --k 8 --std-ratio 2
ground smrf --ties grid --ignore 7
hag
dbscan --eps 1 --min-pts 10"}
mkdir -p "$W/tiles"
if [ "$(ls "$W/tiles" | wc -l)" != "$T" ]; then
  rm -rf "$W/tiles"; mkdir -p "$W/tiles"
  for s in $(seq 1 "$T"); do "$P" synth street --points "$N" --seed "$s" "$W/tiles/t$(printf %02d "$s").laz" -q || exit 1; done
fi
mapfile -t steps <<< "$STEPS"
best() { sort -n | head -1; }
since() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.3f", e - s }'; }
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; }
declare -A t
for r in $(seq 1 "$R"); do
  rm -rf "$W/conv"; s=$(date +%s.%N); "$P" convert "$W"/tiles/*.laz "$W/conv/" -q || exit 1
  t[convert]+="$(since "$s") "
  for b in $backends; do
    rm -rf "$W/out-$b"; s=$(date +%s.%N)
    "$P" pipeline "$W/tiles/*.laz" "${steps[@]}" "$W/out-$b/" --backend "$b" ${MEM:+--max-memory "$MEM"} 2> "$W/log-$b" || { tail -5 "$W/log-$b"; exit 1; }
    t[$b]+="$(since "$s") "
  done
done
c=$(echo ${t[convert]} | tr ' ' '\n' | best); cpu=$(echo ${t[cpu]} | tr ' ' '\n' | best)
echo "collection: $T tiles x $N points; steps: $(echo "$STEPS" | paste -sd '|'); runs: $R"
printf "%-8s %9s %9s %9s  %s\n" what best_s vs_cpu vs_convert "all runs"
printf "%-8s %9.2f %9s %9s  %s\n" convert "$c" - 1.00 "${t[convert]}"
for b in $backends; do
  x=$(echo ${t[$b]} | tr ' ' '\n' | best)
  same=identical; for f in "$W/out-cpu"/*; do cmp -s "$f" "$W/out-$b/$(basename "$f")" || same=DIFFERENT; done
  printf "%-8s %9.2f %9.2f %9.2f  %s (%s to cpu)\n" "$b" "$x" "$(ratio "$cpu" "$x")" "$(ratio "$x" "$c")" "${t[$b]}" "$same"
done
grep -h "backend" "$W"/log-* | head -20
