//go:build !amd64

package cpu

// WithoutAVX512 does nothing off amd64, where the Go loops always run.
func WithoutAVX512() (restore func()) { return func() {} }
