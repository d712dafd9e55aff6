package copc

import (
	"fmt"
	"math"
	"runtime"
	"sync"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/las"
	"github.com/pctk/pctk/io/las/internal/laz"
	"github.com/pctk/pctk/io/pcio"
)

// records returns the file's record decoder and LASzip VLR, reading the
// VLRs and the EVLRs other than the hierarchy on first use.
func (f *File) records() (*las.RecordReader, *laz.VLR, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rr != nil {
		return f.rr, f.lazVLR, nil
	}
	h := f.Header
	if int64(h.PointOffset) > f.size {
		return nil, nil, formatErr("offset to point data", 96, "%d lies past the end of the file (%d bytes)", h.PointOffset, f.size)
	}
	head := make([]byte, h.PointOffset)
	if _, err := f.r.ReadAt(head, 0); err != nil {
		return nil, nil, fmt.Errorf("copc: reading the VLRs (bytes 0 to %d): %w", h.PointOffset, err)
	}
	rr, err := las.NewRecordReader(head)
	if err != nil {
		return nil, nil, err
	}
	// The Info keeps every VLR, so that it describes the file as it is
	// (pctk info); the COPC and LASzip records describe this file's
	// layout, not the data, and the LAS writers leave them out.
	info := rr.Info()
	var lv *laz.VLR
	for i := range info.VLRs {
		if v := &info.VLRs[i]; v.Is(laz.VLRUserID, laz.VLRRecordID) {
			if lv, err = laz.ParseVLR(v.Data); err != nil {
				return nil, nil, err
			}
		}
	}
	if lv == nil {
		return nil, nil, formatErr("VLRs", InfoOffset, "no LASzip VLR (laszip encoded/22204)")
	}
	if err := lv.Check(rr.RecordLen()); err != nil {
		return nil, nil, err
	}
	evlrs, err := f.evlrs()
	if err != nil {
		return nil, nil, err
	}
	rr.AddEVLRs(evlrs)
	f.rr, f.lazVLR = rr, lv
	return rr, lv, nil
}

// evlrs reads the EVLRs but the COPC hierarchy, whose pages load lazily.
func (f *File) evlrs() ([]las.VLR, error) {
	var out []las.VLR
	pos := int64(min(f.Header.EVLRStart, math.MaxInt64))
	for i := range f.Header.NumEVLRs {
		hb := make([]byte, 60)
		if _, err := f.r.ReadAt(hb, pos); err != nil {
			return nil, formatErr("EVLR header", pos, "EVLR %d of %d: %v", i, f.Header.NumEVLRs, err)
		}
		v, n := las.ParseEVLRHeader(hb)
		if n > uint64(f.size) || pos+60 > f.size-int64(n) {
			return nil, formatErr("EVLR header", pos, "EVLR %d (%s/%d) of %d bytes runs past the end of the file (%d bytes)", i, v.User(), v.RecordID, n, f.size)
		}
		if v.User() != UserID {
			v.Data = make([]byte, n)
			if _, err := f.r.ReadAt(v.Data, pos+60); err != nil {
				return nil, fmt.Errorf("copc: reading EVLR %d at byte offset %d: %w", i, pos, err)
			}
			out = append(out, v)
		}
		pos += 60 + int64(n)
	}
	return out, nil
}

// Read returns the points q selects (all for a nil or zero query): the
// points of the nodes Plan selects, those inside q's box when it has one,
// node after node in the plan's order. workers goroutines fetch and
// decompress nodes (0: GOMAXPROCS). The cloud's metadata is the LAS
// file's, less the COPC and LASzip records.
func (f *File) Read(q *pcio.Query, workers int) (*core.Cloud, error) {
	plan, err := f.Plan(q)
	if err != nil {
		return nil, err
	}
	return f.ReadNodes(plan.Nodes, q, workers)
}

// ReadNodes reads the points of the given nodes that lie inside q's box.
// Without a box every point of the nodes is kept, so the cloud is sized
// from the hierarchy's counts and each node decodes straight into its
// place; with one, the nodes' records are filtered first and decoded into
// place once the counts are known.
func (f *File) ReadNodes(nodes []Entry, q *pcio.Query, workers int) (*core.Cloud, error) {
	rr, lv, err := f.records()
	if err != nil {
		return nil, err
	}
	if workers <= 0 {
		workers = runtime.GOMAXPROCS(0)
	}
	rl := rr.RecordLen()
	direct := q == nil || q.Bounds == nil
	at := make([]int, len(nodes)+1)
	var c *core.Cloud
	if direct {
		for i, e := range nodes {
			at[i+1] = at[i] + int(max(e.PointCount, 0))
		}
		c = rr.NewCloud(at[len(nodes)])
	}
	kept := make([][]byte, len(nodes))
	errs := eachNode(lv.Items, len(nodes), workers, func(codec *laz.ChunkCodec, i int, src, dst *[]byte) error {
		if !direct {
			*dst = nil // kept[i] holds on to the records
		}
		recs, err := f.nodeRecords(codec, nodes[i], src, dst)
		switch {
		case err != nil:
			return err
		case direct:
			rr.Decode(c, at[i], recs, len(recs)/rl)
		default:
			kept[i] = filterRecords(recs, rl, f.Header, q)
		}
		return nil
	})
	for _, err := range errs {
		if err != nil {
			return nil, err
		}
	}
	if direct {
		return c, nil
	}
	for i := range kept {
		at[i+1] = at[i] + len(kept[i])/rl
	}
	c = rr.NewCloud(at[len(nodes)])
	var wg sync.WaitGroup
	for i := range kept {
		wg.Go(func() { rr.Decode(c, at[i], kept[i], len(kept[i])/rl) })
	}
	wg.Wait()
	return c, nil
}

// eachNode calls do(codec, i, src, dst) for every i below n on workers
// goroutines (at least one), each with its own codec of items and its
// own buffers src and dst for do to reuse, and returns the error of each
// i: do's, or the codec's when it could not be made.
func eachNode(items []laz.Item, n, workers int, do func(codec *laz.ChunkCodec, i int, src, dst *[]byte) error) []error {
	errs := make([]error, n)
	next := make(chan int)
	var wg sync.WaitGroup
	for range max(workers, 1) {
		wg.Go(func() {
			codec, err := laz.NewChunkCodec(items)
			var src, dst []byte
			for i := range next {
				if err != nil {
					errs[i] = err
					continue
				}
				errs[i] = do(codec, i, &src, &dst)
			}
		})
	}
	for i := range n {
		next <- i
	}
	close(next)
	wg.Wait()
	return errs
}

// filterRecords keeps, in place, the records of b whose coordinates lie
// inside q's box, and returns them.
func filterRecords(b []byte, rl int, h *las.Header, q *pcio.Query) []byte {
	if q == nil || q.Bounds == nil {
		return b
	}
	out := b[:0]
	for i := 0; i+rl <= len(b); i += rl {
		r := b[i : i+rl]
		x := float64(int32(le.Uint32(r)))*h.Scale[0] + h.Offset[0]
		y := float64(int32(le.Uint32(r[4:])))*h.Scale[1] + h.Offset[1]
		z := float64(int32(le.Uint32(r[8:])))*h.Scale[2] + h.Offset[2]
		if q.Contains(x, y, z) {
			out = append(out, r...)
		}
	}
	return out
}

// NodeRecords returns the decompressed point records of node e, as they
// are stored (point format and record length of the header).
func (f *File) NodeRecords(e Entry) ([]byte, error) {
	_, lv, err := f.records()
	if err != nil {
		return nil, err
	}
	codec, err := laz.NewChunkCodec(lv.Items)
	if err != nil {
		return nil, err
	}
	var src, dst []byte
	return f.nodeRecords(codec, e, &src, &dst)
}

// nodeRecords fetches node e's chunk into *src and decompresses it with
// codec into *dst, both reused between calls when large enough, and
// returns the records.
func (f *File) nodeRecords(codec *laz.ChunkCodec, e Entry, src, dst *[]byte) ([]byte, error) {
	if e.PointCount <= 0 {
		return nil, nil
	}
	if cap(*src) < int(e.ByteSize) {
		*src = make([]byte, e.ByteSize)
	}
	b := (*src)[:e.ByteSize]
	if _, err := f.r.ReadAt(b, int64(e.Offset)); err != nil {
		return nil, fmt.Errorf("copc: node %s: reading %d bytes at byte offset %d: %w", e.Key, e.ByteSize, e.Offset, err)
	}
	n := int(e.PointCount) * codec.RecordLen()
	if cap(*dst) < n {
		*dst = make([]byte, n)
	}
	recs := (*dst)[:n]
	if _, err := codec.Decode(b, int(e.PointCount), recs, 0); err != nil {
		return nil, fmt.Errorf("copc: node %s: chunk of %d bytes at byte offset %d: %w", e.Key, e.ByteSize, e.Offset, err)
	}
	return recs, nil
}
