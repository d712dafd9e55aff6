package copc

import (
	"bytes"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// queryFile is a COPC file the query tests read, with its full read.
type queryFile struct {
	name string
	f    *File
	cr   *countingReader
	full *core.Cloud
}

var (
	queryOnce  sync.Once
	queryCache []queryFile
)

// queryFiles returns the shared COPC files and written ones: a random
// cloud and a real one in deep octrees; built once per test binary.
func queryFiles(t *testing.T) []queryFile {
	queryOnce.Do(func() { queryCache = makeQueryFiles(t) })
	if queryCache == nil {
		t.Fatal("building the query test files failed in an earlier test")
	}
	return queryCache
}

func makeQueryFiles(t *testing.T) []queryFile {
	var out []queryFile
	add := func(name string, data []byte) {
		cr := &countingReader{r: bytes.NewReader(data)}
		f, err := Open(cr, int64(len(data)))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		full, err := f.Read(nil, 2)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		out = append(out, queryFile{name, f, cr, full})
	}
	fs, _ := filepath.Glob(filepath.Join(sharedDir, "*.copc.laz"))
	for _, path := range fs {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		add(filepath.Base(path), data)
	}
	clouds := map[string]*core.Cloud{"random": randomCloud(20000, 9)}
	if _, err := os.Stat("../../../../shared/data/las/haystack_rock.las"); err == nil {
		clouds["haystack_rock"] = readLAS(t, "las/haystack_rock.las")
	}
	for name, c := range clouds {
		var buf bytes.Buffer
		if err := Write(&buf, c, smallTree); err != nil {
			t.Fatal(err)
		}
		add(name+" (written)", buf.Bytes())
	}
	return out
}

// randomBox returns a box inside or around b: a 2D or 3D one, from a tiny
// box to one larger than the cloud, sometimes with a face on a node face.
func randomBox(rng *rand.Rand, b core.Bounds, cube core.Bounds) core.Bounds {
	var q core.Bounds
	for k := range 3 {
		lo, hi := b.Min[k], b.Max[k]
		w := (hi - lo) * math.Pow(10, -2*rng.Float64()) // 1% to 100% of the extent
		q.Min[k] = lo - 0.1*(hi-lo) + rng.Float64()*(hi-lo)
		q.Max[k] = q.Min[k] + w
	}
	switch rng.IntN(4) {
	case 0: // no Z limits
		q.Min[2], q.Max[2] = math.Inf(-1), math.Inf(1)
	case 1: // the lower X face on a level-2 node face
		q.Min[0] = cube.Min[0] + (cube.Max[0]-cube.Min[0])*float64(rng.IntN(4))/4
	}
	return q
}

// TestBoundsEqualsBruteForce checks that a box query returns exactly the
// points of the full read inside the box, in the same order.
func TestBoundsEqualsBruteForce(t *testing.T) {
	rng := rand.New(rand.NewPCG(42, 1))
	for _, qf := range queryFiles(t) {
		b, _ := qf.full.Bounds()
		for i := range 25 {
			box := randomBox(rng, b, qf.f.Cube())
			q := &pcio.Query{Bounds: &box}
			got, err := qf.f.Read(q, 2)
			if err != nil {
				t.Fatal(err)
			}
			want := q.Filter(qf.full)
			if !slices.Equal(pointKeys(got, attrNames(want)), pointKeys(want, attrNames(want))) {
				t.Fatalf("%s: box %d %v: %d points, brute force %d (or they differ)", qf.name, i, box, got.Len(), want.Len())
			}
		}
	}
}

// TestLevelsEqualBruteForce checks --level L and --resolution against the
// points of the nodes of levels 0 to L, node by node.
func TestLevelsEqualBruteForce(t *testing.T) {
	for _, qf := range queryFiles(t) {
		all, err := qf.f.Plan(nil)
		if err != nil {
			t.Fatal(err)
		}
		depth := 0
		for _, e := range all.Nodes {
			depth = max(depth, int(e.Key.Level))
		}
		byNode := make([]*core.Cloud, len(all.Nodes))
		for i, e := range all.Nodes {
			if byNode[i], err = qf.f.ReadNodes([]Entry{e}, nil, 1); err != nil {
				t.Fatal(err)
			}
		}
		for levels := 1; levels <= depth+2; levels++ {
			got, err := qf.f.Read(&pcio.Query{Levels: levels}, 2)
			if err != nil {
				t.Fatal(err)
			}
			want := qf.full.Select(nil)
			for i, e := range all.Nodes {
				if int(e.Key.Level) < levels {
					if err := want.Append(byNode[i]); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !slices.Equal(pointKeys(got, attrNames(want)), pointKeys(want, attrNames(want))) {
				t.Fatalf("%s: --level %d: %d points, brute force %d (or they differ)", qf.name, levels-1, got.Len(), want.Len())
			}
			// The resolution of level L-1 reads the same levels.
			res, err := qf.f.Read(&pcio.Query{Resolution: qf.f.Info.LevelSpacing(levels - 1)}, 2)
			if err != nil {
				t.Fatal(err)
			}
			if res.Len() != got.Len() {
				t.Errorf("%s: --resolution %g: %d points, --level %d gives %d", qf.name, qf.f.Info.LevelSpacing(levels-1), res.Len(), levels-1, got.Len())
			}
		}
	}
}

func attrNames(c *core.Cloud) []string {
	var out []string
	for _, a := range c.Attrs {
		out = append(out, a.Name)
	}
	return out
}

// TestSmallBoxReadsLittle checks through a counting ReaderAt that a box
// of 0.1% of the area of a deep written file reads a small part of it:
// the header, the pages and the nodes on the way down to it.
func TestSmallBoxReadsLittle(t *testing.T) {
	c := randomCloud(120000, 4)
	var buf bytes.Buffer
	if err := Write(&buf, c, smallTree); err != nil {
		t.Fatal(err)
	}
	cr := &countingReader{r: bytes.NewReader(buf.Bytes())}
	f, err := Open(cr, int64(buf.Len()))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := c.Bounds()
	box := pcio.UnboundedZ(b.Min[0]+0.6*(b.Max[0]-b.Min[0]), b.Min[1]+0.6*(b.Max[1]-b.Min[1]), b.Min[0]+0.63*(b.Max[0]-b.Min[0]), b.Min[1]+0.63*(b.Max[1]-b.Min[1]))
	got, err := f.Read(&pcio.Query{Bounds: &box}, 2)
	if err != nil {
		t.Fatal(err)
	}
	want := (&pcio.Query{Bounds: &box}).Filter(c)
	if got.Len() != want.Len() || got.Len() == 0 {
		t.Fatalf("box holds %d points, brute force %d", got.Len(), want.Len())
	}
	frac := float64(cr.bytes.Load()) / float64(buf.Len())
	t.Logf("box of 0.1%% of the area: %d of %d points, %d of %d bytes read (%.1f%%) in %d reads", got.Len(), c.Len(), cr.bytes.Load(), buf.Len(), 100*frac, cr.calls.Load())
	if frac > 0.1 {
		t.Errorf("a box of 0.1%% of the area read %.1f%% of the file", 100*frac)
	}
}

// TestReadFileQuery checks pcio.ReadFileQuery, what commands call: a COPC
// file answers from its index, a plain LAS file by filtering, both equal
// to brute force; --level on a plain file is an error.
func TestReadFileQuery(t *testing.T) {
	c := randomCloud(5000, 8)
	dir := t.TempDir()
	copcPath := filepath.Join(dir, "a.copc.laz")
	if err := pcio.WriteFile(copcPath, mustFormat(t, copcPath), "", c); err != nil {
		t.Fatal(err)
	}
	lasPath := filepath.Join(dir, "a.las")
	if err := pcio.WriteFile(lasPath, mustFormat(t, lasPath), "", c); err != nil {
		t.Fatal(err)
	}
	b, _ := c.Bounds()
	box := core.Bounds{Min: b.Center(), Max: b.Max}
	q := &pcio.Query{Bounds: &box}
	want := q.Filter(c)
	for _, path := range []string{copcPath, lasPath} {
		got, _, err := pcio.ReadFileQuery(path, q, nil)
		if err != nil {
			t.Fatal(err)
		}
		sameMultiset(t, path, got, want)
	}
	if _, _, err := pcio.ReadFileQuery(lasPath, &pcio.Query{Levels: 1}, nil); err == nil {
		t.Error("--level on a LAS file: no error")
	}
	got, _, err := pcio.ReadFileQuery(copcPath, &pcio.Query{Levels: 1}, nil)
	if err != nil {
		t.Fatal(err)
	}
	fh, err := os.Open(copcPath)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	st, _ := fh.Stat()
	f, err := Open(fh, st.Size())
	if err != nil {
		t.Fatal(err)
	}
	p, err := f.Plan(&pcio.Query{Levels: 1})
	if err != nil {
		t.Fatal(err)
	}
	if int64(got.Len()) != p.Points() {
		t.Errorf("--level 0 of COPC: %d points, the root holds %d", got.Len(), p.Points())
	}
}

func TestLongestExtensionWins(t *testing.T) {
	for path, want := range map[string]string{"a.copc.laz": "copc", "b.COPC.LAZ": "copc", "c.laz": "laz", "d.las": "las", "copc.laz": "laz"} {
		if got := mustFormat(t, path).Name; got != want {
			t.Errorf("%s: format %s, want %s", path, got, want)
		}
	}
}

func mustFormat(t *testing.T, path string) *pcio.Format {
	f, err := pcio.ByExtension(path)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// TestPlainReadEqualsIndexRead checks that a plain read of a COPC file (a
// LAZ read, what every command does without a query) returns the points
// the octree holds (in the file's chunk order, which for other writers
// need not be the hierarchy's depth-first order).
func TestPlainReadEqualsIndexRead(t *testing.T) {
	for _, qf := range queryFiles(t) {
		var buf bytes.Buffer
		if _, err := qf.cr.r.(*bytes.Reader).WriteTo(&buf); err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(t.TempDir(), "x.copc.laz")
		if err := os.WriteFile(path, buf.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		plain, f, err := pcio.ReadFile(path)
		if err != nil {
			t.Fatalf("%s: %v", qf.name, err)
		}
		if f.Name == "copc" {
			t.Fatalf("%s: a plain read went through the COPC reader, not LAZ", qf.name)
		}
		sameMultiset(t, qf.name+" ("+f.Name+" read)", plain, qf.full)
	}
}
