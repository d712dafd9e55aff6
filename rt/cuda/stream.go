package cuda

// Stream is a CUDA stream (CUstream); 0 is the legacy default stream.
type Stream uintptr

// Event is a CUDA event (CUevent), used to time device work.
type Event uintptr

// streamNonBlocking is CU_STREAM_NON_BLOCKING: the stream does not
// synchronise with the legacy default stream.
const streamNonBlocking = 1

// NewStream creates a non-blocking stream.
func (t *Thread) NewStream() (Stream, error) {
	var s Stream
	err := check("cuStreamCreate", drv.cuStreamCreate(&s, streamNonBlocking))
	return s, err
}

// DestroyStream destroys s after its queued work completes.
func (t *Thread) DestroyStream(s Stream) error {
	if s == 0 {
		return nil
	}
	return check("cuStreamDestroy", drv.cuStreamDestroy(s))
}

// StreamSync waits for all work queued on s; it reports errors of that
// work, such as a kernel's illegal address.
func (t *Thread) StreamSync(s Stream) error {
	return check("cuStreamSynchronize", drv.cuStreamSynchronize(s))
}

// NewEvent creates an event that records timing.
func (t *Thread) NewEvent() (Event, error) {
	var e Event
	err := check("cuEventCreate", drv.cuEventCreate(&e, 0))
	return e, err
}

// DestroyEvent destroys e.
func (t *Thread) DestroyEvent(e Event) error {
	if e == 0 {
		return nil
	}
	return check("cuEventDestroy", drv.cuEventDestroy(e))
}

// Record queues e on stream s.
func (t *Thread) Record(e Event, s Stream) error {
	return check("cuEventRecord", drv.cuEventRecord(e, s))
}

// Elapsed waits for end and returns the milliseconds between start and
// end, both recorded earlier.
func (t *Thread) Elapsed(start, end Event) (float32, error) {
	if err := check("cuEventSynchronize", drv.cuEventSynchronize(end)); err != nil {
		return 0, err
	}
	var ms float32
	err := check("cuEventElapsedTime", drv.cuEventElapsedTime(&ms, start, end))
	return ms, err
}
