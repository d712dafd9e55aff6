#!/usr/bin/env python3
"""Writes a clustered test cloud for GPU benchmarks as binary little-endian PLY
(float x, y, z): Gaussian blobs (sigma 1) with centres uniform in a cube of side
--extent, one blob per --per-blob points, plus --noise of the points uniform
in the cube. Needs numpy.

    scripts/gen-blobs.py --points 4000000 OUT.ply     # eps 0.3 gives ~10-30 neighbours in blobs
"""
import argparse

import numpy as np



def blobs(n, per_blob=4000, noise=0.1, extent=100.0, seed=1):
    """n float64 points: Gaussian blobs (sigma 1) of per_blob points, centres
    uniform in a cube of side extent, and a share noise of uniform points."""
    rng = np.random.default_rng(seed)
    centres = rng.uniform(0, extent, (max(1, n // per_blob), 3))
    p = centres[rng.integers(0, len(centres), n)] + rng.normal(0, 1, (n, 3))
    m = int(n * noise)
    p[:m] = rng.uniform(0, extent, (m, 3))
    return p[rng.permutation(n)]


def write_ply(path, p):
    """Writes the points p as binary little-endian PLY of float x, y, z."""
    p = p.astype("<f4")
    with open(path, "wb") as f:
        f.write(b"ply\nformat binary_little_endian 1.0\nelement vertex %d\n"
                b"property float x\nproperty float y\nproperty float z\nend_header\n" % len(p))
        f.write(p.tobytes())


if __name__ == "__main__":
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--points", type=int, default=4_000_000)
    ap.add_argument("--per-blob", type=int, default=4000)
    ap.add_argument("--extent", type=float, default=100.0)
    ap.add_argument("--noise", type=float, default=0.1)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    write_ply(a.out, blobs(a.points, a.per_blob, a.noise, a.extent, a.seed))
