#!/bin/sh
# Peer of io/pcd's cross-check tests: PCL's pcl_convert_pcd_ascii_binary
# (Debian pcl-tools) reads what io/pcd writes and writes what io/pcd reads.
# Idempotent: installs only when missing; retries while dpkg is locked.
set -eu
command -v pcl_convert_pcd_ascii_binary >/dev/null 2>&1 && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
for i in 1 2 3 4 5 6 7 8 9 10; do
	if $sudo apt-get install -y -q --no-install-recommends pcl-tools; then
		exit 0
	fi
	echo "pcd-pcl.sh: apt-get failed (dpkg lock?), retrying in 15 s" >&2
	sleep 15
done
echo "pcd-pcl.sh: could not install pcl-tools" >&2
exit 1
