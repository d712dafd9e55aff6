package pcd

import (
	"bytes"
	"fmt"
	"testing"
)

// FuzzDecode decodes arbitrary input; what decodes must encode in every
// variant and decode again to the same cloud.
func FuzzDecode(f *testing.F) {
	f.Add([]byte(organized))
	f.Add([]byte(fmt.Sprintf(xyzHeader, 2, 2, "binary") + string(make([]byte, 24))))
	var buf bytes.Buffer
	if err := Encode(&buf, benchCloud(50), "compressed"); err != nil {
		f.Fatal(err)
	}
	f.Add(buf.Bytes())
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := Decode(bytes.NewReader(data))
		if err != nil {
			return
		}
		for _, variant := range []string{"ascii", "binary", "compressed"} {
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
