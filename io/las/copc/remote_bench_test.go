package copc

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/remote/remotetest"
)

// BenchmarkRemote reads the benchmark cloud (terrain, 1M points) from a
// file and by URL from the standard library's file server on a loopback
// port, in one run: a box of 4% of the area of the COPC file, and the
// whole LAZ file. Each URL read opens the URL afresh (a query string
// the server ignores), as a new process would; fetched-B/op is the
// bytes the server sent. docs/benchmarks.md ("Remote reads") reports it.
func BenchmarkRemote(b *testing.B) {
	dir := b.TempDir()
	c := terrain(benchPoints, 1)
	lazFormat, _, err := pcio.Lookup("laz")
	if err != nil {
		b.Fatal(err)
	}
	for name, write := range map[string]func(f *os.File) error{
		"t.copc.laz": func(f *os.File) error { return Write(f, c, &WriteOptions{Workers: 2}) },
		"t.laz":      func(f *os.File) error { return lazFormat.Encode(f, c, "") },
	} {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		if err := write(f); err != nil {
			b.Fatal(err)
		}
		f.Close()
	}
	// The terrain spans X 500000 to 501000 and Y 4000000 to 4001000.
	box := pcio.UnboundedZ(500300, 4000300, 500500, 4000500)
	s := remotetest.FileServer(b, dir)
	for _, tc := range []struct {
		name, file string
		q          *pcio.Query
	}{
		{"copc-box", "t.copc.laz", &pcio.Query{Bounds: &box}},
		{"laz-whole", "t.laz", nil},
	} {
		want := 0
		for _, where := range []string{"file", "url"} {
			b.Run(tc.name+"/"+where, func(b *testing.B) {
				s.Reset()
				i := 0
				for b.Loop() {
					path := filepath.Join(dir, tc.file)
					if where == "url" {
						i++
						path = fmt.Sprintf("%s/%s?run=%d", s.URL, tc.file, i)
					}
					got, _, err := pcio.ReadFileQuery(path, tc.q, nil)
					if err != nil {
						b.Fatal(err)
					}
					if want == 0 {
						want = got.Len()
					} else if got.Len() != want {
						b.Fatalf("%d points, want %d", got.Len(), want)
					}
				}
				b.ReportMetric(float64(s.Bytes.Load())/float64(b.N), "fetched-B/op")
			})
		}
	}
}
