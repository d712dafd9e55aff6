package main

import (
	"bytes"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/io/remote/remotetest"
)

// remoteSources writes the sample in every format pctk reads into dir and
// returns the file names.
func remoteSources(t *testing.T, dir string) []string {
	t.Helper()
	names := []string{"s.las", "s.laz", "s.copc.laz", "s.ply", "a.ply", "s.pcd", "a.pcd", "c.pcd", "s.xyz"}
	formats := map[string]string{"a.ply": "ply-ascii", "a.pcd": "pcd-ascii", "c.pcd": "pcd-compressed"}
	for _, n := range names {
		args := []string{"convert", sample, filepath.Join(dir, n)}
		if f := formats[n]; f != "" {
			args = append(args, "--format", f)
		}
		pctkRun(t, 0, args...)
	}
	stl := "solid t\nfacet normal 0 0 1\nouter loop\nvertex 0 0 0\nvertex 1 0 0\nvertex 0 1 0\nendloop\nendfacet\nendsolid t\n"
	if err := os.WriteFile(filepath.Join(dir, "t.stl"), []byte(stl), 0o644); err != nil {
		t.Fatal(err)
	}
	return append(names, "t.stl")
}

// servedSources writes remoteSources into a new folder and serves it
// with the standard library's file server.
func servedSources(t *testing.T) (string, *remotetest.Server) {
	t.Helper()
	dir := t.TempDir()
	remoteSources(t, dir)
	return dir, remotetest.FileServer(t, dir)
}

// pctkOut runs pctk with args in a child process and returns its exit
// status, standard output and standard error.
func pctkOut(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := pctkCmd(t, args...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); cmd.ProcessState == nil {
		t.Fatalf("pctk %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// sameOutput converts in (a URL) and local to the same format and fails
// unless the files written are equal byte for byte.
func sameOutput(t *testing.T, out, in, local, ext string, args ...string) {
	t.Helper()
	a, b := filepath.Join(out, "remote"+ext), filepath.Join(out, "local"+ext)
	pctkRun(t, 0, append([]string{"convert", in, a}, args...)...)
	pctkRun(t, 0, append([]string{"convert", local, b}, args...)...)
	if !sameFiles(t, a, b) {
		t.Fatalf("convert %s %v: the output by URL differs from the local one", in, args)
	}
}

func TestRemoteEveryFormatEqualsLocal(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	names := remoteSources(t, dir)
	check := func(t *testing.T, base string) {
		for _, n := range names {
			ext := filepath.Ext(n)
			if ext == ".stl" {
				ext = ".las"
			}
			sameOutput(t, out, base+"/"+n, filepath.Join(dir, n), ext)
		}
		// A COPC query, and a query filtering a LAZ file.
		sameOutput(t, out, base+"/s.copc.laz", filepath.Join(dir, "s.copc.laz"), ".las", "--bounds", "-1e9,-1e9,1e9,1e9", "--level", "1")
		sameOutput(t, out, base+"/s.laz", filepath.Join(dir, "s.laz"), ".las", "--bounds", "-1e9,-1e9,1e9,1e9,0,1e9")
	}
	t.Run("file server", func(t *testing.T) { check(t, remotetest.FileServer(t, dir).URL) })
	t.Run("nginx", func(t *testing.T) { check(t, remotetest.Nginx(t, dir)) })
}

func TestRemoteCOPCBoundsReadsLittle(t *testing.T) {
	dir, out := t.TempDir(), t.TempDir()
	las, copcFile := filepath.Join(dir, "s.las"), filepath.Join(dir, "s.copc.laz")
	pctkRun(t, 0, "synth", "street", "--points", "600000", las)
	pctkRun(t, 0, "convert", las, copcFile)
	st, err := os.Stat(copcFile)
	if err != nil {
		t.Fatal(err)
	}
	s := remotetest.FileServer(t, dir)
	// The street spans X 0 to 120, Y -60 to 60: a box of 2.5% of its area, inside one leaf.
	box := "2,-58,23,-41"
	s.Reset()
	sameOutput(t, out, s.URL+"/s.copc.laz", copcFile, ".las", "--bounds", box)
	// sameOutput's first convert is the remote one; count only it.
	fetched := s.Bytes.Load()
	if fetched*3 >= st.Size() {
		t.Errorf("a box of 2.5%% of the area fetched %d of %d bytes, want under a third", fetched, st.Size())
	}
	t.Logf("box of 2.5%% of the area: %d of %d bytes fetched (%.1f%%) in %d requests", fetched, st.Size(), 100*float64(fetched)/float64(st.Size()), s.Requests.Load())
	code, stdout, stderr := pctkOut(t, "info", "--bounds", box, s.URL+"/s.copc.laz")
	if code != 0 || !strings.Contains(stderr, "the query reads") || !strings.Contains(stdout, "COPC query reads") {
		t.Errorf("pctk info --bounds URL: exit %d, stderr %q; want the query's reads told before reading", code, stderr)
	}
}

func TestRemoteErrorsExit1(t *testing.T) {
	_, s := servedSources(t)
	s.SetFault(func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if r.URL.Path == "/private.laz" {
			http.Error(w, "no", http.StatusForbidden)
			return true
		}
		return false
	})
	for _, tc := range []struct{ path, want string }{
		{"/missing.laz?sig=SECRET", "404 Not Found"},
		{"/private.laz", "403 Forbidden"},
	} {
		code, _, msg := pctkOut(t, "info", "--header", "Authorization: Bearer SECRET", s.URL+tc.path)
		path, _, _ := strings.Cut(tc.path, "?")
		if code != 1 || !strings.Contains(msg, tc.want) || !strings.Contains(msg, s.URL+path) || strings.Contains(msg, "SECRET") {
			t.Errorf("pctk info %s: exit %d, stderr %q; want exit 1 naming the URL and %s, no secret", tc.path, code, msg, tc.want)
		}
	}
	if code, _, msg := pctkOut(t, "info", "--header", "no colon SECRET", s.URL+"/s.las"); code != 2 || strings.Contains(msg, "SECRET") {
		t.Errorf("a malformed --header: exit %d, stderr %q; want 2, no secret", code, msg)
	}
}

func TestRemoteServerWithoutRange(t *testing.T) {
	dir, s := servedSources(t)
	out := t.TempDir()
	s.SetFault(remotetest.NoRange(dir))
	sameOutput(t, out, s.URL+"/s.copc.laz", filepath.Join(dir, "s.copc.laz"), ".las", "--bounds", "-1e9,-1e9,1e9,1e9")
	if code, _, stderr := pctkOut(t, "info", s.URL+"/s.laz"); code != 0 || !strings.Contains(stderr, "ignores range requests") {
		t.Errorf("pctk info on a server without Range: exit %d, stderr %q; want success with a warning", code, stderr)
	}
}

func TestRemoteFileReplacedMidRead(t *testing.T) {
	dir, s := servedSources(t)
	// Replace the file once its header has been read: the next request
	// finds another version.
	s.SetFault(func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if n == 2 {
			b, _ := os.ReadFile(filepath.Join(dir, "s.ply"))
			if err := os.WriteFile(filepath.Join(dir, "s.laz"), b, 0o644); err != nil {
				t.Error(err)
			}
			if err := fileTimePlusHour(filepath.Join(dir, "s.laz")); err != nil {
				t.Error(err)
			}
		}
		return false
	})
	if code, _, stderr := pctkOut(t, "info", s.URL+"/s.laz"); code != 1 || !strings.Contains(stderr, "changed while it was read") {
		t.Errorf("file replaced mid-read: exit %d, stderr %q; want exit 1, the file changed", code, stderr)
	}
}

// fileTimePlusHour moves path's mtime an hour ahead, so that its
// Last-Modified differs from the one first served.
func fileTimePlusHour(path string) error {
	st, err := os.Stat(path)
	if err != nil {
		return fmt.Errorf("stat: %w", err)
	}
	later := st.ModTime().Add(3600e9)
	return os.Chtimes(path, later, later)
}

// TestRemoteOutOfCore runs a filter out of core, which reads IN in several
// passes, and a tile collection of URLs (one with a query string, which is
// no glob), by URL and from the files: the same bytes.
func TestRemoteOutOfCore(t *testing.T) {
	dir, s := servedSources(t)
	out := t.TempDir()
	ooc := []string{"--eps", "6", "--max-memory", "64MiB", "--tmpdir", t.TempDir()}
	a, b := filepath.Join(out, "remote.laz"), filepath.Join(out, "local.laz")
	pctkRun(t, 0, append([]string{"dbscan", s.URL + "/s.laz", a}, ooc...)...)
	pctkRun(t, 0, append([]string{"dbscan", filepath.Join(dir, "s.laz"), b}, ooc...)...)
	if !sameFiles(t, a, b) {
		t.Error("out of core: the output by URL differs from the local one")
	}
	ra, rb := filepath.Join(out, "r")+"/", filepath.Join(out, "l")+"/"
	pctkRun(t, 0, "dbscan", "--eps", "6", s.URL+"/s.laz?v=1", s.URL+"/s.ply", ra)
	pctkRun(t, 0, "dbscan", "--eps", "6", filepath.Join(dir, "s.laz"), filepath.Join(dir, "s.ply"), rb)
	for _, n := range []string{"s.laz", "s.ply"} {
		if !sameFiles(t, filepath.Join(ra, n), filepath.Join(rb, n)) {
			t.Errorf("collection: %s by URL differs from the local one", n)
		}
	}
}

// TestRemoteHeaders reads from a server that wants a token, given by
// --header or $PCTK_HTTP_HEADER; without it the 401 exits 1.
func TestRemoteHeaders(t *testing.T) {
	_, s := servedSources(t)
	s.SetFault(func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if r.Header.Get("Authorization") != "Bearer T0KEN" || r.Header.Get("X-Extra") != "a, b" {
			http.Error(w, "who are you", http.StatusUnauthorized)
			return true
		}
		return false
	})
	url := s.URL + "/s.laz"
	if code, _, msg := pctkOut(t, "info", url); code != 1 || !strings.Contains(msg, "401 Unauthorized") {
		t.Errorf("no token: exit %d, stderr %q; want 1 and 401", code, msg)
	}
	if code, _, msg := pctkOut(t, "info", url, "--header", "Authorization: Bearer T0KEN", "--header", "X-Extra: a, b"); code != 0 {
		t.Errorf("--header: exit %d, stderr %q; want 0", code, msg)
	}
	cmd := pctkCmd(t, "info", url)
	cmd.Env = append(cmd.Env, "PCTK_HTTP_HEADER=Authorization: Bearer T0KEN\nX-Extra: a, b")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Errorf("$PCTK_HTTP_HEADER: %v, %s", err, out)
	}
}
