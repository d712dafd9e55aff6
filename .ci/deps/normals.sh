#!/bin/sh
# Peers of algos/normals' cross-check tests and benchmark: PCL's
# pcl_normal_estimation (pcl-tools) and Open3D's estimate_normals
# (python3-open3d, run with Debian's /usr/bin/python3). Idempotent: installs
# only what is missing, and retries while another apt-get holds the dpkg lock.
set -eu
need=""
command -v pcl_normal_estimation >/dev/null 2>&1 || need="$need pcl-tools"
/usr/bin/python3 -c 'import open3d' >/dev/null 2>&1 || need="$need python3-open3d"
[ -z "$need" ] && exit 0
sudo=""
[ "$(id -u)" -ne 0 ] && sudo="sudo"
export DEBIAN_FRONTEND=noninteractive
for i in 1 2 3 4 5 6 7 8 9 10; do
	if $sudo apt-get install -y -q --no-install-recommends $need || { $sudo apt-get update -q && $sudo apt-get install -y -q --no-install-recommends $need; }; then
		exit 0
	fi
	echo "normals.sh: apt-get failed (dpkg lock?), retrying in 15 s" >&2
	sleep 15
done
echo "normals.sh: could not install$need" >&2
exit 1
