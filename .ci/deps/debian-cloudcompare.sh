#!/bin/sh
# CloudCompare's command line, run headless (QT_QPA_PLATFORM=offscreen): the
# writer of the ASCII clouds io/text's tests read (TestCloudCompare). numpy,
# for TestNumpySavetxt, comes with python3-open3d (debian-peers.sh).
# Idempotent: installs only what is missing, and retries while another
# apt-get holds the dpkg lock.
set -eu
command -v CloudCompare >/dev/null 2>&1 && exit 0
exec sh "$(dirname "$0")/../apt-install" debian-cloudcompare.sh cloudcompare
