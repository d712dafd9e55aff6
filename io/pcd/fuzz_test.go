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
	k := codecUnderTest
	k.Format = pcioFormat(f)
	f.Fuzz(func(t *testing.T, data []byte) { k.Fuzz(t, data, variants) })
}
