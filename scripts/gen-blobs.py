#!/usr/bin/env python3
"""Writes a clustered test cloud for GPU benchmarks as binary little-endian PLY
(float x, y, z): Gaussian blobs (sigma 1) with centres uniform in a cube of side
--extent, one blob per --per-blob points, plus --noise of the points uniform
in the cube. Needs numpy.

    scripts/gen-blobs.py --points 4000000 OUT.ply     # eps 0.3 gives ~10-30 neighbours in blobs
"""
import argparse

import numpy as np

ap = argparse.ArgumentParser()
ap.add_argument("out")
ap.add_argument("--points", type=int, default=4_000_000)
ap.add_argument("--per-blob", type=int, default=4000)
ap.add_argument("--extent", type=float, default=100.0)
ap.add_argument("--noise", type=float, default=0.1)
ap.add_argument("--seed", type=int, default=1)
a = ap.parse_args()
rng = np.random.default_rng(a.seed)
n = a.points
centres = rng.uniform(0, a.extent, (max(1, n // a.per_blob), 3))
p = centres[rng.integers(0, len(centres), n)] + rng.normal(0, 1, (n, 3))
m = int(n * a.noise)
p[:m] = rng.uniform(0, a.extent, (m, 3))
p = p[rng.permutation(n)].astype("<f4")
with open(a.out, "wb") as f:
    f.write(b"ply\nformat binary_little_endian 1.0\nelement vertex %d\n"
            b"property float x\nproperty float y\nproperty float z\nend_header\n" % n)
    f.write(p.tobytes())
