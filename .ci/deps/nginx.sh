#!/bin/sh
# nginx from Debian: the second real HTTP server of io/remote's tests
# (TestNginx*), which start it themselves on a loopback port with a config
# in a temporary folder; without it they skip (fail under CI=true).
# Idempotent: installs only when nginx is missing.
set -eu
command -v nginx >/dev/null 2>&1 || [ -x /usr/sbin/nginx ] && exit 0
exec sh "$(dirname "$0")/../apt-install" nginx.sh nginx
