package cuda

import (
	"fmt"
	"testing"
)

// BenchmarkAllocFree times an Alloc and Free pair of the sizes a 4M-point
// DBSCAN asks for, on the GPU machine (skips without a driver): after the
// first, Alloc reuses the block Free kept, behind a synchronisation.
// Without the block cache a cuMemAlloc and cuMemFree pair took 72, 98 and
// 162 µs for 4, 16 and 64 MiB on the H200.
func BenchmarkAllocFree(b *testing.B) {
	_, err := Devices()
	if err != nil {
		b.Skipf("no CUDA driver: %v", err)
	}
	ctx, err := Default()
	if err != nil {
		b.Fatal(err)
	}
	for _, mb := range []uint64{4, 16, 64} {
		b.Run(fmt.Sprintf("%dMiB", mb), func(b *testing.B) {
			err := ctx.Do(func(t *Thread) error {
				for range b.N {
					p, err := t.Alloc(mb << 20)
					if err != nil {
						return err
					}
					if err := t.Free(p); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		})
	}
}

// TestBlockCache checks the cache's bookkeeping without a device: blocks
// are reused by exact size, only blocks Alloc made are kept, and no more
// than an eighth of the device's memory is held.
func TestBlockCache(t *testing.T) {
	var c blockCache
	const total = 800
	c.record(1, 40)
	c.record(2, 40)
	c.record(3, 60)
	if !c.keep(1, total) || !c.keep(3, total) {
		t.Fatal("keep refused blocks within the limit")
	}
	if c.bytes != 100 || !c.unsynced {
		t.Errorf("after keeping 40 and 60 bytes: bytes %d, unsynced %v; want 100, true", c.bytes, c.unsynced)
	}
	if c.keep(2, total) {
		t.Error("kept a block beyond an eighth of the memory (100 + 40 > 800/8)")
	}
	if c.keep(9, total) {
		t.Error("kept a block Alloc did not make")
	}
	if _, ok := c.take(50); ok {
		t.Error("took a block of another size")
	}
	if p, ok := c.take(60); !ok || p != 3 {
		t.Errorf("take(60) = %d, %v; want 3, true", p, ok)
	}
	if p, ok := c.take(40); !ok || p != 1 || c.bytes != 0 {
		t.Errorf("take(40) = %d, %v with %d bytes left; want 1, true, 0", p, ok, c.bytes)
	}
	if _, ok := c.take(40); ok {
		t.Error("took the same block twice")
	}
}
