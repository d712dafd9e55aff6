package ply

import "testing"

// FuzzDecode decodes arbitrary input; what decodes must encode in every
// variant and decode again to the same cloud.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(allTypes))
	f.Add([]byte(sprintf(binHeader, 2) + string(make([]byte, 24))))
	f.Add([]byte("ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty list short double v\nproperty uchar x\nend_header\n\x00\x01\x3f\xf0\x00\x00\x00\x00\x00\x00\x07"))
	k := codecUnderTest
	k.Format = pcioFormat(f)
	f.Fuzz(func(t *testing.T, data []byte) { k.Fuzz(t, data, variants) })
}
