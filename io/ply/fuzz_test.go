package ply

import (
	"bytes"
	"testing"
)

// FuzzDecode decodes arbitrary input; what decodes must encode in every
// variant and decode again to the same cloud.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(allTypes))
	f.Add([]byte(sprintf(binHeader, 2) + string(make([]byte, 24))))
	f.Add([]byte("ply\nformat binary_big_endian 1.0\nelement vertex 1\nproperty list short double v\nproperty uchar x\nend_header\n\x00\x01\x3f\xf0\x00\x00\x00\x00\x00\x00\x07"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, variant := range []string{"ascii", "binary", "binary-be"} {
			var buf bytes.Buffer
			if err := Encode(&buf, c, variant); err != nil {
				t.Fatalf("encode %s: %v", variant, err)
			}
			d, err := Decode(bytes.NewReader(buf.Bytes()))
			if err != nil {
				t.Fatalf("decode of %s output: %v\n%q", variant, err, buf.Bytes())
			}
			if msg := diffClouds(c, d, variant != "ascii"); msg != "" {
				t.Fatalf("%s: %s", variant, msg)
			}
		}
	})
}
