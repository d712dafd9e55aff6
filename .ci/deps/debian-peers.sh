#!/bin/sh
# The peers pctk's tests compare with, from Debian, run headless:
#   pcl-tools       pcl_outlier_removal, pcl_normal_estimation, pcl_convert_pcd_ascii_binary
#                   (algos/denoise, algos/normals, io/pcd cross-checks)
#   python3-open3d  estimate_normals, remove_*_outlier, cluster_dbscan, PLY reading
#   python3-sklearn DBSCAN, the reference of algos/dbscan (brings python3-scipy,
#                   whose cKDTree is findneighbor's benchmark peer)
#   python3-numpy   the numpy implementation of PDAL's covariance features
#                   (algos/features; open3d brings it too)
# cloudcompare (CloudCompare's command line: io/text's TestCloudCompare, and a
# peer of pctk bench --peers) is not here: it pulls Qt 5 and FFmpeg, and has
# its own script, debian-cloudcompare.sh, which .ci/run runs like this one.
# Python packages are used through Debian's /usr/bin/python3. Idempotent:
# installs only what is missing, and retries while another apt-get holds the
# dpkg lock.
set -eu
need=""
command -v pcl_outlier_removal >/dev/null 2>&1 && command -v pcl_normal_estimation >/dev/null 2>&1 &&
	command -v pcl_convert_pcd_ascii_binary >/dev/null 2>&1 || need="$need pcl-tools"
/usr/bin/python3 -c 'import open3d' >/dev/null 2>&1 || need="$need python3-open3d"
/usr/bin/python3 -c 'import sklearn, scipy' >/dev/null 2>&1 || need="$need python3-sklearn python3-scipy"
/usr/bin/python3 -c 'import numpy' >/dev/null 2>&1 || need="$need python3-numpy"
[ -z "$need" ] && exit 0
# shellcheck disable=SC2086 # $need is a list of package names
exec sh "$(dirname "$0")/../apt-install" debian-peers.sh $need
