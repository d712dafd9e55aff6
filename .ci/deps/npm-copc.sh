#!/bin/sh
# copc.js (npm copc@0.0.8, built on laz-perf 0.0.7) for io/las/copc's
# conformance test, at the versions pinned in
# io/las/copc/testdata/conformance/package-lock.json, installed into that
# folder's node_modules (git-ignored). Idempotent: does nothing when the
# installed versions already match the lock file. Needs node and npm.
set -eu
dir="$(cd "$(dirname "$0")/../.." && pwd)/io/las/copc/testdata/conformance"
cd "$dir"
if ! command -v npm >/dev/null 2>&1; then
	echo "npm-copc.sh: npm not found; install Node.js 20 (apt-get install nodejs npm)" >&2
	exit 1
fi
if [ -f node_modules/.package-lock.json ] &&
	node -e 'const a=require("./package-lock.json").packages,b=require("./node_modules/.package-lock.json").packages;for(const k in a){if(k&&(!b[k]||b[k].version!==a[k].version))process.exit(1)}' 2>/dev/null; then
	exit 0
fi
for i in 1 2 3; do
	if npm ci --no-audit --no-fund --loglevel=error; then
		exit 0
	fi
	echo "npm-copc.sh: npm ci failed, retrying in 10 s" >&2
	sleep 10
done
echo "npm-copc.sh: could not install copc.js" >&2
exit 1
