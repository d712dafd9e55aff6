#!/usr/bin/env bash
# Refreshes Debian's package lists once, before the other scripts install
# peers (scripts run in name order; this one sorts first).
set -euo pipefail
if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
	apt-get update -qq || echo "apt-get update failed; later installs may use old lists" >&2
fi
