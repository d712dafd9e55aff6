package pcd

import "errors"

// LZF is the compression of PCD's binary_compressed data (Marc Lehmann's
// liblzf format, as PCL uses it). A stream is a sequence of chunks, each
// led by a control byte c:
//
//	c < 32:  a literal run of c+1 bytes follows;
//	c >= 32: a back reference: length L = c>>5 (if L == 7, L += next byte),
//	         offset D = (c&31)<<8 | next byte; copy L+2 bytes starting
//	         D+1 bytes back in the output.
//
// So matches are 3 to 264 bytes long and reach back at most 8192 bytes.
const (
	lzfMaxLit = 32
	lzfMaxOff = 1 << 13
	lzfMaxRef = 7 + 255 + 2
	lzfHashLg = 14
)

// errLZF reports a corrupt LZF stream.
var errLZF = errors.New("corrupt LZF data")

// lzfDecompress decompresses in into out, which must have exactly the
// uncompressed size; it fails unless in fills out exactly.
func lzfDecompress(in, out []byte) error {
	ip, op := 0, 0
	for ip < len(in) {
		c := int(in[ip])
		ip++
		if c < 32 {
			n := c + 1
			if ip+n > len(in) || op+n > len(out) {
				return errLZF
			}
			copy(out[op:], in[ip:ip+n])
			ip += n
			op += n
			continue
		}
		n := c >> 5
		if n == 7 {
			if ip >= len(in) {
				return errLZF
			}
			n += int(in[ip])
			ip++
		}
		if ip >= len(in) {
			return errLZF
		}
		ref := op - (c&31)<<8 - int(in[ip]) - 1
		ip++
		n += 2
		if ref < 0 || op+n > len(out) {
			return errLZF
		}
		// Byte by byte: a reference may overlap the bytes it produces.
		for k := range n {
			out[op+k] = out[ref+k]
		}
		op += n
	}
	if op != len(out) {
		return errLZF
	}
	return nil
}

// lzfCompress compresses in with a greedy hash-chain-free matcher: each
// position is looked up by its first three bytes in a table of the latest
// position that had them.
func lzfCompress(in []byte) []byte {
	out := make([]byte, 0, len(in)+len(in)/32+16)
	var htab [1 << lzfHashLg]int32 // position+1 of the latest 3-byte prefix
	hash := func(i int) int {
		v := uint32(in[i])<<16 | uint32(in[i+1])<<8 | uint32(in[i+2])
		return int((v * 2654435761) >> (32 - lzfHashLg))
	}
	ctrl := len(out) // where the control byte of the open literal run is
	out = append(out, 0)
	lit := 0
	closeLit := func() {
		if lit > 0 {
			out[ctrl] = byte(lit - 1)
		} else {
			out = out[:len(out)-1]
		}
	}
	ip := 0
	for ip < len(in) {
		if ip+2 < len(in) {
			h := hash(ip)
			ref := int(htab[h]) - 1
			htab[h] = int32(ip + 1)
			if off := ip - ref - 1; ref >= 0 && off < lzfMaxOff &&
				in[ref] == in[ip] && in[ref+1] == in[ip+1] && in[ref+2] == in[ip+2] {
				n, max := 3, min(len(in)-ip, lzfMaxRef)
				for n < max && in[ref+n] == in[ip+n] {
					n++
				}
				closeLit()
				if l := n - 2; l < 7 {
					out = append(out, byte(off>>8|l<<5))
				} else {
					out = append(out, byte(off>>8|7<<5), byte(l-7))
				}
				out = append(out, byte(off))
				for k := ip + 1; k < ip+n && k+2 < len(in); k++ {
					htab[hash(k)] = int32(k + 1)
				}
				ip += n
				ctrl, lit = len(out), 0
				out = append(out, 0)
				continue
			}
		}
		out = append(out, in[ip])
		ip++
		if lit++; lit == lzfMaxLit {
			out[ctrl] = lzfMaxLit - 1
			ctrl, lit = len(out), 0
			out = append(out, 0)
		}
	}
	closeLit()
	return out
}
