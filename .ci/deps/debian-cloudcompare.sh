#!/bin/sh
# CloudCompare's command line, run headless (QT_QPA_PLATFORM=offscreen): the
# writer of the ASCII clouds io/text's tests read (TestCloudCompare). numpy,
# for TestNumpySavetxt, comes with python3-open3d (debian-peers.sh).
# Idempotent: installs only what is missing, and retries while another
# apt-get holds the dpkg lock.
set -eu
command -v CloudCompare >/dev/null 2>&1 && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
for i in 1 2 3 4 5 6 7 8 9 10; do
	if $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends cloudcompare; then
		exit 0
	fi
	echo "debian-cloudcompare.sh: apt-get failed (dpkg lock?), retrying in 15 s" >&2
	sleep 15
done
echo "debian-cloudcompare.sh: could not install cloudcompare" >&2
exit 1
