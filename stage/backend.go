package stage

import (
	"strings"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// BackendOption is the --backend flag shared by every neighbour-based command.
var BackendOption = &Option{Kind: String,
	Name:    "backend",
	Usage:   "neighbour-search backend: auto (a GPU where usable, but cpu for normals and statistical removal), cpu, brute, cuda, optix, optix-sphere",
	EnvVars: []string{findneighbor.EnvBackend},
	Value:   "auto",
}

// WorkersOption is the --workers flag shared by every neighbour-based command.
var WorkersOption = &Option{Kind: Int, Name: "workers", Usage: "CPU threads for the backend (0: all)"}

// DimsOption is the --dims flag of the commands that measure distance in
// either 3D or the XY plane; parseDims checks it.
var DimsOption = &Option{Kind: String, Name: "dims", PDAL: "dimensions", Usage: "distance in xyz, or xy (ignore Z, for 2D and geospatial data)", Value: "xyz"}

// parseDims checks --dims: it returns "xy" or "xyz", and whether distance
// ignores Z.
func parseDims(c Values) (dims string, flat bool, err error) {
	switch dims = strings.ToLower(c.String("dims")); dims {
	case "xy":
		return dims, true, nil
	case "xyz":
		return dims, false, nil
	}
	return "", false, Usagef("--dims: want xy or xyz, got %q", c.String("dims"))
}

// backend resolves --backend; a backend named explicitly that cannot run
// here is an error, never a silent fallback. cpuWork says the command is
// one the cpu backend does faster than the GPU backends measured so far
// (PCA normals, any neighbourhood; statistical outlier removal), for which
// "auto" takes the cpu backend (backendName). An unknown name is a usage
// error at once (checkBackend); the probe and the device's start-up run in
// the background (startBackend) until the caller resolves the result.
func backend(c Values, cpuWork bool) (*pendingBackend, error) {
	if err := CheckBackend("--backend", c.String("backend")); err != nil {
		return nil, err
	}
	return startBackend(BackendName(c.String("backend"), cpuWork)), nil
}

// BackendName returns the backend to get for --backend name: the cpu
// backend for "auto" (or none) when the work is cpuWork, name otherwise.
// Measured on an H200 with 16 CPU cores (docs/benchmarks.md): normals of
// 1M and 4M points, KNN 30, radius and hybrid, cpu faster than cuda in
// every case, 1.1-5×; statistical removal of 1M points cpu 0.23 s, cuda
// 0.58 s. The GPU
// backends win on counts, lists and clustering (DBSCAN, radius removal,
// neighbours: Counts of 16M points 190× the cpu backend), which "auto"
// leaves to them.
func BackendName(name string, cpuWork bool) string {
	if cpuWork && (name == "" || strings.EqualFold(name, "auto")) {
		return "cpu"
	}
	return name
}

// CheckBackend returns a usage error naming flag when name is not a
// backend pctk knows ("auto" and "" included, in any case): a name no build
// has is a mistake in the call, while a known backend that cannot run here
// (cuda without a GPU) is an error of the machine, found by Get.
func CheckBackend(flag, name string) error {
	name = strings.ToLower(strings.TrimSpace(name))
	if name == "" || name == "auto" {
		return nil
	}
	var names []string
	for _, b := range findneighbor.Backends() {
		if b.Name() == name {
			return nil
		}
		names = append(names, b.Name())
	}
	return Usagef("%s: unknown backend %q (known: auto, %s)", flag, name, strings.Join(names, ", "))
}
