package cuda

import (
	"fmt"
	"math"
	"runtime"
	"unsafe"
)

// Dim3 is a grid or block shape.
type Dim3 struct{ X, Y, Z uint32 }

// Grid1D returns the 1-D grid of blocks of size block that covers n threads.
func Grid1D(n, block int) Dim3 {
	return Dim3{X: uint32((n + block - 1) / block), Y: 1, Z: 1}
}

// Params packs a kernel's arguments for cuLaunchKernel, which takes an
// array of pointers, one to each argument's value. Each value gets its own
// 8-byte-aligned slots in a heap slice (which never moves), and Launch
// builds the pointer array from them just before the call, keeping both
// alive until the driver has copied the values. Append arguments in the
// kernel's parameter order, with the kernel's exact types.
type Params struct {
	slots []uint64
	start []int // first slot of each argument
}

// NewParams returns an empty argument list.
func NewParams() *Params { return &Params{} }

// Reset empties the list for reuse.
func (p *Params) Reset() *Params {
	p.slots, p.start = p.slots[:0], p.start[:0]
	return p
}

func (p *Params) add(v uint64) *Params {
	p.start = append(p.start, len(p.slots))
	p.slots = append(p.slots, v)
	return p
}

// Ptr appends a device pointer (a T* parameter).
func (p *Params) Ptr(v DevicePtr) *Params { return p.add(uint64(v)) }

// U32 appends an unsigned int.
func (p *Params) U32(v uint32) *Params { return p.add(uint64(v)) }

// I32 appends an int.
func (p *Params) I32(v int32) *Params { return p.add(uint64(uint32(v))) }

// U64 appends an unsigned long long.
func (p *Params) U64(v uint64) *Params { return p.add(v) }

// I64 appends a long long.
func (p *Params) I64(v int64) *Params { return p.add(uint64(v)) }

// F32 appends a float.
func (p *Params) F32(v float32) *Params { return p.add(uint64(math.Float32bits(v))) }

// F64 appends a double.
func (p *Params) F64(v float64) *Params { return p.add(math.Float64bits(v)) }

// Struct appends a parameter passed by value whose bytes are b (a struct
// laid out as the kernel declares it, alignment at most 8).
func (p *Params) Struct(b []byte) *Params {
	p.start = append(p.start, len(p.slots))
	n := (len(b) + 7) / 8
	base := len(p.slots)
	p.slots = append(p.slots, make([]uint64, max(n, 1))...)
	dst := unsafe.Slice((*byte)(unsafe.Pointer(&p.slots[base])), n*8)
	copy(dst, b)
	return p
}

// Len returns the number of arguments.
func (p *Params) Len() int { return len(p.start) }

// Bytes returns the value bytes of argument i (as the driver will read
// them, padded to 8 bytes).
func (p *Params) Bytes(i int) []byte {
	end := len(p.slots)
	if i+1 < len(p.start) {
		end = p.start[i+1]
	}
	s := p.slots[p.start[i]:end]
	return unsafe.Slice((*byte)(unsafe.Pointer(&s[0])), len(s)*8)
}

// pointers returns the void** array: the address of each argument's first
// slot.
func (p *Params) pointers() []uintptr {
	ptrs := make([]uintptr, max(len(p.start), 1))
	for i, s := range p.start {
		ptrs[i] = uintptr(unsafe.Pointer(&p.slots[s]))
	}
	return ptrs
}

// Launch queues kernel f on stream s with the given grid, block, dynamic
// shared memory and arguments. Launch errors (bad shape, too many
// resources) are returned; faults inside the kernel surface at the next
// synchronising call.
func (t *Thread) Launch(f Function, grid, block Dim3, sharedBytes uint32, s Stream, p *Params) error {
	if grid.X == 0 || grid.Y == 0 || grid.Z == 0 {
		return nil // nothing to do
	}
	var args unsafe.Pointer
	var ptrs []uintptr
	if p != nil && len(p.start) > 0 {
		ptrs = p.pointers()
		args = unsafe.Pointer(&ptrs[0])
	}
	r := drv.cuLaunchKernel(f, grid.X, grid.Y, grid.Z, block.X, block.Y, block.Z, sharedBytes, s, args, nil)
	runtime.KeepAlive(ptrs)
	runtime.KeepAlive(p)
	if err := check("cuLaunchKernel", r); err != nil {
		return fmt.Errorf("%w (grid %v, block %v)", err, grid, block)
	}
	return nil
}
