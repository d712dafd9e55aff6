package normals

// A minimal PCD reader and writer for the peer tests only: float32 fields,
// DATA binary or binary_compressed (LZF), which is what the scans in
// ../shared/data/pcd and pcl_normal_estimation's output use. The product's
// codec is io/pcd; algos/normals must not depend on io.

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
)

// pcdCloud maps field names to their float32 values.
type pcdCloud struct {
	n      int
	fields map[string][]float32
}

func (c pcdCloud) xyz() []float32 {
	out := make([]float32, 3*c.n)
	for i := range c.n {
		out[3*i], out[3*i+1], out[3*i+2] = c.fields["x"][i], c.fields["y"][i], c.fields["z"][i]
	}
	return out
}

func readPCD(path string) (pcdCloud, error) {
	raw, err := os.ReadFile(path)
	if err != nil {
		return pcdCloud{}, err
	}
	r := bufio.NewReader(bytes.NewReader(raw))
	var names []string
	var sizes, counts []int
	var types []string
	n, off := 0, 0
	data := ""
	for data == "" {
		line, err := r.ReadString('\n')
		if err != nil {
			return pcdCloud{}, fmt.Errorf("%s: header: %v", path, err)
		}
		off += len(line)
		f := strings.Fields(line)
		if len(f) == 0 || strings.HasPrefix(f[0], "#") {
			continue
		}
		switch f[0] {
		case "FIELDS":
			names = f[1:]
		case "SIZE":
			sizes = atois(f[1:])
		case "TYPE":
			types = f[1:]
		case "COUNT":
			counts = atois(f[1:])
		case "POINTS":
			n, _ = strconv.Atoi(f[1])
		case "DATA":
			data = f[1]
		}
	}
	if counts == nil {
		counts = make([]int, len(names))
		for i := range counts {
			counts[i] = 1
		}
	}
	if len(sizes) != len(names) || len(types) != len(names) || len(counts) != len(names) {
		return pcdCloud{}, fmt.Errorf("%s: inconsistent header", path)
	}
	body := raw[off:]
	rec := 0
	for i := range names {
		rec += sizes[i] * counts[i]
	}
	c := pcdCloud{n: n, fields: map[string][]float32{}}
	var get func(field, point, fieldOff int) float32
	switch data {
	case "binary":
		if len(body) < n*rec {
			return c, fmt.Errorf("%s: %d data bytes, want %d", path, len(body), n*rec)
		}
		get = func(_, p, fieldOff int) float32 {
			return math.Float32frombits(binary.LittleEndian.Uint32(body[p*rec+fieldOff:]))
		}
	case "binary_compressed":
		if len(body) < 8 {
			return c, fmt.Errorf("%s: short compressed header", path)
		}
		csize, usize := binary.LittleEndian.Uint32(body), binary.LittleEndian.Uint32(body[4:])
		if int(usize) != n*rec || int(csize) > len(body)-8 {
			return c, fmt.Errorf("%s: compressed sizes %d/%d for %d points of %d bytes", path, csize, usize, n, rec)
		}
		u, err := lzfDecompress(body[8:8+csize], int(usize))
		if err != nil {
			return c, fmt.Errorf("%s: %v", path, err)
		}
		// Field-major: all values of field 0, then of field 1, ...
		get = func(i, p, _ int) float32 {
			start := 0
			for j := range i {
				start += n * sizes[j] * counts[j]
			}
			return math.Float32frombits(binary.LittleEndian.Uint32(u[start+p*sizes[i]*counts[i]:]))
		}
	default:
		return c, fmt.Errorf("%s: DATA %s not supported by the test reader", path, data)
	}
	fieldOff := 0
	for i, name := range names {
		if types[i] == "F" && sizes[i] == 4 && counts[i] == 1 {
			v := make([]float32, n)
			for p := range n {
				v[p] = get(i, p, fieldOff)
			}
			c.fields[name] = v
		}
		fieldOff += sizes[i] * counts[i]
	}
	return c, nil
}

func atois(s []string) []int {
	out := make([]int, len(s))
	for i, v := range s {
		out[i], _ = strconv.Atoi(v)
	}
	return out
}

// lzfDecompress expands LZF data (liblzf's format, as PCD uses it).
func lzfDecompress(in []byte, size int) ([]byte, error) {
	out := make([]byte, 0, size)
	for ip := 0; ip < len(in); {
		ctrl := int(in[ip])
		ip++
		if ctrl < 32 { // literal run of ctrl+1 bytes
			if ip+ctrl+1 > len(in) {
				return nil, fmt.Errorf("lzf: literal past the end at %d", ip)
			}
			out = append(out, in[ip:ip+ctrl+1]...)
			ip += ctrl + 1
			continue
		}
		l := ctrl >> 5
		if l == 7 {
			if ip >= len(in) {
				return nil, fmt.Errorf("lzf: truncated length at %d", ip)
			}
			l += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return nil, fmt.Errorf("lzf: truncated reference at %d", ip)
		}
		ref := len(out) - (ctrl&0x1f)<<8 - 1 - int(in[ip])
		ip++
		if ref < 0 {
			return nil, fmt.Errorf("lzf: back reference before the start at %d", ip)
		}
		for k := range l + 2 { // may overlap the bytes being written
			out = append(out, out[ref+k])
		}
	}
	if len(out) != size {
		return nil, fmt.Errorf("lzf: %d bytes, want %d", len(out), size)
	}
	return out, nil
}

// writePCD writes points as a binary PCD with fields x y z.
func writePCD(path string, xyz []float32) error {
	n := len(xyz) / 3
	var b bytes.Buffer
	fmt.Fprintf(&b, "# .PCD v0.7\nVERSION 0.7\nFIELDS x y z\nSIZE 4 4 4\nTYPE F F F\nCOUNT 1 1 1\nWIDTH %d\nHEIGHT 1\nVIEWPOINT 0 0 0 1 0 0 0\nPOINTS %d\nDATA binary\n", n, n)
	if err := binary.Write(&b, binary.LittleEndian, xyz); err != nil {
		return err
	}
	return os.WriteFile(path, b.Bytes(), 0o644)
}
