#!/usr/bin/env python3
"""Writes the GPU DBSCAN benchmark cases of issue 23 (docs/benchmarks.md, "GPU DBSCAN:
ArborX vs pctk cuda") into DIR, each as binary little-endian PLY (float x, y, z) for
pctk and as raw float32 x y z triples (.f32) for ArborX's driver, and prints one line
per case: NAME EPS. Needs numpy.

    scripts/gen-dbscan-cases.py DIR [--lidar LOCAL.f32] [--only NAME,...]

Cases (4M points unless named, seed 1):
  blobs     Gaussian blobs (sigma 1, 4000 points each, centres uniform in a 100^3 cube)
            and 10% uniform noise, eps 0.3 (scripts/gen-blobs.py's default cloud)
  u8 u32    uniform in a cube of side 100 with ~8 and ~32 neighbours
  u256      16M uniform points with ~256 neighbours
  dense     100000 points a blob (40 blobs), no noise, eps 0.2: most points core
  lidar     a real airborne scan tiled 6 x 6 (--lidar: its float32 coordinates relative
            to their minimum; docs/benchmarks.md says how it was made from PDAL's
            autzen_trim.las), eps 5 (feet: ~19 neighbours)
"""
import argparse
import importlib.util
import math
import os

import numpy as np

# The blob generator and the PLY writer of gen-blobs.py (a name Python
# cannot import plainly).
_spec = importlib.util.spec_from_file_location("gen_blobs", os.path.join(os.path.dirname(__file__), "gen-blobs.py"))
gen_blobs = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(gen_blobs)
blobs = gen_blobs.blobs

ap = argparse.ArgumentParser()
ap.add_argument("dir")
ap.add_argument("--lidar")
ap.add_argument("--only", default="")
a = ap.parse_args()
os.makedirs(a.dir, exist_ok=True)


def uniform_eps(n, nb, side=100.0):
    return side * math.pow(nb / (4.0 / 3 * math.pi * n), 1 / 3)


def lidar():
    src = np.fromfile(a.lidar, dtype="<f4").reshape(-1, 3).astype(np.float64)
    span = src.max(0) - src.min(0)
    tiles = [src + (i * span[0], j * span[1], 0) for i in range(6) for j in range(6)]
    return np.concatenate(tiles)


M = 4_000_000
cases = {
    "blobs": (lambda: blobs(M, 4000, 0.1), 0.3),
    "u8": (lambda: blobs(M, M, 1.0), uniform_eps(M, 8)),
    "u32": (lambda: blobs(M, M, 1.0), uniform_eps(M, 32)),
    "u256": (lambda: blobs(4 * M, 4 * M, 1.0), uniform_eps(4 * M, 256)),
    "dense": (lambda: blobs(M, 100_000, 0.0), 0.2),
    "lidar": (lidar, 5.0),
}
only = [c for c in a.only.split(",") if c]
for name, (make, eps) in cases.items():
    if (only and name not in only) or (name == "lidar" and not a.lidar):
        continue
    p = make().astype("<f4")
    p.tofile(os.path.join(a.dir, name + ".f32"))
    gen_blobs.write_ply(os.path.join(a.dir, name + ".ply"), p)
    print(name, f"{eps:.4f}", flush=True)
