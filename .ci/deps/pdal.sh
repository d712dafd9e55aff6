#!/bin/sh
# The Debian runtime of the shared PDAL 2.9.2 build (../shared/anchors/pdal),
# the side-by-side peer of pctk's PDAL stages (internal/peers PDALPipeline).
# Runs the build's own deps.sh when the build is there and cannot start yet;
# without ../shared (a user's clone) there is nothing to install.
set -eu
run="$(dirname "$0")/../../../shared/anchors/pdal/run"
[ -x "$run" ] || { echo "pdal.sh: no ../shared/anchors/pdal; PDAL tests will skip"; exit 0; }
"$run" --version >/dev/null 2>&1 && exit 0
exec sh "$(dirname "$run")/deps.sh"
