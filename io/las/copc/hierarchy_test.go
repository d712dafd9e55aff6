package copc

import (
	"bytes"
	"errors"
	"io"
	"slices"
	"sync/atomic"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// countingReader counts the bytes and calls read through it.
type countingReader struct {
	r            io.ReaderAt
	bytes, calls atomic.Int64
}

func (c *countingReader) ReadAt(p []byte, off int64) (int, error) {
	n, err := c.r.ReadAt(p, off)
	c.bytes.Add(int64(n))
	c.calls.Add(1)
	return n, err
}

// fullTree returns a hierarchy with every node down to level depth, each
// holding 10 points in a chunk of 100 bytes at a made-up offset.
func fullTree(depth int32) (*hnode, []Entry) {
	var all []Entry
	var grow func(k Key) *hnode
	grow = func(k Key) *hnode {
		h := &hnode{entry: Entry{Key: k, Offset: uint64(1000 + 100*len(all)), ByteSize: 100, PointCount: 10}}
		all = append(all, h.entry)
		if k.Level < depth {
			for i := range 8 {
				h.children = append(h.children, grow(k.Child(i)))
			}
		}
		return h
	}
	return grow(RootKey), all
}

// fakeFile lays out a file whose hierarchy is root's, paged with levels and
// minNodes, and opens it; its cube is [0, 8]³.
func fakeFile(t *testing.T, root *hnode, levels int32, minNodes int) (*File, *countingReader) {
	t.Helper()
	const base = 1 << 20 // past every made-up chunk
	pages, off, n := appendPages(nil, base, root, levels, minNodes)
	data := make([]byte, base+len(pages))
	copy(data[base:], pages)
	cr := &countingReader{r: bytes.NewReader(data)}
	f := &File{r: cr, size: int64(len(data)), Info: Info{Center: [3]float64{4, 4, 4}, Halfsize: 4, Spacing: 1, RootHierOffset: off, RootHierSize: uint64(n)}, pages: map[uint64]page{}}
	return f, cr
}

func keys(es []Entry) []Key {
	out := make([]Key, len(es))
	for i, e := range es {
		out[i] = e.Key
	}
	slices.SortFunc(out, cmpKeys)
	return out
}

func cmpKeys(a, b Key) int {
	for _, d := range [4]int32{a.Level - b.Level, a.X - b.X, a.Y - b.Y, a.Z - b.Z} {
		if d != 0 {
			return int(d)
		}
	}
	return 0
}

// byLevel selects the entries of the first levels levels.
func byLevel(all []Entry, levels int) []Entry {
	return slices.DeleteFunc(slices.Clone(all), func(e Entry) bool {
		return levels > 0 && int(e.Key.Level) >= levels
	})
}

func TestHierarchyPagesRoundTrip(t *testing.T) {
	root, all := fullTree(4) // 4681 nodes
	for _, tc := range []struct {
		name      string
		levels    int32
		minNodes  int
		wantPages int
	}{
		{"one page", 8, 50, 1},
		{"untwine paging", pageLevels, pageMinNodes, 1},
		{"a page per level-2 subtree", 2, 5, 1 + 64},
		{"a page per node below the root", 1, 0, 4681},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f, _ := fakeFile(t, root, tc.levels, tc.minNodes)
			p, err := f.Plan(nil)
			if err != nil {
				t.Fatal(err)
			}
			if !slices.Equal(keys(p.Nodes), keys(all)) {
				t.Fatalf("plan holds %d nodes, want all %d", len(p.Nodes), len(all))
			}
			if p.Pages != tc.wantPages {
				t.Errorf("walk loaded %d pages, want %d", p.Pages, tc.wantPages)
			}
			for _, e := range p.Nodes {
				if i := slices.IndexFunc(all, func(a Entry) bool { return a.Key == e.Key }); all[i] != e {
					t.Fatalf("entry %+v, written %+v", e, all[i])
				}
			}
		})
	}
}

func TestPlanReadsOnlyTheTouchedPages(t *testing.T) {
	root, all := fullTree(4)
	f, cr := fakeFile(t, root, 2, 5) // root page + 64 pages of level-2 subtrees (73 entries each)
	// A box in one level-2 node's corner, [0, 0.5]³, touches one node per
	// level: 0-0-0-0, 1-0-0-0, 2-0-0-0 and so on.
	box := core.Bounds{Max: [3]float64{0.5, 0.5, 0.5}}
	p, err := f.Plan(&pcio.Query{Bounds: &box})
	if err != nil {
		t.Fatal(err)
	}
	var want []Entry
	cube := f.Cube()
	for _, e := range all {
		if overlaps(e.Key.Bounds(cube), box) {
			want = append(want, e)
		}
	}
	if !slices.Equal(keys(p.Nodes), keys(want)) {
		t.Fatalf("box selects %v, want %v", keys(p.Nodes), keys(want))
	}
	if p.Pages != 2 {
		t.Errorf("box loaded %d pages, want 2 (the root page and one level-2 page)", p.Pages)
	}
	rootPage := int64(f.Info.RootHierSize)
	if got, want := cr.bytes.Load(), rootPage+73*EntrySize; got != want {
		t.Errorf("read %d bytes of hierarchy, want %d (root page %d + one page of 73 entries)", got, want, rootPage)
	}
	// Levels limit the walk: level 0 and 1 are on the root page alone.
	f2, cr2 := fakeFile(t, root, 2, 5)
	p, err = f2.Plan(&pcio.Query{Levels: 2})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := keys(p.Nodes), keys(byLevel(all, 2)); !slices.Equal(got, want) {
		t.Fatalf("--level 1 selects %d nodes, want %d", len(got), len(want))
	}
	if p.Pages != 1 || cr2.bytes.Load() != int64(f2.Info.RootHierSize) {
		t.Errorf("--level 1 loaded %d pages, %d bytes; want the root page only", p.Pages, cr2.bytes.Load())
	}
}

func TestResolutionLevels(t *testing.T) {
	in := Info{Spacing: 8}
	for _, tc := range []struct {
		q    pcio.Query
		want int
	}{
		{pcio.Query{}, 0},
		{pcio.Query{Resolution: 8}, 1},   // the root's spacing is enough
		{pcio.Query{Resolution: 20}, 1},  // coarser than the root: still the root
		{pcio.Query{Resolution: 4}, 2},   // level 1 has spacing 4
		{pcio.Query{Resolution: 3.9}, 3}, // level 2 has 2
		{pcio.Query{Resolution: 1}, 4},
		{pcio.Query{Resolution: 1, Levels: 2}, 2},
		{pcio.Query{Resolution: 8, Levels: 5}, 1},
		{pcio.Query{Levels: 3}, 3},
	} {
		if got := in.Levels(&tc.q); got != tc.want {
			t.Errorf("%+v: %d levels, want %d", tc.q, got, tc.want)
		}
	}
}

func TestParsePageRejectsBadEntries(t *testing.T) {
	good := appendEntry(nil, Entry{Key: RootKey, Offset: 10, ByteSize: 20, PointCount: 5})
	for _, tc := range []struct {
		name string
		e    Entry
		size int
	}{
		{"key past its level", Entry{Key: Key{1, 2, 0, 0}}, 0},
		{"negative level", Entry{Key: Key{-1, 0, 0, 0}}, 0},
		{"count below -1", Entry{Key: RootKey, PointCount: -2}, 0},
		{"chunk past the end", Entry{Key: RootKey, Offset: 90, ByteSize: 20, PointCount: 3}, 0},
		{"child page of odd size", Entry{Key: Key{1, 0, 0, 0}, Offset: 10, ByteSize: 33, PointCount: -1}, 0},
	} {
		b := append(slices.Clone(good), appendEntry(nil, tc.e)...)
		_, err := parsePage(b, 500, 100)
		var fe *FormatError
		if !errors.As(err, &fe) {
			t.Errorf("%s: error %v, want a FormatError", tc.name, err)
		} else if fe.Pos.Offset < 500+EntrySize || fe.Pos.Offset >= 500+2*EntrySize {
			t.Errorf("%s: error at byte offset %d, want within the second entry [532, 564)", tc.name, fe.Pos.Offset)
		}
	}
	if _, err := parsePage(good[:31], 0, 100); err == nil {
		t.Error("a page of 31 bytes parsed")
	}
}
