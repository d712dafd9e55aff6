package core

import (
	"strings"
	"sync"
)

// Dimension describes a well-known point dimension: its PDAL name, the type
// pctk stores it as, and what it means. Codecs map their own field names onto
// these names so that a conversion between formats keeps every field.
type Dimension struct {
	Name        string
	Type        Type
	Description string
}

// PDAL's names of the dimensions pctk knows. X, Y and Z are stored in the
// Cloud's coordinate slices, never as attributes.
const (
	DimX                 = "X"
	DimY                 = "Y"
	DimZ                 = "Z"
	DimIntensity         = "Intensity"
	DimReturnNumber      = "ReturnNumber"
	DimNumberOfReturns   = "NumberOfReturns"
	DimScanDirectionFlag = "ScanDirectionFlag"
	DimEdgeOfFlightLine  = "EdgeOfFlightLine"
	DimClassification    = "Classification"
	DimSynthetic         = "Synthetic"
	DimKeyPoint          = "KeyPoint"
	DimWithheld          = "Withheld"
	DimOverlap           = "Overlap"
	DimScanAngleRank     = "ScanAngleRank"
	DimScanChannel       = "ScanChannel"
	DimUserData          = "UserData"
	DimPointSourceID     = "PointSourceId"
	DimGpsTime           = "GpsTime"
	DimRed               = "Red"
	DimGreen             = "Green"
	DimBlue              = "Blue"
	DimInfrared          = "Infrared"
	DimAlpha             = "Alpha"
	DimNormalX           = "NormalX"
	DimNormalY           = "NormalY"
	DimNormalZ           = "NormalZ"
	DimCurvature         = "Curvature"
	DimEigenvalue0       = "Eigenvalue0"
	DimEigenvalue1       = "Eigenvalue1"
	DimEigenvalue2       = "Eigenvalue2"
	DimClusterID         = "ClusterID"
	DimNeighborCount     = "NeighborCount"
	DimKnnMeanDistance   = "KnnMeanDistance"
	DimOutlier           = "Outlier"
	DimObjectID          = "ObjectID"
	DimRadialDensity     = "RadialDensity"
	// PDAL's covariance features (filters.covariancefeatures).
	DimLinearity           = "Linearity"
	DimPlanarity           = "Planarity"
	DimScattering          = "Scattering"
	DimVerticality         = "Verticality"
	DimOmnivariance        = "Omnivariance"
	DimAnisotropy          = "Anisotropy"
	DimEigenentropy        = "Eigenentropy"
	DimEigenvalueSum       = "EigenvalueSum"
	DimSurfaceVariation    = "SurfaceVariation"
	DimDemantkeVerticality = "DemantkeVerticality"
	// PDAL's neighbour filters (filters.lof, nndistance, reciprocity,
	// approximatecoplanar, optimalneighborhood).
	DimNNDistance                = "NNDistance"
	DimLocalReachabilityDistance = "LocalReachabilityDistance"
	DimLocalOutlierFactor        = "LocalOutlierFactor"
	DimReciprocity               = "Reciprocity"
	DimCoplanar                  = "Coplanar"
	DimOptimalKNN                = "OptimalKNN"
	DimOptimalRadius             = "OptimalRadius"
	// DimHeightAboveGround is PDAL's HeightAboveGround (filters.hag_nn,
	// filters.hag_delaunay).
	DimHeightAboveGround = "HeightAboveGround"
)

var dimensions = []Dimension{
	{DimIntensity, Uint16, "pulse return magnitude"},
	{DimReturnNumber, Uint8, "pulse return number, 1-based"},
	{DimNumberOfReturns, Uint8, "total returns of the pulse"},
	{DimScanDirectionFlag, Uint8, "scan mirror direction (0 negative, 1 positive)"},
	{DimEdgeOfFlightLine, Uint8, "1 at the end of a scan line"},
	{DimClassification, Uint8, "ASPRS classification code (7 low noise, 18 high noise)"},
	{DimSynthetic, Uint8, "classification flag: created by another technique"},
	{DimKeyPoint, Uint8, "classification flag: model key point"},
	{DimWithheld, Uint8, "classification flag: withheld, treat as deleted"},
	{DimOverlap, Uint8, "classification flag: in flight-line overlap"},
	{DimScanAngleRank, Float32, "scan angle in degrees"},
	{DimScanChannel, Uint8, "scanner channel (LAS formats 6-10)"},
	{DimUserData, Uint8, "user data byte"},
	{DimPointSourceID, Uint16, "source of the point, usually the flight line"},
	{DimGpsTime, Float64, "GPS time of the pulse"},
	{DimRed, Uint16, "red colour channel"},
	{DimGreen, Uint16, "green colour channel"},
	{DimBlue, Uint16, "blue colour channel"},
	{DimInfrared, Uint16, "near-infrared channel"},
	{DimAlpha, Uint8, "alpha channel"},
	{DimNormalX, Float32, "unit normal, X component"},
	{DimNormalY, Float32, "unit normal, Y component"},
	{DimNormalZ, Float32, "unit normal, Z component"},
	{DimCurvature, Float32, "surface variation λ0/(λ0+λ1+λ2)"},
	{DimEigenvalue0, Float32, "smallest eigenvalue of the neighbourhood covariance"},
	{DimEigenvalue1, Float32, "middle eigenvalue of the neighbourhood covariance"},
	{DimEigenvalue2, Float32, "largest eigenvalue of the neighbourhood covariance"},
	{DimClusterID, Int64, "DBSCAN cluster, 0-based; -1 is noise"},
	{DimNeighborCount, Uint32, "number of other points within the search radius"},
	{DimKnnMeanDistance, Float32, "mean distance to the k nearest neighbours"},
	{DimOutlier, Uint8, "1 when an outlier filter flagged the point"},
	{DimObjectID, Int64, "ground-truth object of a synthetic scene, 0-based; -1 is noise"},
	{DimRadialDensity, Float64, "points within a radius, itself included, per unit volume (PDAL)"},
	{DimLinearity, Float64, "covariance feature (λ1-λ2)/λ1: larger in linear regions (PDAL)"},
	{DimPlanarity, Float64, "covariance feature (λ2-λ3)/λ1: larger in planar regions (PDAL)"},
	{DimScattering, Float64, "covariance feature λ3/λ1: larger in scattered 3D regions (PDAL)"},
	{DimVerticality, Float64, "covariance feature: larger for vertical structure (PDAL)"},
	{DimOmnivariance, Float64, "covariance feature: cube root of the eigenvalues' product (PDAL)"},
	{DimAnisotropy, Float64, "covariance feature (λ1-λ3)/λ1 (PDAL)"},
	{DimEigenentropy, Float64, "covariance feature -Σλ ln λ: larger in disordered regions (PDAL)"},
	{DimEigenvalueSum, Float64, "sum of the covariance's eigenvalues (PDAL)"},
	{DimSurfaceVariation, Float64, "covariance feature λ3/Σλ: larger where the surface varies (PDAL)"},
	{DimDemantkeVerticality, Float64, "covariance feature 1-|v3·z|: larger for vertical structure (PDAL)"},
	{DimNNDistance, Float64, "distance to the k-th nearest neighbour, or the mean to the k (PDAL)"},
	{DimLocalReachabilityDistance, Float64, "LOF's local reachability density (PDAL's name)"},
	{DimLocalOutlierFactor, Float64, "local outlier factor: about 1 inside, larger for outliers (PDAL)"},
	{DimReciprocity, Float64, "per cent of the k nearest that lack the point among theirs (PDAL)"},
	{DimCoplanar, Uint8, "1 when the k-neighbourhood's eigenvalues say coplanar (PDAL)"},
	{DimOptimalKNN, Uint64, "k of least eigenentropy between min_k and max_k (PDAL)"},
	{DimOptimalRadius, Float64, "distance to the OptimalKNN-th nearest neighbour (PDAL)"},
	{DimHeightAboveGround, Float64, "Z above the ground interpolated from ground points (PDAL)"},
}

// dimMu guards dimensions, which stages extend as they register.
var dimMu sync.RWMutex

// RegisterDimension adds d to the well-known dimensions, as a stage
// declares the dimensions it writes (PDAL's addDimensions): the name is
// then written with its description everywhere (LAS Extra Bytes). A name
// already known keeps its first registration: stages share dimensions
// (NNDistance), and one may write a known dimension in a wider type than
// the table's (PDAL's filters.eigenvalues writes float64 eigenvalues,
// normals float32 ones); a column's own type is what is written.
func RegisterDimension(d Dimension) {
	dimMu.Lock()
	defer dimMu.Unlock()
	for _, o := range dimensions {
		if o.Name == d.Name {
			return
		}
	}
	dimensions = append(dimensions, d)
}

// LookupDimension returns the well-known dimension named name (case-sensitive,
// PDAL spelling) and whether it exists.
func LookupDimension(name string) (Dimension, bool) {
	return lookupDimension(func(d string) bool { return d == name })
}

// LookupDimensionFold is LookupDimension without regard to case, as
// PDAL's layouts find dimension names in pipelines ("classification").
func LookupDimensionFold(name string) (Dimension, bool) {
	return lookupDimension(func(d string) bool { return strings.EqualFold(d, name) })
}

func lookupDimension(match func(string) bool) (Dimension, bool) {
	dimMu.RLock()
	defer dimMu.RUnlock()
	for _, d := range dimensions {
		if match(d.Name) {
			return d, true
		}
	}
	return Dimension{}, false
}
