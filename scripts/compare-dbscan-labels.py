#!/usr/bin/env python3
"""Compares DBSCAN labels of pctk and ArborX on the same points (issue 23).

    scripts/compare-dbscan-labels.py PCTK_OUT.ply ARBORX_LABELS.i32 MIN_PTS

PCTK_OUT.ply is binary little-endian PLY written by `pctk dbscan` (NeighborCount,
ClusterID); ARBORX_LABELS.i32 the raw int32 labels of ArborX's DBSCAN driver
(../shared/anchors/arborx). Prints the points whose noise status differs and
whether the core points (NeighborCount + 1 >= MIN_PTS, scikit-learn's min_samples)
fall into the same clusters (a one-to-one map between the two numberings). Points
at distance ~ε may differ by rounding (ArborX tests in its own arithmetic).
Needs numpy.
"""
import sys

import numpy as np

TYPES = {"char": "i1", "uchar": "u1", "short": "<i2", "ushort": "<u2", "int": "<i4", "uint": "<u4",
         "float": "<f4", "double": "<f8", "int8": "i1", "uint8": "u1", "int16": "<i2", "uint16": "<u2",
         "int32": "<i4", "uint32": "<u4", "float32": "<f4", "float64": "<f8"}


def read_ply(path):
    with open(path, "rb") as f:
        fields, n = [], 0
        while True:
            line = f.readline().decode("ascii").strip()
            if line.startswith("element vertex"):
                n = int(line.split()[2])
            elif line.startswith("property"):
                _, t, name = line.split()
                fields.append((name, TYPES[t]))
            elif line == "end_header":
                break
        return np.frombuffer(f.read(), dtype=np.dtype(fields), count=n)


v = read_ply(sys.argv[1])
ax = np.fromfile(sys.argv[2], dtype="<i4")
min_pts = int(sys.argv[3])
pc = v["ClusterID"].astype(np.int64)
core = v["NeighborCount"].astype(np.int64) + 1 >= min_pts
noise_diff = int(np.count_nonzero((pc < 0) != (ax < 0)))
pairs = np.unique(np.stack([pc[core], ax[core]]), axis=1)
same = len(np.unique(pairs[0])) == pairs.shape[1] == len(np.unique(pairs[1]))
print(f"points {len(pc)}: core {int(core.sum())}, noise pctk {int((pc < 0).sum())} arborx {int((ax < 0).sum())}, "
      f"noise status differs at {noise_diff}; core partition {'identical' if same else 'DIFFERS'} "
      f"({len(np.unique(pairs[0]))} pctk clusters with cores, {len(np.unique(pairs[1]))} arborx)")
