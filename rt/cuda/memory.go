package cuda

import (
	"errors"
	"fmt"
	"unsafe"
)

// DevicePtr is a device memory address (CUdeviceptr).
type DevicePtr uintptr

// Add returns p advanced by off bytes.
func (p DevicePtr) Add(off uint64) DevicePtr { return p + DevicePtr(off) }

// MemInfo returns the free and total device memory in bytes.
func (t *Thread) MemInfo() (free, total uint64, err error) {
	err = check("cuMemGetInfo", drv.cuMemGetInfo(&free, &total))
	return free, total, err
}

// Alloc allocates bytes of device memory, reusing a block of that size
// that Free kept (see blockCache). A failure for want of memory, also after
// the kept blocks were released, matches ErrOutOfMemory. Zero bytes
// allocate nothing and return 0.
func (t *Thread) Alloc(bytes uint64) (DevicePtr, error) {
	if bytes == 0 {
		return 0, nil
	}
	c := &t.ctx.cache
	if p, ok := c.take(bytes); ok {
		// The block's last user may still have work queued on another
		// stream; wait for it, as cuMemFree would have.
		if c.unsynced {
			if err := t.Synchronize(); err != nil {
				return 0, err
			}
			c.unsynced = false
		}
		return p, nil
	}
	var p DevicePtr
	err := check("cuMemAlloc", drv.cuMemAlloc(&p, bytes))
	if errors.Is(err, ErrOutOfMemory) && c.bytes > 0 {
		c.release()
		err = check("cuMemAlloc", drv.cuMemAlloc(&p, bytes))
	}
	if err != nil {
		return 0, fmt.Errorf("%w (asked for %d bytes)", err, bytes)
	}
	c.record(p, bytes)
	return p, nil
}

// Free releases memory from Alloc, or keeps it for a later Alloc of the
// same size; Free(0) does nothing.
func (t *Thread) Free(p DevicePtr) error {
	if p == 0 {
		return nil
	}
	if t.ctx.cache.keep(p, t.ctx.dev.TotalMem) {
		return nil
	}
	return check("cuMemFree", drv.cuMemFree(p))
}

// blockCache keeps device blocks that Free released, by size, for Alloc to
// hand out again: a cuMemAlloc and cuMemFree pair cost 72-162 µs on the
// H200 (BenchmarkAllocFree, 4-64 MiB), and an index and its queries ask
// for several blocks (ClusterCores alone six), every tile of a tiled run
// again. It keeps at most an eighth of the device's memory;
// Alloc releases it all and retries when the device runs out. It is used
// from the context's locked thread only.
type blockCache struct {
	blocks map[uint64][]DevicePtr // free blocks by size
	size   map[DevicePtr]uint64   // the size of every block Alloc made
	bytes  uint64                 // bytes in blocks
	// unsynced is set when a block was kept since the last synchronisation.
	unsynced bool
}

func (c *blockCache) take(bytes uint64) (DevicePtr, bool) {
	free := c.blocks[bytes]
	if len(free) == 0 {
		return 0, false
	}
	p := free[len(free)-1]
	c.blocks[bytes] = free[:len(free)-1]
	c.bytes -= bytes
	return p, true
}

// record notes the size of a block Alloc made, so that Free can keep it.
func (c *blockCache) record(p DevicePtr, bytes uint64) {
	if c.size == nil {
		c.size = map[DevicePtr]uint64{}
		c.blocks = map[uint64][]DevicePtr{}
	}
	c.size[p] = bytes
}

func (c *blockCache) keep(p DevicePtr, total uint64) bool {
	bytes, ok := c.size[p]
	if !ok || c.bytes+bytes > total/8 {
		if ok {
			delete(c.size, p)
		}
		return false
	}
	c.blocks[bytes] = append(c.blocks[bytes], p)
	c.bytes += bytes
	c.unsynced = true
	return true
}

// release frees every kept block.
func (c *blockCache) release() {
	for bytes, free := range c.blocks {
		for _, p := range free {
			drv.cuMemFree(p)
			delete(c.size, p)
		}
		delete(c.blocks, bytes)
	}
	c.bytes = 0
}

// CopyHtoD queues a copy of n bytes from host memory src to dst on stream
// s. From pageable memory the driver stages the bytes before it returns, so
// src may be reused at once; from pinned memory (HostBuffer) the copy runs
// asynchronously and src must stay unchanged until it has run. src must not
// be nil when n > 0.
func (t *Thread) CopyHtoD(dst DevicePtr, src unsafe.Pointer, n uint64, s Stream) error {
	if n == 0 {
		return nil
	}
	return check("cuMemcpyHtoDAsync", drv.cuMemcpyHtoDAsync(dst, src, n, s))
}

// CopyDtoH copies n bytes from device memory src to host memory dst on
// stream s and waits for the stream, so dst is ready when it returns.
func (t *Thread) CopyDtoH(dst unsafe.Pointer, src DevicePtr, n uint64, s Stream) error {
	if n == 0 {
		return nil
	}
	if err := t.CopyDtoHAsync(dst, src, n, s); err != nil {
		return err
	}
	return t.StreamSync(s)
}

// CopyDtoD queues a device-to-device copy of n bytes on stream s.
func (t *Thread) CopyDtoD(dst, src DevicePtr, n uint64, s Stream) error {
	if n == 0 {
		return nil
	}
	return check("cuMemcpyDtoDAsync", drv.cuMemcpyDtoDAsync(dst, src, n, s))
}

// Memset8 queues setting n bytes at dst to v on stream s.
func (t *Thread) Memset8(dst DevicePtr, v uint8, n uint64, s Stream) error {
	if n == 0 {
		return nil
	}
	return check("cuMemsetD8Async", drv.cuMemsetD8Async(dst, v, n, s))
}

// Memset32 queues setting n 32-bit words at dst to v on stream s.
func (t *Thread) Memset32(dst DevicePtr, v uint32, n uint64, s Stream) error {
	if n == 0 {
		return nil
	}
	return check("cuMemsetD32Async", drv.cuMemsetD32Async(dst, v, n, s))
}

// Upload queues a copy of the slice src to dst on stream s.
func Upload[T any](t *Thread, dst DevicePtr, src []T, s Stream) error {
	if len(src) == 0 {
		return nil
	}
	return t.CopyHtoD(dst, unsafe.Pointer(&src[0]), uint64(len(src))*uint64(unsafe.Sizeof(src[0])), s)
}

// UploadNew allocates room for src in a, queues the copy of src there on
// stream s and returns the device pointer.
func UploadNew[T any](t *Thread, a *Allocs, src []T, s Stream) (DevicePtr, error) {
	var elem T
	d, err := a.Alloc(t, uint64(len(src))*uint64(unsafe.Sizeof(elem)))
	if err != nil {
		return 0, err
	}
	return d, Upload(t, d, src, s)
}

// Download copies len(dst) elements from src into dst and waits for them.
func Download[T any](t *Thread, dst []T, src DevicePtr, s Stream) error {
	if len(dst) == 0 {
		return nil
	}
	return t.CopyDtoH(unsafe.Pointer(&dst[0]), src, uint64(len(dst))*uint64(unsafe.Sizeof(dst[0])), s)
}

// Allocs tracks device allocations so that a job can free all of them on
// every return path: defer a.Free(t).
type Allocs struct {
	ptrs []DevicePtr
}

// Alloc allocates bytes and remembers the pointer.
func (a *Allocs) Alloc(t *Thread, bytes uint64) (DevicePtr, error) {
	p, err := t.Alloc(bytes)
	if err == nil && p != 0 {
		a.ptrs = append(a.ptrs, p)
	}
	return p, err
}

// Free releases every remembered allocation and returns the first error.
func (a *Allocs) Free(t *Thread) error {
	var first error
	for _, p := range a.ptrs {
		if err := t.Free(p); err != nil && first == nil {
			first = err
		}
	}
	a.ptrs = a.ptrs[:0]
	return first
}
