package cuda

import (
	"errors"
	"fmt"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"
)

// ErrNoDriver reports that the CUDA driver library could not be loaded or
// initialised: no NVIDIA driver is installed, or it is too old.
var ErrNoDriver = errors.New("cuda: no usable CUDA driver")

// ErrOutOfMemory matches (with errors.Is) a driver error that reports
// exhausted device memory (CUDA_ERROR_OUT_OF_MEMORY).
var ErrOutOfMemory = errors.New("cuda: out of device memory")

// LibraryName is the driver library opened by Load.
const LibraryName = "libcuda.so.1"

// Result is a CUresult, the status every driver call returns.
type Result int32

// Result values pctk tests for; the driver defines many more.
const (
	Success           Result = 0   // CUDA_SUCCESS
	ErrInvalidValue   Result = 1   // CUDA_ERROR_INVALID_VALUE
	ErrOutOfMem       Result = 2   // CUDA_ERROR_OUT_OF_MEMORY
	ErrNotInit        Result = 3   // CUDA_ERROR_NOT_INITIALIZED
	ErrNoDevice       Result = 100 // CUDA_ERROR_NO_DEVICE
	ErrInvalidPTX     Result = 218 // CUDA_ERROR_INVALID_PTX
	ErrUnsupportedPTX Result = 222 // CUDA_ERROR_UNSUPPORTED_PTX_VERSION
)

// Error is a failed driver call.
type Error struct {
	// Op names the driver function that failed ("cuMemAlloc").
	Op string
	// Code is the CUresult it returned.
	Code Result
	// Name and Desc come from cuGetErrorName and cuGetErrorString; they are
	// empty when the driver could not describe the code.
	Name, Desc string
	// Log holds extra text, such as the JIT compiler's error log.
	Log string
}

// Error formats the failure as "cuda: OP: NAME (DESC)".
func (e *Error) Error() string {
	name := e.Name
	if name == "" {
		name = fmt.Sprintf("CUresult %d", int(e.Code))
	}
	s := "cuda: " + e.Op + ": " + name
	if e.Desc != "" {
		s += " (" + e.Desc + ")"
	}
	if e.Log != "" {
		s += ": " + e.Log
	}
	return s
}

// Is reports whether target is ErrOutOfMemory and e is an out-of-memory
// failure, or target is ErrNoDriver and e says the driver has no device or
// is not initialised.
func (e *Error) Is(target error) bool {
	switch target {
	case ErrOutOfMemory:
		return e.Code == ErrOutOfMem
	case ErrNoDriver:
		return e.Code == ErrNoDevice || e.Code == ErrNotInit
	}
	return false
}

// api holds the driver entry points, bound once by load.
type api struct {
	cuInit                    func(flags uint32) Result
	cuDriverGetVersion        func(v *int32) Result
	cuGetErrorName            func(r Result, s *uintptr) Result
	cuGetErrorString          func(r Result, s *uintptr) Result
	cuDeviceGetCount          func(n *int32) Result
	cuDeviceGet               func(dev *int32, ordinal int32) Result
	cuDeviceGetName           func(name *byte, n int32, dev int32) Result
	cuDeviceTotalMem          func(bytes *uint64, dev int32) Result
	cuDeviceGetAttribute      func(v *int32, attr int32, dev int32) Result
	cuDevicePrimaryCtxRetain  func(ctx *uintptr, dev int32) Result
	cuDevicePrimaryCtxRelease func(dev int32) Result
	cuCtxSetCurrent           func(ctx uintptr) Result
	cuCtxSynchronize          func() Result
	cuMemGetInfo              func(free, total *uint64) Result
	cuMemAlloc                func(p *DevicePtr, bytes uint64) Result
	cuMemFree                 func(p DevicePtr) Result
	cuMemHostAlloc            func(p *unsafe.Pointer, bytes uint64, flags uint32) Result
	cuMemFreeHost             func(p unsafe.Pointer) Result
	cuMemcpyHtoDAsync         func(dst DevicePtr, src unsafe.Pointer, n uint64, s Stream) Result
	cuMemcpyDtoHAsync         func(dst unsafe.Pointer, src DevicePtr, n uint64, s Stream) Result
	cuMemcpyDtoDAsync         func(dst, src DevicePtr, n uint64, s Stream) Result
	cuMemsetD8Async           func(dst DevicePtr, v uint8, n uint64, s Stream) Result
	cuMemsetD32Async          func(dst DevicePtr, v uint32, n uint64, s Stream) Result
	cuStreamCreate            func(s *Stream, flags uint32) Result
	cuStreamDestroy           func(s Stream) Result
	cuStreamSynchronize       func(s Stream) Result
	cuEventCreate             func(e *Event, flags uint32) Result
	cuEventDestroy            func(e Event) Result
	cuEventRecord             func(e Event, s Stream) Result
	cuEventSynchronize        func(e Event) Result
	cuEventElapsedTime        func(ms *float32, start, end Event) Result
	cuModuleLoadDataEx        func(m *Module, image unsafe.Pointer, n uint32, opts *int32, vals *uintptr) Result
	cuModuleUnload            func(m Module) Result
	cuModuleGetFunction       func(f *Function, m Module, name string) Result
	cuLaunchKernel            func(f Function, gx, gy, gz, bx, by, bz, shmem uint32, s Stream, params unsafe.Pointer, extra unsafe.Pointer) Result
}

// symbols lists each entry point with the exported names to try, newest
// ABI first (the driver keeps old names for old binaries).
func (a *api) symbols() []struct {
	fn    any
	names []string
} {
	type sym = struct {
		fn    any
		names []string
	}
	return []sym{
		{&a.cuInit, []string{"cuInit"}},
		{&a.cuDriverGetVersion, []string{"cuDriverGetVersion"}},
		{&a.cuGetErrorName, []string{"cuGetErrorName"}},
		{&a.cuGetErrorString, []string{"cuGetErrorString"}},
		{&a.cuDeviceGetCount, []string{"cuDeviceGetCount"}},
		{&a.cuDeviceGet, []string{"cuDeviceGet"}},
		{&a.cuDeviceGetName, []string{"cuDeviceGetName"}},
		{&a.cuDeviceTotalMem, []string{"cuDeviceTotalMem_v2"}},
		{&a.cuDeviceGetAttribute, []string{"cuDeviceGetAttribute"}},
		{&a.cuDevicePrimaryCtxRetain, []string{"cuDevicePrimaryCtxRetain"}},
		{&a.cuDevicePrimaryCtxRelease, []string{"cuDevicePrimaryCtxRelease_v2", "cuDevicePrimaryCtxRelease"}},
		{&a.cuCtxSetCurrent, []string{"cuCtxSetCurrent"}},
		{&a.cuCtxSynchronize, []string{"cuCtxSynchronize"}},
		{&a.cuMemGetInfo, []string{"cuMemGetInfo_v2"}},
		{&a.cuMemAlloc, []string{"cuMemAlloc_v2"}},
		{&a.cuMemFree, []string{"cuMemFree_v2"}},
		{&a.cuMemHostAlloc, []string{"cuMemHostAlloc"}},
		{&a.cuMemFreeHost, []string{"cuMemFreeHost"}},
		{&a.cuMemcpyHtoDAsync, []string{"cuMemcpyHtoDAsync_v2"}},
		{&a.cuMemcpyDtoHAsync, []string{"cuMemcpyDtoHAsync_v2"}},
		{&a.cuMemcpyDtoDAsync, []string{"cuMemcpyDtoDAsync_v2"}},
		{&a.cuMemsetD8Async, []string{"cuMemsetD8Async"}},
		{&a.cuMemsetD32Async, []string{"cuMemsetD32Async"}},
		{&a.cuStreamCreate, []string{"cuStreamCreate"}},
		{&a.cuStreamDestroy, []string{"cuStreamDestroy_v2"}},
		{&a.cuStreamSynchronize, []string{"cuStreamSynchronize"}},
		{&a.cuEventCreate, []string{"cuEventCreate"}},
		{&a.cuEventDestroy, []string{"cuEventDestroy_v2"}},
		{&a.cuEventRecord, []string{"cuEventRecord"}},
		{&a.cuEventSynchronize, []string{"cuEventSynchronize"}},
		{&a.cuEventElapsedTime, []string{"cuEventElapsedTime_v2", "cuEventElapsedTime"}},
		{&a.cuModuleLoadDataEx, []string{"cuModuleLoadDataEx"}},
		{&a.cuModuleUnload, []string{"cuModuleUnload"}},
		{&a.cuModuleGetFunction, []string{"cuModuleGetFunction"}},
		{&a.cuLaunchKernel, []string{"cuLaunchKernel"}},
	}
}

var (
	loadOnce sync.Once
	loadErr  error
	lib      uintptr
	drv      api
)

// Load opens libcuda.so.1, binds the entry points and calls cuInit. It runs
// once; later calls return the first outcome. A missing or unusable driver
// gives an error wrapping ErrNoDriver.
func Load() error {
	loadOnce.Do(func() { loadErr = load() })
	return loadErr
}

func load() error {
	h, err := purego.Dlopen(LibraryName, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	for _, s := range drv.symbols() {
		var addr uintptr
		for _, n := range s.names {
			if addr, _ = purego.Dlsym(h, n); addr != 0 {
				break
			}
		}
		if addr == 0 {
			return fmt.Errorf("%w: %s lacks %s (driver too old)", ErrNoDriver, LibraryName, s.names[0])
		}
		purego.RegisterFunc(s.fn, addr)
	}
	lib = h
	if err := check("cuInit", drv.cuInit(0)); err != nil {
		return fmt.Errorf("%w: %v", ErrNoDriver, err)
	}
	return nil
}

// check turns a CUresult into nil or an *Error naming op.
func check(op string, r Result) error {
	if r == Success {
		return nil
	}
	e := &Error{Op: op, Code: r}
	if drv.cuGetErrorName != nil {
		var p uintptr
		if drv.cuGetErrorName(r, &p) == Success {
			e.Name = cString(p)
		}
		if drv.cuGetErrorString(r, &p) == Success {
			e.Desc = cString(p)
		}
	}
	return e
}

// cString copies the NUL-terminated C string at p (owned by the driver).
func cString(p uintptr) string {
	if p == 0 {
		return ""
	}
	b := *(**byte)(unsafe.Pointer(&p))
	n := 0
	for *(*byte)(unsafe.Add(unsafe.Pointer(b), n)) != 0 {
		n++
	}
	return string(unsafe.Slice(b, n))
}

// DriverVersion returns the CUDA version the driver supports, as major*1000
// + minor*10 (13000 is CUDA 13.0).
func DriverVersion() (int, error) {
	if err := Load(); err != nil {
		return 0, err
	}
	var v int32
	if err := check("cuDriverGetVersion", drv.cuDriverGetVersion(&v)); err != nil {
		return 0, err
	}
	return int(v), nil
}

// FormatVersion renders a CUDA version number (13000) as "13.0".
func FormatVersion(v int) string {
	return fmt.Sprintf("%d.%d", v/1000, v%1000/10)
}
