package copc

import (
	"fmt"
	"math"

	"github.com/pctk/pctk/io/pcio"
)

// Levels returns how many octree levels, from the root, q reads: --level
// and --resolution, the smaller when both are set, 0 for all. Resolution
// R reads down to the shallowest level d whose spacing Spacing/2^d is at
// most R, as PDAL's readers.copc computes its depth end:
// max(1, ceil(log2(Spacing/R)) + 1).
func (in *Info) Levels(q *pcio.Query) int {
	n := 0
	if q != nil && q.Levels > 0 {
		n = q.Levels
	}
	if q != nil && q.Resolution > 0 {
		d := max(1, int(math.Ceil(math.Log2(in.Spacing/q.Resolution)))+1)
		if n == 0 || d < n {
			n = d
		}
	}
	return n
}

// Plan is what a query reads: the nodes with points that it selects, in
// depth-first order from the root, and the hierarchy pages it loaded.
type Plan struct {
	// Nodes are the hierarchy entries of the selected nodes with points.
	Nodes []Entry
	// Pages is the number of hierarchy pages the walk needed.
	Pages int
}

// Points returns the number of points the selected nodes hold: an upper
// bound of what the query returns, exact without a box.
func (p *Plan) Points() int64 {
	var n int64
	for _, e := range p.Nodes {
		n += int64(e.PointCount)
	}
	return n
}

// Bytes returns the compressed bytes of the selected nodes.
func (p *Plan) Bytes() int64 {
	var n int64
	for _, e := range p.Nodes {
		n += int64(e.ByteSize)
	}
	return n
}

// Plan walks the hierarchy from the root and returns the nodes q
// selects: those above q's level limit whose cube overlaps q's box (both
// closed, so a box touching a node's face selects it). Only the pages of
// selected nodes are read, each at most once per File.
func (f *File) Plan(q *pcio.Query) (*Plan, error) {
	end := int32(f.Info.Levels(q))
	cube := f.Cube()
	pass := func(k Key) bool {
		if end > 0 && k.Level >= end {
			return false
		}
		return q == nil || q.Bounds == nil || overlaps(k.Bounds(cube), *q.Bounds)
	}
	plan := &Plan{}
	if !pass(RootKey) {
		return plan, nil
	}
	pages := map[uint64]bool{}
	var walk func(p page, e Entry) error
	walk = func(p page, e Entry) error {
		if e.IsPage() {
			if e.Key.Level == 0 {
				return formatErr("hierarchy entry", int64(f.Info.RootHierOffset), "the root node points to another page")
			}
			cp, err := f.page(e.Offset, int64(e.ByteSize), e.Key)
			if err != nil {
				return fmt.Errorf("node %s: %w", e.Key, err)
			}
			pages[e.Offset] = true
			return walk(cp, cp[e.Key])
		}
		if e.PointCount > 0 {
			plan.Nodes = append(plan.Nodes, e)
		}
		for i := range 8 {
			c := e.Key.Child(i)
			if ce, ok := p[c]; ok && pass(c) {
				if err := walk(p, ce); err != nil {
					return err
				}
			}
		}
		return nil
	}
	root, err := f.page(f.Info.RootHierOffset, int64(min(f.Info.RootHierSize, math.MaxInt64)), RootKey)
	if err != nil {
		return nil, err
	}
	pages[f.Info.RootHierOffset] = true
	err = walk(root, root[RootKey])
	plan.Pages = len(pages)
	return plan, err
}
