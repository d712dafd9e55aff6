package remote

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/pctk/pctk/io/remote/remotetest"
)

// testFile writes n seeded random bytes to dir/name and returns them.
func testFile(t testing.TB, dir, name string, n int, seed uint64) []byte {
	t.Helper()
	b := make([]byte, n)
	r := rand.New(rand.NewPCG(seed, 1))
	for i := range b {
		b[i] = byte(r.Uint32())
	}
	if err := os.WriteFile(filepath.Join(dir, name), b, 0o644); err != nil {
		t.Fatal(err)
	}
	return b
}

var fast = Options{Backoff: time.Millisecond}

// checkReads reads want through f: random ReadAt calls from several
// goroutines, then a sequential read with seeks, comparing every byte.
func checkReads(t *testing.T, f *File, want []byte) {
	t.Helper()
	if f.Size() != int64(len(want)) {
		t.Fatalf("Size %d, want %d", f.Size(), len(want))
	}
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			r := rand.New(rand.NewPCG(uint64(g), 2))
			for range 20 {
				off := r.Int64N(int64(len(want)) + 10)
				n := []int{1, 100, 5000, 20000, 300000}[r.IntN(5)]
				p := make([]byte, n)
				k, err := f.ReadAt(p, off)
				end := min(off+int64(n), int64(len(want)))
				wantN := int(max(end-off, 0))
				if k != wantN || !bytes.Equal(p[:k], want[min(off, int64(len(want))):end]) {
					errs <- errors.New("ReadAt bytes differ")
					return
				}
				if k < n && !errors.Is(err, io.EOF) || k == n && err != nil {
					errs <- err
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("ReadAt at random offsets: %v", err)
	}
	r := f.Reader()
	got, err := io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want) {
		t.Fatalf("sequential read: %d bytes, err %v; want the file's %d bytes", len(got), err, len(want))
	}
	if _, err := r.Seek(int64(len(want))/3, io.SeekStart); err != nil {
		t.Fatal(err)
	}
	got, err = io.ReadAll(r)
	if err != nil || !bytes.Equal(got, want[len(want)/3:]) {
		t.Fatalf("read after a seek: %d bytes, err %v; want %d", len(got), err, len(want)-len(want)/3)
	}
}

func TestReadsEqualTheFile(t *testing.T) {
	dir := t.TempDir()
	for _, n := range []int{0, 1, 1000, 70000, 3 << 20} {
		want := testFile(t, dir, "f", n, uint64(n))
		s := remotetest.FileServer(t, dir)
		f, err := Open(context.Background(), s.URL+"/f", fast)
		if err != nil {
			t.Fatal(err)
		}
		checkReads(t, f, want)
	}
}

func TestNginx(t *testing.T) {
	dir := t.TempDir()
	want := testFile(t, dir, "f.bin", 2<<20+12345, 7)
	base := remotetest.Nginx(t, dir)
	f, err := Open(context.Background(), base+"/f.bin", fast)
	if err != nil {
		t.Fatal(err)
	}
	if f.etag == "" {
		t.Errorf("nginx sent no ETag; the file's version is checked by Last-Modified %q", f.modified)
	}
	checkReads(t, f, want)
	if _, err := Open(context.Background(), base+"/missing.bin", fast); !isStatus(err, 404) {
		t.Errorf("missing file on nginx: %v, want a 404 *Error", err)
	}
	// nginx answers If-Match with 412 once the file is replaced.
	replace(t, dir, "f.bin", 2<<20+12345)
	if _, err := f.ReadAt(make([]byte, 100000), 1<<20); !errors.Is(err, ErrChanged) {
		t.Errorf("read after the file was replaced: %v, want ErrChanged", err)
	}
}

func isStatus(err error, status int) bool {
	var e *Error
	return errors.As(err, &e) && e.Status == status
}

// replace writes new bytes of size n to dir/name, with a later mtime.
func replace(t *testing.T, dir, name string, n int) {
	t.Helper()
	testFile(t, dir, name, n, 99)
	later := time.Now().Add(time.Hour)
	if err := os.Chtimes(filepath.Join(dir, name), later, later); err != nil {
		t.Fatal(err)
	}
}

func TestRetriesServerErrors(t *testing.T) {
	dir := t.TempDir()
	want := testFile(t, dir, "f", 200000, 3)
	s := remotetest.FileServer(t, dir)
	s.SetFault(func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if n <= 2 {
			http.Error(w, "try later", http.StatusInternalServerError)
			return true
		}
		return false
	})
	f, err := Open(context.Background(), s.URL+"/f", fast)
	if err != nil {
		t.Fatalf("500 twice then 206: %v", err)
	}
	if got := s.Requests.Load(); got != 3 {
		t.Errorf("Open sent %d requests, want 3 (two answered 500)", got)
	}
	checkReads(t, f, want)

	// Always 503: the error names the URL, the status and the attempts.
	s.SetFault(func(w http.ResponseWriter, r *http.Request, n int64) bool {
		http.Error(w, "down", http.StatusServiceUnavailable)
		return true
	})
	_, err = Open(context.Background(), s.URL+"/f", Options{Backoff: time.Millisecond, Retries: 2})
	if !isStatus(err, 503) || !strings.Contains(err.Error(), s.URL+"/f") || !strings.Contains(err.Error(), "after 3 attempts") {
		t.Errorf("always 503: %v, want a 503 *Error naming the URL after 3 attempts", err)
	}
}

func TestBrokenConnectionResumes(t *testing.T) {
	dir := t.TempDir()
	want := testFile(t, dir, "f", 1<<20, 4)
	s := remotetest.FileServer(t, dir)
	f, err := Open(context.Background(), s.URL+"/f", fast)
	if err != nil {
		t.Fatal(err)
	}
	// The next answer sends half of what it promises, then breaks off.
	s.SetFault(func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if n != 2 {
			return false
		}
		var start, end int64
		if _, err := fmt.Sscanf(r.Header.Get("Range"), "bytes=%d-%d", &start, &end); err != nil {
			return false
		}
		w.Header().Set("Content-Range", fmt.Sprintf("bytes %d-%d/%d", start, end, len(want)))
		w.Header().Set("Content-Length", fmt.Sprint(end-start+1))
		w.Header().Set("Last-Modified", r.Header.Get("If-Unmodified-Since"))
		w.WriteHeader(http.StatusPartialContent)
		w.Write(want[start : start+(end-start)/2])
		panic(http.ErrAbortHandler)
	})
	p := make([]byte, 500000)
	if _, err := f.ReadAt(p, 300000); err != nil || !bytes.Equal(p, want[300000:800000]) {
		t.Fatalf("read through a broken answer: err %v, bytes equal %v", err, bytes.Equal(p, want[300000:800000]))
	}
	if got := s.Requests.Load(); got != 3 {
		t.Errorf("%d requests, want 3 (open, broken, resumed)", got)
	}
}

func TestClientErrorsNameURLAndStatus(t *testing.T) {
	dir := t.TempDir()
	testFile(t, dir, "f", 1000, 5)
	s := remotetest.FileServer(t, dir)
	s.SetFault(func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if strings.HasSuffix(r.URL.Path, "/private") {
			http.Error(w, "no", http.StatusForbidden)
			return true
		}
		return false
	})
	hdr := http.Header{"Authorization": {"Bearer SECRET-TOKEN"}}
	for _, tc := range []struct {
		path   string
		status int
	}{{"/missing?X-Amz-Signature=SECRET-SIG", 404}, {"/private", 403}} {
		s.Reset()
		_, err := Open(context.Background(), s.URL+tc.path, Options{Header: hdr, Backoff: time.Millisecond})
		if !isStatus(err, tc.status) {
			t.Fatalf("%s: %v, want status %d", tc.path, err, tc.status)
		}
		msg := err.Error()
		path, _, _ := strings.Cut(tc.path, "?")
		if !strings.Contains(msg, s.URL+path) || !strings.Contains(msg, http.StatusText(tc.status)) {
			t.Errorf("%s: %q does not name the URL and the status", tc.path, msg)
		}
		if strings.Contains(msg, "SECRET") {
			t.Errorf("%s: %q echoes a secret", tc.path, msg)
		}
		if got := s.Requests.Load(); got != 1 {
			t.Errorf("%s: %d requests, want 1 (4xx is not retried)", tc.path, got)
		}
	}
}

func TestChangedFileIsAnError(t *testing.T) {
	dir := t.TempDir()
	testFile(t, dir, "f", 1<<20, 6)
	s := remotetest.FileServer(t, dir)
	f, err := Open(context.Background(), s.URL+"/f", fast)
	if err != nil {
		t.Fatal(err)
	}
	replace(t, dir, "f", 1<<20)
	_, err = f.ReadAt(make([]byte, 100000), 500000)
	if !errors.Is(err, ErrChanged) || !isStatus(err, http.StatusPreconditionFailed) {
		t.Errorf("replaced file: %v, want ErrChanged with 412", err)
	}
	// A server that ignores If-Unmodified-Since still sends the new
	// Last-Modified, or another size.
	s.SetFault(func(w http.ResponseWriter, r *http.Request, n int64) bool {
		r.Header.Del("If-Unmodified-Since")
		return false
	})
	for _, n := range []int{1 << 20, 1<<20 + 1} {
		replace(t, dir, "f", n)
		if _, err = f.ReadAt(make([]byte, 100000), 500000); !errors.Is(err, ErrChanged) {
			t.Errorf("replaced file of %d bytes, precondition ignored: %v, want ErrChanged", n, err)
		}
	}
}

func TestServerWithoutRange(t *testing.T) {
	dir := t.TempDir()
	want := testFile(t, dir, "f", 1<<20+7, 8)
	s := remotetest.FileServer(t, dir)
	s.SetFault(remotetest.NoRange(dir))
	var warned []string
	f, err := Open(context.Background(), s.URL+"/f", Options{Warn: func(m string) { warned = append(warned, m) }})
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if len(warned) != 1 || !strings.Contains(warned[0], "ignores range requests") {
		t.Errorf("warnings %q, want one about range requests", warned)
	}
	checkReads(t, f, want)
	if got := s.Requests.Load(); got != 1 {
		t.Errorf("%d requests, want 1: the file is read once", got)
	}
}

func TestAdjacentRangesMerge(t *testing.T) {
	dir := t.TempDir()
	want := testFile(t, dir, "f", 1<<20, 9)
	s := remotetest.FileServer(t, dir)
	f, err := Open(context.Background(), s.URL+"/f", Options{Parallel: 1, Backoff: time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	// Hold the first range request until seven more wait behind it.
	release := make(chan struct{})
	s.SetFault(func(w http.ResponseWriter, r *http.Request, n int64) bool {
		if n == 2 {
			<-release
		}
		return false
	})
	const part = 100000
	got := make([]byte, 8*part)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := f.ReadAt(got[i*part:(i+1)*part], int64(100000+i*part)); err != nil {
				t.Error(err)
			}
		})
		if i == 0 {
			for f.Requests() < 2 {
				time.Sleep(time.Millisecond)
			}
		}
	}
	for {
		f.mu.Lock()
		n := len(f.pending)
		f.mu.Unlock()
		if n == 7 {
			break
		}
		time.Sleep(time.Millisecond)
	}
	close(release)
	wg.Wait()
	if !bytes.Equal(got, want[100000:100000+8*part]) {
		t.Fatal("merged reads differ from the file")
	}
	if n := f.Requests(); n != 3 {
		t.Errorf("%d requests, want 3: open, the first range, the seven waiting ones merged", n)
	}
}

func TestParseContentRange(t *testing.T) {
	for _, tc := range []struct {
		s            string
		start, total int64
		ok           bool
	}{
		{"bytes 0-99/1000", 0, 1000, true},
		{"bytes 10-10/11", 10, 11, true},
		{"bytes */0", 0, 0, true},
		{"bytes 10-9/100", 0, 0, false},
		{"bytes 0-100/100", 0, 0, false},
		{"bytes 0-9/*", 0, 0, false},
		{"items 0-9/10", 0, 0, false},
		{"bytes -1-9/10", 0, 0, false},
	} {
		start, total, ok := parseContentRange(tc.s)
		if start != tc.start || total != tc.total || ok != tc.ok {
			t.Errorf("parseContentRange(%q) = %d, %d, %v; want %d, %d, %v", tc.s, start, total, ok, tc.start, tc.total, tc.ok)
		}
	}
}

func TestRedact(t *testing.T) {
	for in, want := range map[string]string{
		"https://user:pw@host/a/b.laz":              "https://host/a/b.laz",
		"https://host/b.laz?X-Amz-Signature=abc":    "https://host/b.laz?…",
		"http://127.0.0.1:8080/x.copc.laz#frag":     "http://127.0.0.1:8080/x.copc.laz",
		"https://acct.blob.core.windows.net/c/f?sv": "https://acct.blob.core.windows.net/c/f?…",
	} {
		if got := Redact(in); got != want {
			t.Errorf("Redact(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestParseHeader(t *testing.T) {
	h, err := ParseHeader([]string{"authorization: Bearer a,b", "", "X-Two:  v1 ", "x-two: v2"})
	if err != nil {
		t.Fatal(err)
	}
	if got := h.Get("Authorization"); got != "Bearer a,b" {
		t.Errorf("Authorization %q, want %q", got, "Bearer a,b")
	}
	if got := h.Values("X-Two"); len(got) != 2 || got[0] != "v1" || got[1] != "v2" {
		t.Errorf("X-Two %q, want [v1 v2]", got)
	}
	for _, bad := range []string{"no colon SECRET", ": SECRET", "Two Words: SECRET"} {
		_, err := ParseHeader([]string{bad})
		if err == nil || strings.Contains(err.Error(), "SECRET") {
			t.Errorf("ParseHeader(%q): %v, want an error that does not quote the line", bad, err)
		}
	}
}
