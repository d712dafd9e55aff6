#!/bin/sh
# Runs pctk's cpu backend and scipy's cKDTree side by side on the same
# points and radius (BenchmarkVsCKDTree) and prints the ratios.
# Usage: primitives/findneighbor/cpu/bench/compare.sh [SIZE]   (SIZE 1M or 10M)
set -eu
cd "$(dirname "$0")/.."
exec go test -run '^$' -bench "VsCKDTree/N=${1:-1M}/" -benchtime 1x -timeout 60m .
