#!/bin/sh
# Builds bench (LASzip's C++ as a benchmark peer) from a LASzip source tree:
#   sh build.sh /path/to/LASzip   (a checkout of github.com/LASzip/LASzip)
# then run the benchmark with PCTK_LASZIP_BENCH=$PWD/bench.
set -eu
src=${1:?usage: sh build.sh /path/to/LASzip}
here=$(cd "$(dirname "$0")" && pwd)
files=$(sed -n '/set(LASZIP_SOURCES/,/)/p' "$src/src/CMakeLists.txt" | grep '\.cpp' | sed "s|^ *|$src/src/|")
g++ -O2 -DNDEBUG -DLASZIPDLL_EXPORTS -DUNORDERED -DHAVE_UNORDERED_MAP=1 \
	-I"$src/src" -I"$src/dll" -I"$src/include" -I"$src/include/laszip" \
	$files "$here/bench.cpp" -o "$here/bench"
