#!/bin/sh
# Independent LAS readers for io/las's conformance test: @loaders.gl/las and
# las-reader from npm, at the exact versions pinned in
# io/las/testdata/conformance/package-lock.json, installed into that
# folder's node_modules (git-ignored). Idempotent: does nothing when the
# installed versions already match the lock file. Needs node and npm.
set -eu
dir="$(cd "$(dirname "$0")/../.." && pwd)/io/las/testdata/conformance"
cd "$dir"
if ! command -v npm >/dev/null 2>&1; then
	echo "npm-las.sh: npm not found; install Node.js 20 (apt-get install nodejs npm)" >&2
	exit 1
fi
# npm writes node_modules/.package-lock.json after a complete install; it
# matches the lock file's packages when nothing changed.
if [ -f node_modules/.package-lock.json ] &&
	node -e 'const a=require("./package-lock.json").packages,b=require("./node_modules/.package-lock.json").packages;for(const k in a){if(k&&(!b[k]||b[k].version!==a[k].version))process.exit(1)}' 2>/dev/null; then
	exit 0
fi
for i in 1 2 3; do
	if npm ci --no-audit --no-fund --loglevel=error; then
		exit 0
	fi
	echo "npm-las.sh: npm ci failed, retrying in 10 s" >&2
	sleep 10
done
echo "npm-las.sh: could not install the LAS conformance readers" >&2
exit 1
