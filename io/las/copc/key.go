package copc

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/core"
)

// MaxLevel is the deepest octree level pctk reads or writes: a node's
// coordinates at level d run from 0 to 2^d-1 and must fit an int32.
const MaxLevel = 30

// Key names an octree node as EPT and COPC do (the spec's VoxelKey):
// the level (0 is the root) and the node's integer coordinates at that
// level, each from 0 to 2^Level-1.
type Key struct {
	Level, X, Y, Z int32
}

// RootKey is the key of the root node.
var RootKey = Key{}

// String formats k as EPT names it, "level-x-y-z".
func (k Key) String() string { return fmt.Sprintf("%d-%d-%d-%d", k.Level, k.X, k.Y, k.Z) }

// Valid reports whether k's level lies in 0..MaxLevel and its coordinates
// in 0..2^level-1.
func (k Key) Valid() bool {
	if k.Level < 0 || k.Level > MaxLevel {
		return false
	}
	n := int32(1) << k.Level
	return k.X >= 0 && k.X < n && k.Y >= 0 && k.Y < n && k.Z >= 0 && k.Z < n
}

// Child returns the child of k in octant i (0-7): bit 0 of i adds one to
// x, bit 1 to y and bit 2 to z at the next level, as EPT numbers them.
func (k Key) Child(i int) Key {
	return Key{k.Level + 1, 2*k.X + int32(i&1), 2*k.Y + int32(i>>1&1), 2*k.Z + int32(i>>2&1)}
}

// Parent returns the node one level up; the root's parent is the root.
func (k Key) Parent() Key {
	if k.Level == 0 {
		return k
	}
	return Key{k.Level - 1, k.X >> 1, k.Y >> 1, k.Z >> 1}
}

// Bounds returns the cube of node k in the octree whose root cube is
// root: along each axis, root.Min + i·side to root.Min + (i+1)·side, with
// side = (root.Max - root.Min) / 2^level, the last node ending at root.Max.
func (k Key) Bounds(root core.Bounds) core.Bounds {
	var b core.Bounds
	n := int32(1) << k.Level
	for a, i := range [3]int32{k.X, k.Y, k.Z} {
		b.Min[a] = cellEdge(root.Min[a], root.Max[a], i, n)
		b.Max[a] = cellEdge(root.Min[a], root.Max[a], i+1, n)
	}
	return b
}

// cellEdge returns the lower edge of cell i of n along [lo, hi]; cell n's
// lower edge is hi exactly.
func cellEdge(lo, hi float64, i, n int32) float64 {
	if i == n {
		return hi
	}
	return lo + (hi-lo)*float64(i)/float64(n)
}

// cellOf returns the cell, 0 to n-1, of the n cells along [lo, hi] whose
// closed interval (as cellEdge gives it) holds v; values outside go to the
// first or last cell.
func cellOf(v, lo, hi float64, n int32) int32 {
	i := int32(max(min(math.Floor((v-lo)/(hi-lo)*float64(n)), float64(n-1)), 0))
	// Floating-point rounding may put v one cell off the edges readers
	// compute: step to the cell whose interval really holds it.
	if i > 0 && v < cellEdge(lo, hi, i, n) {
		i--
	} else if i < n-1 && v > cellEdge(lo, hi, i+1, n) {
		i++
	}
	return i
}

// keyAt returns the key of the node at level d whose cube holds p.
func keyAt(p [3]float64, root core.Bounds, d int32) Key {
	n := int32(1) << d
	return Key{d, cellOf(p[0], root.Min[0], root.Max[0], n), cellOf(p[1], root.Min[1], root.Max[1], n), cellOf(p[2], root.Min[2], root.Max[2], n)}
}

// overlaps reports whether the closed boxes a and b share a point.
func overlaps(a, b core.Bounds) bool {
	for k := range 3 {
		if a.Max[k] < b.Min[k] || b.Max[k] < a.Min[k] {
			return false
		}
	}
	return true
}

// ParseKey parses a key written as String writes it, "level-x-y-z".
func ParseKey(s string) (Key, error) {
	var k Key
	if _, err := fmt.Sscanf(s, "%d-%d-%d-%d", &k.Level, &k.X, &k.Y, &k.Z); err != nil {
		return Key{}, fmt.Errorf("copc: key %q: %w", s, err)
	}
	if !k.Valid() {
		return Key{}, fmt.Errorf("copc: key %q out of range", s)
	}
	return k, nil
}
