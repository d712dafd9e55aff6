#!/usr/bin/python3
"""Peer side of BenchmarkVsCKDTree: scipy's cKDTree on the same points.

Usage: ckdtree.py POINTS EPS REPEAT
POINTS is raw little-endian float32 x, y, z triples (the file the Go side
reads too). Prints one JSON object: build and query_ball_point
(return_length=True, workers=-1) times in seconds (best of REPEAT), the
sum of the neighbour counts (self excluded, as pctk counts), and the peak
resident memory (VmHWM) over the resident memory before loading, in bytes.
"""
import json
import sys
import time

import numpy as np
from scipy.spatial import cKDTree


def status_bytes(field):
    """VmRSS or VmHWM of this process from /proc, in bytes. Not getrusage:
    Linux carries ru_maxrss over from the forking parent across exec."""
    with open("/proc/self/status") as f:
        for line in f:
            if line.startswith(field + ":"):
                return int(line.split()[1]) * 1024
    return 0


def main():
    path, eps, repeat = sys.argv[1], float(sys.argv[2]), int(sys.argv[3])
    base = status_bytes("VmRSS")
    pts = np.fromfile(path, dtype="<f4").reshape(-1, 3)
    build = counts_t = float("inf")
    peak = 0
    for it in range(repeat):
        t = time.perf_counter()
        tree = cKDTree(pts)
        build = min(build, time.perf_counter() - t)
        t = time.perf_counter()
        counts = tree.query_ball_point(pts, eps, return_length=True, workers=-1)
        counts_t = min(counts_t, time.perf_counter() - t)
        if it == 0:
            peak = status_bytes("VmHWM") - base
        del tree
    json.dump({
        "n": int(pts.shape[0]),
        "build_s": build,
        "counts_s": counts_t,
        "sum": int(counts.sum()) - int(pts.shape[0]),
        "peak_bytes": peak,
        "scipy": __import__("scipy").__version__,
    }, sys.stdout)


main()
