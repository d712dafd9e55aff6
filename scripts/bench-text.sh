#!/usr/bin/env bash
# Side-by-side benchmark of text point clouds (docs/benchmarks.md, "Text"):
# pctk against Open3D (Debian python3-open3d, through /usr/bin/python3) on
# an ascii PLY of N points (default 4,000,000), and against numpy.loadtxt
# on the same points as a .xyz text file. Each round runs pctk and the peer
# back to back, so that both see the same load on a shared machine; the
# ratios are the result. pctk is timed as whole commands (process start,
# reading, the work, the atomic write), the peers in-process around their
# calls only (interpreter start and imports excluded): a bound in the
# peers' favour.
#
#   scripts/bench-text.sh [N] [ROUNDS]
set -euo pipefail
cd "$(dirname "$0")/.."
N=${1:-4000000}
ROUNDS=${2:-3}
PY=/usr/bin/python3
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
go build -o "$dir/pctk" ./cmd/pctk
pctk="$dir/pctk"

# A wavy surface with noise and colours, as a scan: float x y z, uchar rgb,
# written as binary PLY by numpy, then as ascii PLY and .xyz by pctk.
$PY - "$N" "$dir/bin.ply" <<'EOF'
import sys, numpy as np
n, path = int(sys.argv[1]), sys.argv[2]
rng = np.random.default_rng(22)
a = np.zeros(n, dtype=[('x', '<f4'), ('y', '<f4'), ('z', '<f4'), ('red', 'u1'), ('green', 'u1'), ('blue', 'u1')])
u, v = rng.random(n) * 100, rng.random(n) * 100
a['x'], a['y'] = u, v
a['z'] = np.sin(u / 7) * np.cos(v / 5) * 3 + rng.normal(0, 0.01, n)
for c in ('red', 'green', 'blue'):
    a[c] = rng.integers(0, 256, n)
with open(path, 'wb') as f:
    f.write(("ply\nformat binary_little_endian 1.0\nelement vertex %d\nproperty float x\nproperty float y\n"
             "property float z\nproperty uchar red\nproperty uchar green\nproperty uchar blue\nend_header\n" % n).encode())
    a.tofile(f)
EOF
"$pctk" -q convert "$dir/bin.ply" "$dir/in.ply" --format ply-ascii
"$pctk" -q convert "$dir/bin.ply" "$dir/in.xyz"
echo "points: $N; ascii PLY $(du -m "$dir/in.ply" | cut -f1) MB, xyz $(du -m "$dir/in.xyz" | cut -f1) MB; $(nproc) cores"
echo "Open3D $($PY -c 'import open3d; print(open3d.__version__)'), numpy $($PY -c 'import numpy; print(numpy.__version__)')"

# run times a pctk command: prints its wall and CPU (user + system) seconds.
run() {
	local TIMEFORMAT='%R %U %S' out
	out=$({ time "$@" >/dev/null; } 2>&1)
	echo "$out" | awk '{print $1, $2 + $3}'
}

o3d_io='
import sys, time, open3d as o3d
t, c = time.perf_counter(), time.process_time(); p = o3d.io.read_point_cloud(sys.argv[1])
r, rc = time.perf_counter() - t, time.process_time() - c
t, c = time.perf_counter(), time.process_time(); o3d.io.write_point_cloud(sys.argv[2], p, write_ascii=True)
print(r, rc, time.perf_counter() - t, time.process_time() - c)'
o3d_normals='
import sys, time, open3d as o3d
t, c = time.perf_counter(), time.process_time()
p = o3d.io.read_point_cloud(sys.argv[1])
p.estimate_normals(o3d.geometry.KDTreeSearchParamKNN(30))
o3d.io.write_point_cloud(sys.argv[2], p, write_ascii=True)
print(time.perf_counter() - t, time.process_time() - c)'
np_load='
import sys, time, numpy as np
t, c = time.perf_counter(), time.process_time(); a = np.loadtxt(sys.argv[1], skiprows=1)
print(time.perf_counter() - t, time.process_time() - c, a.shape[0])'

# row prints one comparison: pctk wall and CPU, the peer's, the ratios.
row() {
	printf "| %s | %s | %.3f s (%.3f s) | %.3f s (%.3f s) | **%.2fx** (%.2fx) |\n" "$1" "$2" "$3" "$4" "$5" "$6" \
		"$(echo "$5 / $3" | bc -l)" "$(echo "$6 / $4" | bc -l)"
}

echo "| round | what | pctk wall (CPU) | peer wall (CPU) | pctk's speed-up, wall (CPU) |"
echo "|---|---|---|---|---|"
for r in $(seq "$ROUNDS"); do
	echo "load: $(cut -d' ' -f1-3 /proc/loadavg)" >&2
	# read: pctk info reads the whole cloud (and its bounds and ranges)
	read -r prw prc < <(run "$pctk" -q info "$dir/in.ply")
	# write: binary PLY in (a small part of the time), ascii PLY out
	read -r pww pwc < <(run "$pctk" -q convert "$dir/bin.ply" "$dir/out.ply" --format ply-ascii)
	read -r pbw pbc < <(run "$pctk" -q convert "$dir/in.ply" "$dir/out.ply")
	read -r orw orc oww owc < <($PY -c "$o3d_io" "$dir/in.ply" "$dir/o3d.ply")
	row "$r" "ascii PLY read (vs Open3D)" "$prw" "$prc" "$orw" "$orc"
	row "$r" "ascii PLY write (vs Open3D)" "$pww" "$pwc" "$oww" "$owc"
	row "$r" "ascii PLY read + write (vs Open3D)" "$pbw" "$pbc" "$(echo "$orw + $oww" | bc -l)" "$(echo "$orc + $owc" | bc -l)"
	read -r pnw pnc < <(run "$pctk" -q normals --knn 30 "$dir/in.ply" "$dir/normals.ply")
	read -r onw onc < <($PY -c "$o3d_normals" "$dir/in.ply" "$dir/o3d_normals.ply")
	row "$r" "normals --knn 30, read to write (vs Open3D)" "$pnw" "$pnc" "$onw" "$onc"
	read -r ptw ptc < <(run "$pctk" -q info "$dir/in.xyz")
	read -r ntw ntc rows < <($PY -c "$np_load" "$dir/in.xyz")
	[ "$rows" = "$N" ] || { echo "numpy read $rows rows" >&2; exit 1; }
	row "$r" ".xyz read (vs numpy.loadtxt)" "$ptw" "$ptc" "$ntw" "$ntc"
done
