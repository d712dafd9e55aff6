package optix

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"unsafe"

	"github.com/ebitengine/purego"

	"github.com/pctk/pctk/rt/cuda"
)

// LibraryName is the OptiX library the NVIDIA driver installs.
const LibraryName = "libnvoptix.so.1"

// ErrNoOptiX reports that OptiX cannot be used here: no driver library, or
// a driver too old for ABI version ABIVersion.
var ErrNoOptiX = errors.New("optix: no usable OptiX driver library")

var (
	libOnce sync.Once
	libErr  error
	fns     functionTable
)

// Load opens libnvoptix.so.1 and reads its function table of ABIVersion
// (optixQueryFunctionTable), once; later calls return the first outcome.
// Where OptiX cannot be used its error wraps ErrNoOptiX. It starts
// nothing on the GPU: a probe may call it to learn whether OptiX is here.
func Load() error {
	libOnce.Do(func() { libErr = queryTable() })
	return libErr
}

func queryTable() error {
	h, err := purego.Dlopen(LibraryName, purego.RTLD_NOW|purego.RTLD_LOCAL)
	if err != nil {
		return fmt.Errorf("%w: %v", ErrNoOptiX, err)
	}
	q, err := purego.Dlsym(h, "optixQueryFunctionTable")
	if err != nil {
		return fmt.Errorf("%w: %s has no optixQueryFunctionTable: %v", ErrNoOptiX, LibraryName, err)
	}
	r, _, _ := purego.SyscallN(q, uintptr(ABIVersion), 0, 0, 0,
		uintptr(unsafe.Pointer(&fns)), unsafe.Sizeof(fns))
	switch res := Result(int32(r)); res {
	case resSuccess:
		return nil
	case resErrUnsupportedABIVersion:
		return fmt.Errorf("%w: the driver does not offer OptiX ABI %d (OptiX 7.5); it needs driver R515 or newer", ErrNoOptiX, ABIVersion)
	case resErrFunctionTableSize:
		return fmt.Errorf("%w: the driver refused the ABI %d function table size %d", ErrNoOptiX, ABIVersion, unsafe.Sizeof(fns))
	default:
		return fmt.Errorf("%w: optixQueryFunctionTable(%d): OptixResult %d", ErrNoOptiX, ABIVersion, res)
	}
}

// Error is a failed OptiX call.
type Error struct {
	// Op is the OptiX function ("optixAccelBuild").
	Op string
	// Code is the OptixResult.
	Code Result
	// Name is optixGetErrorName's name for Code.
	Name string
	// Log is the compiler or linker log, when the call has one.
	Log string
}

func (e *Error) Error() string {
	s := fmt.Sprintf("optix: %s: %s (%d)", e.Op, e.Name, int32(e.Code))
	if e.Log != "" {
		s += "\n" + e.Log
	}
	return s
}

// call runs the OptiX entry point fn and turns its OptixResult into an
// *Error naming op. Pointers passed as uintptr(unsafe.Pointer(x)) in the call
// expression stay alive for the call (SyscallN is go:uintptrescapes).
//
//go:uintptrescapes
func call(op string, fn uintptr, args ...uintptr) error {
	if fn == 0 {
		return fmt.Errorf("optix: %s: not in the function table", op)
	}
	r, _, _ := purego.SyscallN(fn, args...)
	if res := Result(int32(r)); res != resSuccess {
		return &Error{Op: op, Code: res, Name: errorName(res)}
	}
	return nil
}

// errorName asks the library for the name of an OptixResult.
func errorName(r Result) string {
	if fns.GetErrorName == 0 {
		return "OptixResult"
	}
	p, _, _ := purego.SyscallN(fns.GetErrorName, uintptr(r))
	return cuda.CString(p)
}

// cstr returns s as a NUL-terminated byte slice for C.
func cstr(s string) []byte { return append([]byte(s), 0) }

// logText returns the text of a log buffer up to its NUL.
func logText(b []byte) string {
	for i, c := range b {
		if c == 0 {
			return string(b[:i])
		}
	}
	return string(b)
}

// pin pins v (which makes it a heap object that neither moves nor dies while
// pn holds it) and returns its address, for pointers that C reads from
// inside structs rather than from call arguments.
func pin[T any](pn *runtime.Pinner, v *T) uintptr {
	pn.Pin(v)
	return uintptr(unsafe.Pointer(v))
}
