package cpu

// WithoutAVX512 turns the AVX-512 kernels off until the returned function
// is called, so that the external tests can run the Go loops on a CPU that
// has AVX-512 too. Tests that use it must not run in parallel.
func WithoutAVX512() (restore func()) {
	was := hasAVX512
	hasAVX512 = false
	return func() { hasAVX512 = was }
}
