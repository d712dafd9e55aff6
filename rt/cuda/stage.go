package cuda

import (
	"runtime"
	"sync"
	"unsafe"
)

// Stager moves large host slices to and from the device through two pinned
// host buffers used in turn: while the copy engine moves one chunk over the
// bus, host threads copy the next one between the caller's (pageable) slice
// and the other buffer. Pageable copies go through the driver's own staging
// one thread at a time; this pipeline runs the bus at pinned speed and the
// host side on several cores. A Stager belongs to one Context and is used
// only on its thread (inside Do).
type Stager struct {
	buf   [2]*HostBuffer
	ready [2]Event // recorded after the last copy that used buf[i]
	busy  [2]bool
}

// DefaultStageChunk is the size of each of a Stager's two pinned buffers.
const DefaultStageChunk = 16 << 20

// NewStager allocates the two pinned buffers of chunk bytes each.
func (t *Thread) NewStager(chunk int) (*Stager, error) {
	st := &Stager{}
	for i := range st.buf {
		b, err := t.AllocHost(chunk)
		if err != nil {
			st.Free(t)
			return nil, err
		}
		st.buf[i] = b
		if st.ready[i], err = t.NewSyncEvent(); err != nil {
			st.Free(t)
			return nil, err
		}
	}
	return st, nil
}

// Free releases the pinned buffers and events; it waits for copies in
// flight first.
func (st *Stager) Free(t *Thread) error {
	var first error
	for i := range st.buf {
		if st.busy[i] {
			if err := t.WaitEvent(st.ready[i]); err != nil && first == nil {
				first = err
			}
			st.busy[i] = false
		}
		if err := t.FreeHost(st.buf[i]); err != nil && first == nil {
			first = err
		}
		st.buf[i] = nil
		if err := t.DestroyEvent(st.ready[i]); err != nil && first == nil {
			first = err
		}
		st.ready[i] = 0
	}
	return first
}

// chunk returns the size of each buffer.
func (st *Stager) chunk() int { return st.buf[0].Len() }

// claim waits until buffer i is free and returns it.
func (st *Stager) claim(t *Thread, i int) ([]byte, error) {
	if st.busy[i] {
		if err := t.WaitEvent(st.ready[i]); err != nil {
			return nil, err
		}
		st.busy[i] = false
	}
	return st.buf[i].Bytes(), nil
}

// release records that buffer i is in use by the work queued so far on s.
func (st *Stager) release(t *Thread, i int, s Stream) error {
	if err := t.Record(st.ready[i], s); err != nil {
		return err
	}
	st.busy[i] = true
	return nil
}

// UploadBytes queues the copy of src to dst on stream s. It returns once
// src has been copied into the pinned buffers, so src may be reused at
// once; the last chunks may still be on their way to the device.
func (st *Stager) UploadBytes(t *Thread, dst DevicePtr, src []byte, s Stream) error {
	c := st.chunk()
	for k, off := 0, 0; off < len(src); k, off = k+1, off+c {
		i := k % 2
		b, err := st.claim(t, i)
		if err != nil {
			return err
		}
		n := min(c, len(src)-off)
		parallelCopy(b[:n], src[off:off+n])
		if err := t.CopyHtoD(dst.Add(uint64(off)), unsafe.Pointer(&b[0]), uint64(n), s); err != nil {
			return err
		}
		if err := st.release(t, i, s); err != nil {
			return err
		}
	}
	return nil
}

// DownloadBytes copies len(dst) bytes from src, after the work queued
// before on s, into dst and returns when dst is complete.
func (st *Stager) DownloadBytes(t *Thread, dst []byte, src DevicePtr, s Stream) error {
	c := st.chunk()
	nchunks := (len(dst) + c - 1) / c
	// chunk k lies at dst[off:off+n] and travels through buffer k%2.
	chunk := func(k int) (off, n int, b []byte, err error) {
		off = k * c
		b, err = st.claim(t, k%2)
		return off, min(c, len(dst)-off), b, err
	}
	queue := func(k int) error {
		off, n, b, err := chunk(k)
		if err != nil {
			return err
		}
		if err := t.CopyDtoHAsync(unsafe.Pointer(&b[0]), src.Add(uint64(off)), uint64(n), s); err != nil {
			return err
		}
		return st.release(t, k%2, s)
	}
	for k := range min(2, nchunks) {
		if err := queue(k); err != nil {
			return err
		}
	}
	for k := range nchunks {
		off, n, b, err := chunk(k)
		if err != nil {
			return err
		}
		parallelCopy(dst[off:off+n], b[:n])
		if k+2 < nchunks {
			if err := queue(k + 2); err != nil {
				return err
			}
		}
	}
	return nil
}

// stageMin is the size under which StageUpload and StageDownload copy
// directly: small copies gain nothing from the pipeline.
const stageMin = 1 << 20

// StageUpload queues the copy of src to dst on stream s through st, or
// directly when st is nil or src is small; src may be reused on return.
func StageUpload[T any](t *Thread, st *Stager, dst DevicePtr, src []T, s Stream) error {
	b := asBytes(src)
	if st == nil || len(b) < stageMin {
		return Upload(t, dst, src, s)
	}
	return st.UploadBytes(t, dst, b, s)
}

// StageDownload copies len(dst) elements from src into dst through st (or
// directly when st is nil or dst is small) and waits for them.
func StageDownload[T any](t *Thread, st *Stager, dst []T, src DevicePtr, s Stream) error {
	b := asBytes(dst)
	if st == nil || len(b) < stageMin {
		return Download(t, dst, src, s)
	}
	return st.DownloadBytes(t, b, src, s)
}

func asBytes[T any](v []T) []byte {
	if len(v) == 0 {
		return nil
	}
	return unsafe.Slice((*byte)(unsafe.Pointer(&v[0])), len(v)*int(unsafe.Sizeof(v[0])))
}

// copyGrain is the smallest piece one goroutine of parallelCopy moves.
const copyGrain = 1 << 20

// parallelCopy copies src into dst (same length) on up to GOMAXPROCS
// goroutines (at most 16), so that
// large copies, and the page faults of fresh destination memory, are not
// bound to one core.
func parallelCopy(dst, src []byte) {
	parts := min(runtime.GOMAXPROCS(0), 16, len(src)/copyGrain)
	if parts < 2 {
		copy(dst, src)
		return
	}
	per := (len(src) + parts - 1) / parts
	var wg sync.WaitGroup
	for lo := 0; lo < len(src); lo += per {
		hi := min(lo+per, len(src))
		wg.Go(func() { copy(dst[lo:hi], src[lo:hi]) })
	}
	wg.Wait()
}
