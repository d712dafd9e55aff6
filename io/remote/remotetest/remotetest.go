// Package remotetest serves files to tests of remote reading over real
// HTTP servers on loopback ports: the standard library's file server
// (Range, If-Unmodified-Since) behind a counting, fault-injecting
// handler, and nginx from Debian, started with a configuration in a
// temporary folder (skipped with a message when absent, a failure when
// CI=true).
package remotetest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Server is a file server on a loopback port that counts what it sends
// and can be told to fail.
type Server struct {
	*httptest.Server
	// Bytes is the body bytes sent, Requests the requests answered.
	Bytes, Requests atomic.Int64

	mu sync.Mutex
	// Fault, when set, sees each request (n counts from 1) before the
	// file server: it returns true when it answered the request itself.
	fault func(w http.ResponseWriter, r *http.Request, n int64) bool
}

// FileServer serves the files of dir at URL s.URL + "/name".
func FileServer(t testing.TB, dir string) *Server {
	s := &Server{}
	fs := http.FileServer(http.Dir(dir))
	s.Server = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := s.Requests.Add(1)
		cw := &countWriter{ResponseWriter: w, n: &s.Bytes}
		s.mu.Lock()
		fault := s.fault
		s.mu.Unlock()
		if fault != nil && fault(cw, r, n) {
			return
		}
		fs.ServeHTTP(cw, r)
	}))
	t.Cleanup(s.Close)
	return s
}

// SetFault sets the fault hook (nil: none).
func (s *Server) SetFault(f func(w http.ResponseWriter, r *http.Request, n int64) bool) {
	s.mu.Lock()
	s.fault = f
	s.mu.Unlock()
}

// Reset zeroes the counters.
func (s *Server) Reset() {
	s.Bytes.Store(0)
	s.Requests.Store(0)
}

type countWriter struct {
	http.ResponseWriter
	n *atomic.Int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	k, err := c.ResponseWriter.Write(p)
	c.n.Add(int64(k))
	return k, err
}

// NoRange answers every GET with the whole file and status 200, as a
// server without Range support does.
func NoRange(dir string) func(w http.ResponseWriter, r *http.Request, n int64) bool {
	return func(w http.ResponseWriter, r *http.Request, n int64) bool {
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(r.URL.Path)))
		if err != nil {
			http.NotFound(w, r)
			return true
		}
		w.Header().Set("Content-Length", fmt.Sprint(len(b)))
		w.WriteHeader(http.StatusOK)
		w.Write(b)
		return true
	}
}

// Nginx starts nginx serving dir on a loopback port and returns its base
// URL; it stops with the test. Without nginx the test is skipped, or
// fails when CI=true (.ci/deps/nginx.sh installs it).
func Nginx(t testing.TB, dir string) string {
	t.Helper()
	bin, err := exec.LookPath("nginx")
	if err != nil {
		if _, serr := os.Stat("/usr/sbin/nginx"); serr != nil {
			if os.Getenv("CI") == "true" {
				t.Fatal("nginx not found; .ci/deps/nginx.sh installs it")
			}
			t.Skip("nginx not found (Debian package nginx; .ci/deps/nginx.sh installs it)")
		}
		bin = "/usr/sbin/nginx"
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := l.Addr().String()
	l.Close()
	tmp := t.TempDir()
	conf := filepath.Join(tmp, "nginx.conf")
	text := fmt.Sprintf(`daemon off;
master_process off;
pid %[1]s/nginx.pid;
error_log %[1]s/error.log;
events { worker_connections 64; }
http {
	access_log off;
	client_body_temp_path %[1]s/body;
	proxy_temp_path %[1]s/proxy;
	fastcgi_temp_path %[1]s/fastcgi;
	uwsgi_temp_path %[1]s/uwsgi;
	scgi_temp_path %[1]s/scgi;
	server {
		listen %[2]s;
		root %[3]s;
	}
}
`, tmp, addr, dir)
	if err := os.WriteFile(conf, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "-c", conf, "-p", tmp, "-e", filepath.Join(tmp, "error.log"))
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
	})
	for deadline := time.Now().Add(5 * time.Second); ; {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			break
		}
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(tmp, "error.log"))
			t.Fatalf("nginx did not start on %s: %s", addr, log)
		}
		time.Sleep(20 * time.Millisecond)
	}
	return "http://" + addr
}
