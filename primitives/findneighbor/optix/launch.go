package optix

// Operation modes of the device programs (MODE_* in findneighbor.cu).
const (
	modeCount  = 0
	modeFill   = 1
	modeKNN    = 2
	modeDBSCAN = 4
)

// launchParams mirrors struct Params of kernels/findneighbor.cu field by
// field; the device code asserts sizeof(Params) == 160 and the tests assert
// unsafe.Sizeof(launchParams{}) == 160. Pointers are device addresses (0 for
// null).
type launchParams struct {
	Handle        uint64
	Pts           uint64
	Orig          uint64
	Q             uint64
	LaunchToQuery uint64
	QOut          uint64
	Counts        uint64
	Offsets       uint64
	Nbr           uint64
	NbrD2         uint64
	KnnIdx        uint64
	KnnD2         uint64
	IsCore        uint64
	Parent        uint64
	Border        uint64
	AABB          uint64
	NQ            uint32
	Mode          int32
	Self          int32
	K             int32
	Eps2          float32
	Radius        float32
	Spheres       int32
	_             int32
}

// launchParamsSize is sizeof(Params) in findneighbor.cu.
const launchParamsSize = 160
