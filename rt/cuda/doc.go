// Package cuda is pctk's GPU runtime: a thin layer over the NVIDIA CUDA
// driver API (libcuda.so.1) reached through github.com/ebitengine/purego, so
// that a CGO_ENABLED=0 binary uses a GPU wherever a driver is installed and
// needs neither cgo nor the CUDA toolkit to build or run.
//
// The library is opened lazily, on the first call that needs it; where it
// cannot be opened every entry point returns an error wrapping ErrNoDriver,
// so callers (and tests) can fall back or skip.
//
// The driver binds a CUDA context to an OS thread. A Context therefore owns
// one goroutine locked to its OS thread (runtime.LockOSThread) with the
// context current, and every driver call of that context runs there:
// Context.Do hands it a function that receives a *Thread, whose methods are
// the driver operations (memory, copies, streams, events, modules, kernel
// launches). A *Thread is valid only inside the Do call that passed it. Group
// the calls of one job into one Do: each Do is a hand-over between threads.
//
// Every CUresult is checked; failures are *Error values carrying the CUDA
// error name and description (cuGetErrorName, cuGetErrorString). An
// out-of-memory failure matches ErrOutOfMemory with errors.Is, so callers
// can retry with smaller batches.
//
// Device code is PTX produced from pctk's own .cu sources by
// scripts/build-ptx.sh; SourceHash and PTXSourceHash let tests verify that
// committed PTX matches its source (see docs/gpu.md).
package cuda
