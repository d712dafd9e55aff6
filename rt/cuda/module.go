package cuda

import (
	"bytes"
	"fmt"
	"runtime"
	"unsafe"
)

// Module is a loaded CUDA module (CUmodule).
type Module uintptr

// Function is a kernel of a loaded module (CUfunction).
type Function uintptr

// JIT options of cuModuleLoadDataEx (CUjit_option values).
const (
	jitInfoLogBuffer       = 3
	jitInfoLogBufferBytes  = 4
	jitErrorLogBuffer      = 5
	jitErrorLogBufferBytes = 6
)

// jitLogBytes bounds each JIT log kept. It is a variable so that the log
// buffers, whose addresses the driver receives as integers, are allocated
// on the heap, where they never move.
var jitLogBytes = 16 << 10

// LoadModule loads PTX text (or a cubin) into the context; the driver
// compiles PTX for this GPU. When that fails the error carries the JIT
// compiler's log, which names the offending PTX line.
func (t *Thread) LoadModule(image []byte) (Module, error) {
	if len(image) == 0 {
		return 0, fmt.Errorf("cuda: LoadModule: empty image")
	}
	img := image
	if img[len(img)-1] != 0 { // PTX must be NUL-terminated
		img = append(bytes.Clone(image), 0)
	}
	errLog := make([]byte, jitLogBytes)
	infoLog := make([]byte, jitLogBytes)
	opts := []int32{jitErrorLogBuffer, jitErrorLogBufferBytes, jitInfoLogBuffer, jitInfoLogBufferBytes}
	vals := []uintptr{
		uintptr(unsafe.Pointer(&errLog[0])), uintptr(len(errLog)),
		uintptr(unsafe.Pointer(&infoLog[0])), uintptr(len(infoLog)),
	}
	var m Module
	r := drv.cuModuleLoadDataEx(&m, unsafe.Pointer(&img[0]), uint32(len(opts)), &opts[0], &vals[0])
	runtime.KeepAlive(errLog)
	runtime.KeepAlive(infoLog)
	runtime.KeepAlive(img)
	if err := check("cuModuleLoadDataEx", r); err != nil {
		e := err.(*Error)
		e.Log = logText(errLog)
		if e.Log == "" {
			e.Log = logText(infoLog)
		}
		return 0, e
	}
	return m, nil
}

// logText returns the NUL-terminated text in a JIT log buffer, trimmed.
func logText(b []byte) string {
	if i := bytes.IndexByte(b, 0); i >= 0 {
		b = b[:i]
	}
	return string(bytes.TrimSpace(b))
}

// UnloadModule unloads m.
func (t *Thread) UnloadModule(m Module) error {
	return check("cuModuleUnload", drv.cuModuleUnload(m))
}

// Function looks up the kernel name (its extern "C" symbol) in m.
func (t *Thread) Function(m Module, name string) (Function, error) {
	var f Function
	if err := check("cuModuleGetFunction", drv.cuModuleGetFunction(&f, m, name)); err != nil {
		return 0, fmt.Errorf("%w (kernel %q)", err, name)
	}
	return f, nil
}
