#!/usr/bin/env bash
# Compiles rt/optix's device programs to PTX. Run from the repository root on a
# machine with the CUDA toolkit (nvcc); no OptiX SDK is needed: the programs
# use only pctk's own rt/optix/device/pctk_optix.h. The first line of the PTX
# records the SHA-256 of the sources, which rt/optix's tests compare with the
# sources in the tree (so a stale PTX fails the tests).
#   scripts/build-optix-ptx.sh [OUTDIR]   (default: rt/optix)
set -euo pipefail
root=$(git rev-parse --show-toplevel 2>/dev/null || pwd)
cd "$root"
out=${1:-rt/optix}
nvcc=${NVCC:-$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)}
src=rt/optix/device
# compute_75: the PTX is JIT-compiled by the driver for any GPU from Turing on.
# No fast-math: the distance test must round exactly as the CPU backend does.
"$nvcc" -ptx -arch=compute_75 -O3 -std=c++17 -I "$src" -o "$out/findneighbor.ptx.tmp" "$src/findneighbor.cu"
hash=$(cat "$src/findneighbor.cu" "$src/pctk_optix.h" | sha256sum | cut -d' ' -f1)
{
  echo "// source-sha256: $hash"
  echo "// (SHA-256 of rt/optix/device/findneighbor.cu followed by pctk_optix.h, as rt/cuda.SourceHash computes it)"
  echo "// built by scripts/build-optix-ptx.sh with $("$nvcc" --version | tail -1)"
  cat "$out/findneighbor.ptx.tmp"
} > "$out/findneighbor.ptx"
rm "$out/findneighbor.ptx.tmp"
echo "wrote $out/findneighbor.ptx ($hash)"
