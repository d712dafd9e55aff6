// Package ground classifies ground points (ASPRS class 2) as PDAL's ground
// filters SMRF, PMF and CSF do, on the float32 local coordinates of a cloud and its
// per-point attributes (Attrs), leaving the classes of the points it does
// not classify as they are.
//
// SMRF is PDAL 2.9.2's filters.smrf (filters/SMRFilter.cpp, SMRFilter::run
// and its helpers; T. J. Pingel, K. C. Clarke and W. A. McBride, "An
// improved simple morphological filter for the terrain classification of
// airborne LIDAR data", ISPRS J. Photogramm. Remote Sens. 77, 2013): the
// selection of the points (Segmentation::segmentReturns, the ignore ranges
// as classes), the minimum surface (createZImin), the filling of empty
// cells by the mean of the 8 nearest filled cells (knnfill), the low
// outlier and object masks (progressiveFilter with PDAL's
// math::erodeDiamond and math::dilateDiamond), the net cut (createNetMask,
// createZInet), the provisional DEM (createZIpro) and the slope-dependent
// threshold (classifyGround with math::gradX and gradY). The neighbours of
// an empty cell are found on the raster, not by findneighbor: they are
// cell centres at float64 grid positions, and PDAL's own tie order needs
// its k-d tree (nanoflann 1.3.1 as pdal/private/KDImpl.hpp configures it,
// rebuilt in kdtree.go) with PDALFrame.
//
// PMF is PDAL's filters.pmf (filters/PMFFilter.cpp, PMFFilter::run and
// processGround; K. Zhang et al., IEEE TGRS 41(4), 2003) and CSF its
// filters.csf (filters/CSFilter.cpp and the CSF library PDAL vendors in
// filters/private/csf, github.com/jianboqi/CSF; W. Zhang et al., Remote
// Sensing 8(6), 2016). All three give PDAL's classes on the whole cloud
// when given its absolute coordinates (Pos, and PDALFrame for SMRF and
// PMF); SMRF and PMF also give each point a finite Reach for tiles, CSF
// cannot (its cloth is one Gauss-Seidel system).
//
// docs/ground.md gives the options, what a tile's halo must hold (Reach)
// and where pctk differs from PDAL.
package ground
