#!/bin/sh
# Peers of the codecs' cross-check tests: PCL's pcl_convert_pcd_ascii_binary
# (Debian pcl-tools) reads what io/pcd writes and writes what io/pcd reads;
# Open3D (python3-open3d, run with /usr/bin/python3) reads what io/ply
# writes. Idempotent: installs only what is missing; retries while dpkg is
# locked.
set -eu
need=""
command -v pcl_convert_pcd_ascii_binary >/dev/null 2>&1 || need="$need pcl-tools"
/usr/bin/python3 -c 'import open3d' >/dev/null 2>&1 || need="$need python3-open3d"
[ -z "$need" ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
for i in 1 2 3 4 5 6 7 8 9 10; do
	if $sudo apt-get install -y -q --no-install-recommends $need; then
		exit 0
	fi
	echo "pcd-pcl.sh: apt-get failed (dpkg lock?), retrying in 15 s" >&2
	sleep 15
done
echo "pcd-pcl.sh: could not install$need" >&2
exit 1
