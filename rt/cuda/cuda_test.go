package cuda

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unsafe"
)

func TestParamsPacking(t *testing.T) {
	type pair struct{ A, B int32 }
	pv := pair{A: -7, B: 9}
	sb := unsafe.Slice((*byte)(unsafe.Pointer(&pv)), unsafe.Sizeof(pv))
	p := NewParams().Ptr(0xdeadbeef00).U32(42).I32(-3).F32(1.5).U64(1 << 40).F64(-2.25).Struct(sb)
	if p.Len() != 7 {
		t.Fatalf("Len() = %d, want 7", p.Len())
	}
	le := binary.LittleEndian
	for _, c := range []struct {
		i    int
		size int
		want uint64
	}{
		{0, 8, 0xdeadbeef00},
		{1, 4, 42},
		{2, 4, uint64(uint32(0xfffffffd))},
		{3, 4, uint64(math.Float32bits(1.5))},
		{4, 8, 1 << 40},
		{5, 8, math.Float64bits(-2.25)},
	} {
		b := p.Bytes(c.i)
		var got uint64
		if c.size == 4 {
			got = uint64(le.Uint32(b))
		} else {
			got = le.Uint64(b)
		}
		if got != c.want {
			t.Errorf("argument %d: got %#x, want %#x", c.i, got, c.want)
		}
	}
	b := p.Bytes(6)
	if a, bb := int32(le.Uint32(b)), int32(le.Uint32(b[4:])); a != -7 || bb != 9 {
		t.Errorf("struct argument: got {%d %d}, want {-7 9}", a, bb)
	}
	// The pointer array must point at each argument's own slot, 8-byte
	// aligned, in order.
	ptrs := p.pointers()
	for i := range ptrs {
		if ptrs[i]%8 != 0 {
			t.Errorf("argument %d at %#x: not 8-byte aligned", i, ptrs[i])
		}
		if i > 0 && ptrs[i] <= ptrs[i-1] {
			t.Errorf("argument %d at %#x not after argument %d at %#x", i, ptrs[i], i-1, ptrs[i-1])
		}
	}
	if got := *(**uint32)(unsafe.Pointer(&ptrs[1])); *got != 42 {
		t.Errorf("*ptrs[1] = %d, want 42", *got)
	}
	if p.Reset().Len() != 0 {
		t.Errorf("after Reset, Len() = %d, want 0", p.Len())
	}
}

func TestGrid1D(t *testing.T) {
	for _, c := range []struct{ n, block, want int }{{0, 256, 0}, {1, 256, 1}, {256, 256, 1}, {257, 256, 2}, {1 << 24, 256, 1 << 16}} {
		if got := Grid1D(c.n, c.block); got.X != uint32(c.want) || got.Y != 1 || got.Z != 1 {
			t.Errorf("Grid1D(%d, %d) = %v, want {%d 1 1}", c.n, c.block, got, c.want)
		}
	}
}

func TestErrorMapping(t *testing.T) {
	e := &Error{Op: "cuMemAlloc", Code: ErrOutOfMem, Name: "CUDA_ERROR_OUT_OF_MEMORY", Desc: "out of memory"}
	if got, want := e.Error(), "cuda: cuMemAlloc: CUDA_ERROR_OUT_OF_MEMORY (out of memory)"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	var wrapped error = e
	if !errors.Is(wrapped, ErrOutOfMemory) {
		t.Errorf("errors.Is(%v, ErrOutOfMemory) = false, want true", e)
	}
	if errors.Is(&Error{Op: "x", Code: ErrInvalidValue}, ErrOutOfMemory) {
		t.Errorf("an invalid-value error matches ErrOutOfMemory")
	}
	if !errors.Is(&Error{Op: "cuInit", Code: ErrNoDevice}, ErrNoDriver) {
		t.Errorf("CUDA_ERROR_NO_DEVICE does not match ErrNoDriver")
	}
	bare := &Error{Op: "cuLaunchKernel", Code: 719}
	if got, want := bare.Error(), "cuda: cuLaunchKernel: CUresult 719"; got != want {
		t.Errorf("Error() without driver text = %q, want %q", got, want)
	}
	withLog := &Error{Op: "cuModuleLoadDataEx", Code: ErrInvalidPTX, Name: "CUDA_ERROR_INVALID_PTX", Log: "line 7: syntax error"}
	if got := withLog.Error(); !strings.HasSuffix(got, ": line 7: syntax error") {
		t.Errorf("Error() = %q, want the JIT log at the end", got)
	}
}

func TestFormatVersion(t *testing.T) {
	for _, c := range []struct {
		v    int
		want string
	}{{13000, "13.0"}, {12080, "12.8"}, {11040, "11.4"}} {
		if got := FormatVersion(c.v); got != c.want {
			t.Errorf("FormatVersion(%d) = %q, want %q", c.v, got, c.want)
		}
	}
}

func TestPTXHash(t *testing.T) {
	dir := t.TempDir()
	cu := filepath.Join(dir, "k.cu")
	hdr := filepath.Join(dir, "k.h")
	write := func(p, s string) {
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(hdr, "#define K 1\n")
	write(cu, "#include \"k.h\"\n#include <stdint.h>\nextern \"C\" __global__ void k() {}\n")
	h1, err := SourceHash(cu)
	if err != nil {
		t.Fatal(err)
	}
	ptx := filepath.Join(dir, "k.ptx")
	write(ptx, PTXHashPrefix+h1+"\n.version 9.0\n")
	if err := CheckPTX(cu, ptx); err != nil {
		t.Errorf("fresh PTX: %v", err)
	}
	write(hdr, "#define K 2\n") // editing the header makes the PTX stale
	if err := CheckPTX(cu, ptx); err == nil {
		t.Errorf("CheckPTX accepted PTX built before its header changed")
	}
	if got := PTXSourceHash([]byte(".version 9.0\n")); got != "" {
		t.Errorf("PTXSourceHash of headerless PTX = %q, want \"\"", got)
	}

	// A fatbin: fresh when its header names the source's hash and its own.
	write(hdr, "#define K 1\n")
	fb := filepath.Join(dir, "k.fatbin")
	write(fb, "\x50\xed\x55\xba machine code")
	sum := sha256.Sum256([]byte("\x50\xed\x55\xba machine code"))
	write(fb+".txt", PTXHashPrefix+h1+"\n// generated ...\n"+FatbinHashPrefix+hex.EncodeToString(sum[:])+"\n")
	if err := CheckFatbin(cu, fb); err != nil {
		t.Errorf("fresh fatbin: %v", err)
	}
	write(fb, "other machine code") // a fatbin from another build than its header
	if err := CheckFatbin(cu, fb); err == nil {
		t.Errorf("CheckFatbin accepted a fatbin whose hash differs from its header's")
	}
	write(fb, "\x50\xed\x55\xba machine code")
	write(hdr, "#define K 3\n")
	if err := CheckFatbin(cu, fb); err == nil {
		t.Errorf("CheckFatbin accepted a fatbin built before its header changed")
	}
	if err := CheckFatbin(cu, filepath.Join(dir, "none.fatbin")); err == nil {
		t.Errorf("CheckFatbin accepted a missing fatbin")
	}
}

// TestCUDARuntime exercises the driver end to end where one exists: device
// query, a context, memory round trip, events, and a JIT failure's log.
func TestCUDARuntime(t *testing.T) {
	devs, err := Devices()
	skipNoDriver(t, err)
	if err != nil {
		t.Fatal(err)
	}
	v, err := DriverVersion()
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("driver CUDA %s; GPU 0: %s, sm_%d%d, %d MiB, %d SMs", FormatVersion(v), devs[0].Name, devs[0].Major, devs[0].Minor, devs[0].TotalMem>>20, devs[0].Multiprocessors)
	ctx, err := Default()
	if err != nil {
		t.Fatal(err)
	}
	if ctx.Handle() == 0 {
		t.Fatal("context handle is 0")
	}
	err = ctx.Do(func(th *Thread) error {
		s, err := th.NewStream()
		if err != nil {
			return err
		}
		defer th.DestroyStream(s)
		var a Allocs
		defer a.Free(th)
		const n = 1 << 20
		p, err := a.Alloc(th, n*4)
		if err != nil {
			return err
		}
		src := make([]uint32, n)
		for i := range src {
			src[i] = uint32(i*2654435761) ^ 0x5a5a
		}
		e0, _ := th.NewEvent()
		e1, _ := th.NewEvent()
		defer th.DestroyEvent(e0)
		defer th.DestroyEvent(e1)
		if err := th.Record(e0, s); err != nil {
			return err
		}
		if err := Upload(th, p, src, s); err != nil {
			return err
		}
		if err := th.Record(e1, s); err != nil {
			return err
		}
		ms, err := th.Elapsed(e0, e1)
		if err != nil {
			return err
		}
		t.Logf("uploaded 4 MiB in %.3f ms", ms)
		got := make([]uint32, n)
		if err := Download(th, got, p, s); err != nil {
			return err
		}
		for i := range got {
			if got[i] != src[i] {
				t.Errorf("round trip: element %d = %#x, want %#x", i, got[i], src[i])
				break
			}
		}
		if err := th.Memset32(p, 0xabcdef01, n, s); err != nil {
			return err
		}
		if err := Download(th, got[:8], p.Add(4*(n-8)), s); err != nil {
			return err
		}
		for i, g := range got[:8] {
			if g != 0xabcdef01 {
				t.Errorf("after Memset32, element %d = %#x, want 0xabcdef01", n-8+i, g)
			}
		}
		_, err = th.LoadModule([]byte(".version 9.0\n.target sm_75\n.address_size 64\nthis is not ptx\n"))
		var ce *Error
		if !errors.As(err, &ce) || ce.Log == "" {
			t.Errorf("loading bad PTX: got %v, want a *Error with the JIT log", err)
		}
		_, err = th.Alloc(1 << 50)
		if !errors.Is(err, ErrOutOfMemory) {
			t.Errorf("allocating 1 PiB: got %v, want ErrOutOfMemory", err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

func TestNoDriverIsClear(t *testing.T) {
	err := Load()
	if err == nil {
		t.Skip("a CUDA driver is present; this test checks the error without one")
	}
	if !errors.Is(err, ErrNoDriver) {
		t.Fatalf("Load() = %v, want an error wrapping ErrNoDriver", err)
	}
	if _, err := Default(); !errors.Is(err, ErrNoDriver) {
		t.Errorf("Default() = %v, want ErrNoDriver", err)
	}
}
