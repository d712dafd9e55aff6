package copc

import (
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/las/internal/laz"
)

// WriteOptions tune Write. The zero value writes as untwine and PDAL's
// writers.copc do, on every core.
type WriteOptions struct {
	// Workers is the number of goroutines that build the octree and
	// compress nodes; 0 means GOMAXPROCS.
	Workers int
	// LAS are the record choices (PDAL's writers.copc scale_x/y/z,
	// offset_x/y/z, extra_dims); a version other than 1.4 or a point
	// format other than 6, 7 or 8 is an error. Nil: the writer's own.
	LAS *las.WriteOptions
	// params overrides the octree's thresholds (tests).
	params *octreeParams
	// pageLevels and pageMinNodes override the hierarchy paging (tests).
	pageLevels   int32
	pageMinNodes int
}

// Encode writes c as COPC with the default options; it is the codec's
// pcio Encode (variant must be "").
func Encode(w io.Writer, c *core.Cloud, variant string) error {
	if variant != "" {
		return fmt.Errorf("copc: no variant %q (COPC has none)", variant)
	}
	return Write(w, c, nil)
}

// Write writes c as a COPC file: LAS 1.4, point format 6, 7 or 8 (the
// smallest that holds c's fields; formats 0-5 move to 6-8 as PDAL's
// writers.copc moves them), every other column in Extra Bytes, the
// source's scale and offset when the points still fit them. The points go
// into an octree over the cube around them, each node spread over the
// node's cube (see buildOctree), each node one LAZ chunk compressed in
// parallel. The whole cloud is in memory; w need not seek.
func Write(w io.Writer, c *core.Cloud, opt *WriteOptions) error {
	if opt == nil {
		opt = &WriteOptions{}
	}
	if err := c.Validate(); err != nil {
		return fmt.Errorf("copc: %w", err)
	}
	workers := opt.Workers
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rw, err := las.NewRecordWriter(c, opt.LAS)
	if err != nil {
		return fmt.Errorf("copc: %w", err)
	}
	pf, recLen := rw.PointFormat()
	vlr, err := laz.NewVLR(pf, recLen, laz.VariableChunkSize)
	if err != nil {
		return fmt.Errorf("copc: %w", err)
	}

	// The octree is built on the coordinates as readers will get them back.
	scale, offset := rw.Scale()
	n := c.Len()
	xyz := make([]float64, 3*n)
	for k, vs := range [3][]float64{c.X, c.Y, c.Z} {
		for i, v := range vs {
			xyz[3*i+k] = math.Round((v-offset[k])/scale[k])*scale[k] + offset[k]
		}
	}
	info := Info{Spacing: 1, Halfsize: 1}
	var order []int
	var tree *hnode
	if n > 0 {
		prm := defaultParams
		if opt.params != nil {
			prm = *opt.params
		}
		info.Center, info.Halfsize = cubeFor(boundsOf(xyz), max(scale[0], scale[1], scale[2]))
		info.Spacing = 2 * info.Halfsize / float64(prm.cells)
		cube := info.Cube()
		root := buildOctree(xyz, cube, prm, workers)
		tree, order = hierarchyOf(root)
	}
	if gps := c.Attr(core.DimGpsTime); gps != nil {
		info.GpsTimeMin, info.GpsTimeMax, _ = gps.Range()
	}

	// Records in node order, then one chunk per node.
	recs, err := rw.Records(c.Select(order))
	if err != nil {
		return fmt.Errorf("copc: %w", err)
	}
	nodes := flatten(tree)
	chunks, err := compress(vlr.Items, recs, recLen, nodes, workers)
	if err != nil {
		return err
	}

	// Layout: header, info VLR, LASzip VLR, the source's VLRs; the chunk
	// table's offset, the chunks, the chunk table; the hierarchy EVLR, the
	// source's EVLRs.
	first := []las.VLR{
		las.NewVLR(UserID, InfoRecordID, "COPC info", make([]byte, InfoSize)),
		las.NewVLR(laz.VLRUserID, laz.VLRRecordID, "laszip", vlr.Marshal()),
	}
	head := rw.Head(first, true, 0, 1) // sized only, to learn the point offset
	pointStart := uint64(len(head))
	pos := pointStart + 8
	table := make([]laz.Chunk, len(nodes))
	for i, nd := range nodes {
		if len(chunks[i]) > math.MaxInt32 {
			return fmt.Errorf("copc: node %s compresses to %d bytes, more than a hierarchy entry holds", nd.entry.Key, len(chunks[i]))
		}
		nd.entry.Offset, nd.entry.ByteSize = pos, int32(len(chunks[i]))
		pos += uint64(len(chunks[i]))
		table[i] = laz.Chunk{Offset: int64(nd.entry.Offset), Bytes: int64(len(chunks[i])), Points: int(nd.entry.PointCount)}
	}
	tablePos := pos
	tableBytes := laz.AppendTable(nil, table, true)
	evlrStart := tablePos + uint64(len(tableBytes))
	var pages []byte
	if tree != nil {
		levels, minNodes := int32(pageLevels), pageMinNodes
		if opt.pageLevels > 0 {
			levels, minNodes = opt.pageLevels, opt.pageMinNodes
		}
		var off uint64
		var size int
		pages, off, size = appendPages(nil, evlrStart+60, tree, levels, minNodes)
		info.RootHierOffset, info.RootHierSize = off, uint64(size)
	} else {
		// An empty cloud: one page with the root's entry, no points.
		pages = appendEntry(nil, Entry{})
		info.RootHierOffset, info.RootHierSize = evlrStart+60, EntrySize
	}
	first[0].Data = info.marshal()
	head = rw.Head(first, true, evlrStart-pointStart, 1)
	hier := las.NewVLR(UserID, HierarchyRecordID, "EPT hierarchy", pages)

	out := [][]byte{head, le.AppendUint64(nil, tablePos)}
	out = append(out, chunks...)
	out = append(out, tableBytes, las.AppendVLR(nil, &hier, true), rw.Tail())
	for _, b := range out {
		if _, err := w.Write(b); err != nil {
			return err
		}
	}
	return nil
}

// hierarchyOf turns the octree into hierarchy nodes, and lists the points
// in the order their chunks will be written: depth first, children by
// octant, as flatten lists the nodes.
func hierarchyOf(root *node) (*hnode, []int) {
	var order []int
	var conv func(nd *node) *hnode
	conv = func(nd *node) *hnode {
		h := &hnode{entry: Entry{Key: nd.key, PointCount: int32(len(nd.pts))}}
		for _, p := range nd.pts {
			order = append(order, int(p))
		}
		for _, c := range nd.children {
			h.children = append(h.children, conv(c))
		}
		return h
	}
	return conv(root), order
}

// flatten lists the nodes with points, depth first.
func flatten(h *hnode) []*hnode {
	var out []*hnode
	var walk func(h *hnode)
	walk = func(h *hnode) {
		if h.entry.PointCount > 0 {
			out = append(out, h)
		}
		for _, c := range h.children {
			walk(c)
		}
	}
	if h != nil {
		walk(h)
	}
	return out
}

// compress encodes each node's records, consecutive in recs in nodes'
// order, as one LAZ chunk, on workers goroutines.
func compress(items []laz.Item, recs []byte, recLen int, nodes []*hnode, workers int) ([][]byte, error) {
	starts := make([]int, len(nodes)+1)
	for i, nd := range nodes {
		starts[i+1] = starts[i] + int(nd.entry.PointCount)*recLen
	}
	chunks := make([][]byte, len(nodes))
	errs := eachNode(items, len(nodes), workers, func(codec *laz.ChunkCodec, i int, _, _ *[]byte) error {
		var err error
		chunks[i], err = codec.Encode(recs[starts[i]:starts[i+1]], int(nodes[i].entry.PointCount), nil)
		return err
	})
	for i, err := range errs {
		if err != nil {
			return nil, fmt.Errorf("copc: compressing node %s: %w", nodes[i].entry.Key, err)
		}
	}
	return chunks, nil
}
