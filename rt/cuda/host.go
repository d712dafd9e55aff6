package cuda

import (
	"fmt"
	"unsafe"
)

// HostBuffer is page-locked (pinned) host memory from cuMemHostAlloc: the
// GPU's copy engines read and write it directly, at the bus's full speed
// and asynchronously, where pageable Go memory is copied through the
// driver's own staging buffers first. Free it with FreeHost.
type HostBuffer struct {
	p unsafe.Pointer
	n int
}

// Bytes returns the buffer as a byte slice (memory outside Go's heap,
// valid until FreeHost).
func (h *HostBuffer) Bytes() []byte {
	if h == nil || h.p == nil {
		return nil
	}
	return unsafe.Slice((*byte)(h.p), h.n)
}

// Len returns the buffer's size in bytes.
func (h *HostBuffer) Len() int {
	if h == nil {
		return 0
	}
	return h.n
}

// AllocHost allocates n bytes of pinned host memory.
func (t *Thread) AllocHost(n int) (*HostBuffer, error) {
	if n <= 0 {
		return nil, fmt.Errorf("cuda: AllocHost: %d bytes", n)
	}
	var p unsafe.Pointer
	if err := check("cuMemHostAlloc", drv.cuMemHostAlloc(&p, uint64(n), 0)); err != nil {
		return nil, fmt.Errorf("%w (asked for %d bytes of pinned host memory)", err, n)
	}
	return &HostBuffer{p: p, n: n}, nil
}

// FreeHost releases a buffer from AllocHost; FreeHost(nil) does nothing.
func (t *Thread) FreeHost(h *HostBuffer) error {
	if h == nil || h.p == nil {
		return nil
	}
	err := check("cuMemFreeHost", drv.cuMemFreeHost(h.p))
	h.p, h.n = nil, 0
	return err
}

// CopyDtoHAsync queues a copy of n bytes from device memory src to host
// memory dst on stream s and returns at once; dst is ready once the stream
// (or an event recorded after the copy) has been waited for.
func (t *Thread) CopyDtoHAsync(dst unsafe.Pointer, src DevicePtr, n uint64, s Stream) error {
	if n == 0 {
		return nil
	}
	return check("cuMemcpyDtoHAsync", drv.cuMemcpyDtoHAsync(dst, src, n, s))
}

// NewSyncEvent creates an event without timing, for ordering only (cheaper
// to record and wait for than a timing event).
func (t *Thread) NewSyncEvent() (Event, error) {
	var e Event
	err := check("cuEventCreate", drv.cuEventCreate(&e, eventDisableTiming))
	return e, err
}

// eventDisableTiming is CU_EVENT_DISABLE_TIMING.
const eventDisableTiming = 2

// WaitEvent blocks the host until the work recorded before e has run.
func (t *Thread) WaitEvent(e Event) error {
	return check("cuEventSynchronize", drv.cuEventSynchronize(e))
}
