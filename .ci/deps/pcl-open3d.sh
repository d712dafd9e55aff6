#!/bin/sh
# Peers of algos/denoise's cross-check tests: PCL's pcl_outlier_removal and
# pcl_convert_pcd_ascii_binary (pcl-tools) and Open3D (python3-open3d, run
# with /usr/bin/python3). Idempotent: installs only what is missing.
set -eu
need=""
command -v pcl_outlier_removal >/dev/null 2>&1 && command -v pcl_convert_pcd_ascii_binary >/dev/null 2>&1 || need="$need pcl-tools"
/usr/bin/python3 -c 'import open3d' >/dev/null 2>&1 || need="$need python3-open3d"
[ -z "$need" ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
# apt may be locked by another install; retry for a while.
for i in 1 2 3 4 5 6 7 8 9 10; do
	if $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends $need; then
		exit 0
	fi
	echo "pcl-open3d.sh: apt-get failed (lock?), retrying in 15 s" >&2
	sleep 15
done
exit 1
