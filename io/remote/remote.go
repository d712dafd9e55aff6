package remote

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"
)

// IsURL reports whether s is an http:// or https:// URL.
func IsURL(s string) bool {
	l := strings.ToLower(s)
	return strings.HasPrefix(l, "http://") || strings.HasPrefix(l, "https://")
}

// Path returns the path of URL s ("/data/tile.copc.laz"), for telling a
// format by its extension; s itself when it does not parse.
func Path(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return s
	}
	return u.Path
}

// Redact returns s as errors and messages name it: without user
// information, and with "?…" in place of a query, which may hold a
// presigned URL's signature.
func Redact(s string) string {
	u, err := url.Parse(s)
	if err != nil {
		return "(unparsable URL)"
	}
	u.User = nil
	q := u.RawQuery != ""
	u.RawQuery, u.Fragment = "", ""
	if q {
		return u.String() + "?…"
	}
	return u.String()
}

// Options tune a File. The zero value is usable.
type Options struct {
	// Header is sent with every request (Authorization for a private
	// bucket); its values never appear in errors.
	Header http.Header
	// Client sends the requests; nil uses a client of the package's own.
	Client *http.Client
	// Parallel is the number of requests in flight at once (default 4).
	Parallel int
	// Retries is how many times a request is tried again after a 5xx,
	// 408 or 429 answer or a broken connection (default 4; negative: none).
	Retries int
	// Backoff is the wait before the first retry, doubling at each
	// (default 100ms).
	Backoff time.Duration
	// HeadAhead is how many bytes the first request and every small read
	// fetch (default 64 KiB).
	HeadAhead int
	// Warn receives what was read past: a server that ignores Range.
	Warn func(msg string)
	// Progress, when set, is called with the bytes fetched so far, from
	// any goroutine.
	Progress func(fetched int64)
}

const (
	defaultParallel  = 4
	defaultRetries   = 4
	defaultBackoff   = 100 * time.Millisecond
	defaultHeadAhead = 64 << 10
	// smallRead is the read below which HeadAhead bytes are fetched and
	// cached: headers, VLRs, hierarchy pages.
	smallRead = 16 << 10
	// cacheBlocks is how many HeadAhead blocks the cache keeps.
	cacheBlocks = 16
	// maxMerge bounds the bytes of one merged request.
	maxMerge = 32 << 20
	// copyBuf is the buffer a request's body is read through.
	copyBuf = 256 << 10
)

var defaultClient = &http.Client{Transport: &http.Transport{
	Proxy:               http.ProxyFromEnvironment,
	MaxIdleConnsPerHost: 16,
	IdleConnTimeout:     90 * time.Second,
	ForceAttemptHTTP2:   true,
}}

// ErrChanged is wrapped by the error of a read that found the file
// changed since it was opened (another ETag, Last-Modified or size).
var ErrChanged = errors.New("the file changed while it was read")

// Error is a request that failed: the URL (redacted, see Redact), the
// range asked for, the HTTP status (0 when no answer came) and why.
type Error struct {
	URL    string
	Range  string
	Status int
	Err    error
}

func (e *Error) Error() string {
	s := "remote: GET " + e.URL
	if e.Range != "" {
		s += " (" + e.Range + ")"
	}
	switch {
	case e.Status != 0 && e.Err != nil:
		return fmt.Sprintf("%s: %d %s: %v", s, e.Status, http.StatusText(e.Status), e.Err)
	case e.Status != 0:
		return fmt.Sprintf("%s: %d %s", s, e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("%s: %v", s, e.Err)
}

func (e *Error) Unwrap() error { return e.Err }

// File is a remote file read with range requests. Its ReadAt is safe for
// concurrent use.
type File struct {
	url, name string
	o         Options
	client    *http.Client
	size      int64
	etag      string // strong or weak, as the server sent it
	modified  string // Last-Modified
	spool     *os.File

	fetched, requests atomic.Int64

	mu      sync.Mutex
	pending []*request
	running int
	cache   []block // most recent last
}

// block is a cached extent of the file.
type block struct {
	off int64
	b   []byte
}

// Open starts reading the file at URL u: one request for its first
// HeadAhead bytes, which tells its size and version. ctx bounds Open only.
func Open(ctx context.Context, u string, o Options) (*File, error) {
	if !IsURL(u) {
		return nil, fmt.Errorf("remote: %q is not an http:// or https:// URL", Redact(u))
	}
	if _, err := url.Parse(u); err != nil {
		return nil, fmt.Errorf("remote: %s: %w", Redact(u), errors.Unwrap(err))
	}
	if o.Parallel <= 0 {
		o.Parallel = defaultParallel
	}
	if o.Retries == 0 {
		o.Retries = defaultRetries
	}
	if o.Backoff <= 0 {
		o.Backoff = defaultBackoff
	}
	if o.HeadAhead <= 0 {
		o.HeadAhead = defaultHeadAhead
	}
	f := &File{url: u, name: Redact(u), o: o, client: o.Client, size: -1}
	if f.client == nil {
		f.client = defaultClient
	}
	head := make([]byte, o.HeadAhead)
	n, err := f.get(ctx, head, 0, true)
	if err != nil {
		if f.spool != nil {
			f.spool.Close()
		}
		return nil, err
	}
	if f.spool == nil && n > 0 {
		f.cache = append(f.cache, block{0, head[:n]})
	}
	return f, nil
}

// Size returns the file's size in bytes.
func (f *File) Size() int64 { return f.size }

// Name returns the URL as messages name it (see Redact).
func (f *File) Name() string { return f.name }

// Fetched returns the bytes received so far (bodies only).
func (f *File) Fetched() int64 { return f.fetched.Load() }

// Requests returns the requests sent so far, retries included.
func (f *File) Requests() int64 { return f.requests.Load() }

// Close releases the temporary file of a server that ignores Range.
func (f *File) Close() error {
	if f.spool != nil {
		return f.spool.Close()
	}
	return nil
}

// ReadAt reads len(p) bytes at off, as io.ReaderAt: fewer only at the end
// of the file, with io.EOF.
func (f *File) ReadAt(p []byte, off int64) (int, error) {
	if off < 0 {
		return 0, fmt.Errorf("remote: %s: negative offset %d", f.name, off)
	}
	if off >= f.size {
		return 0, io.EOF
	}
	want := p
	if rest := f.size - off; int64(len(p)) > rest {
		want = p[:rest]
	}
	if err := f.readAt(want, off); err != nil {
		return 0, err
	}
	if len(want) < len(p) {
		return len(want), io.EOF
	}
	return len(p), nil
}

// readAt fills p (inside the file) from the spool, the cache or requests.
func (f *File) readAt(p []byte, off int64) error {
	if f.spool != nil {
		_, err := f.spool.ReadAt(p, off)
		return err
	}
	if f.cached(p, off) {
		return nil
	}
	if len(p) >= smallRead {
		return f.fetch(p, off)
	}
	b := make([]byte, min(int64(max(f.o.HeadAhead, len(p))), f.size-off))
	if err := f.fetch(b, off); err != nil {
		return err
	}
	copy(p, b)
	f.mu.Lock()
	if len(f.cache) == cacheBlocks {
		f.cache = append(f.cache[:0], f.cache[1:]...)
	}
	f.cache = append(f.cache, block{off, b})
	f.mu.Unlock()
	return nil
}

// cached copies p from a cached block that holds all of it.
func (f *File) cached(p []byte, off int64) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.cache) - 1; i >= 0; i-- {
		c := f.cache[i]
		if off >= c.off && off+int64(len(p)) <= c.off+int64(len(c.b)) {
			copy(p, c.b[off-c.off:])
			return true
		}
	}
	return false
}

// request is one range a caller waits for.
type request struct {
	off  int64
	p    []byte
	err  error
	done chan struct{}
}

func (r *request) end() int64 { return r.off + int64(len(r.p)) }

// fetch fills p with the bytes at off through the pool of requests.
func (f *File) fetch(p []byte, off int64) error {
	r := &request{off: off, p: p, done: make(chan struct{})}
	f.mu.Lock()
	f.pending = append(f.pending, r)
	if f.running < f.o.Parallel {
		f.running++
		go f.worker()
	}
	f.mu.Unlock()
	<-r.done
	return r.err
}

// worker sends requests while ranges wait, each for the oldest range and
// the waiting ones that touch it.
func (f *File) worker() {
	for {
		f.mu.Lock()
		if len(f.pending) == 0 {
			f.running--
			f.mu.Unlock()
			return
		}
		batch := f.takeBatch()
		f.mu.Unlock()
		lo, hi := batch[0].off, batch[0].end()
		for _, r := range batch[1:] {
			lo, hi = min(lo, r.off), max(hi, r.end())
		}
		err := f.getBatch(batch, lo, hi)
		for _, r := range batch {
			r.err = err
			close(r.done)
		}
	}
}

// takeBatch removes from f.pending the oldest range and every waiting
// range that touches or overlaps the growing extent, up to maxMerge bytes.
// f.mu is held.
func (f *File) takeBatch() []*request {
	batch := []*request{f.pending[0]}
	lo, hi := f.pending[0].off, f.pending[0].end()
	rest := f.pending[1:]
	for grew := true; grew; {
		grew = false
		for i := 0; i < len(rest); i++ {
			r := rest[i]
			if r.off <= hi && r.end() >= lo && max(hi, r.end())-min(lo, r.off) <= maxMerge {
				batch = append(batch, r)
				lo, hi = min(lo, r.off), max(hi, r.end())
				rest = append(rest[:i], rest[i+1:]...)
				i--
				grew = true
			}
		}
	}
	f.pending = append(f.pending[:0], rest...)
	return batch
}

// getBatch fetches bytes lo to hi with one request (and its retries) and
// copies them into every range of batch.
func (f *File) getBatch(batch []*request, lo, hi int64) error {
	if len(batch) == 1 {
		_, err := f.get(context.Background(), batch[0].p, lo, false)
		return err
	}
	buf := make([]byte, hi-lo)
	if _, err := f.get(context.Background(), buf, lo, false); err != nil {
		return err
	}
	for _, r := range batch {
		copy(r.p, buf[r.off-lo:])
	}
	return nil
}

// get fills p with the bytes at off, retrying what can be retried; a
// broken body resumes where it stopped. With first (Open), the answer sets
// the file's size and version, and a 200 answer spools the whole file; n
// is then the bytes of p filled (the file may be shorter than p).
func (f *File) get(ctx context.Context, p []byte, off int64, first bool) (n int, err error) {
	for attempt := 0; ; attempt++ {
		k, retry, err := f.try(ctx, p[n:], off+int64(n), first)
		n += k
		if err == nil {
			return n, nil
		}
		if !retry || attempt >= f.o.Retries {
			e := &Error{URL: f.name, Range: rangeText(off, len(p)), Err: err}
			var se *statusError
			if errors.As(err, &se) {
				e.Status, e.Err = se.status, se.err
			}
			if errors.Is(e.Err, io.EOF) || errors.Is(e.Err, io.ErrUnexpectedEOF) {
				// A connection that ended early is no end of the file:
				// readers must not take it for one.
				e.Err = errors.New(e.Err.Error())
			}
			if attempt > 0 {
				if e.Err == nil {
					e.Err = fmt.Errorf("after %d attempts", attempt+1)
				} else {
					e.Err = fmt.Errorf("after %d attempts: %w", attempt+1, e.Err)
				}
			}
			return n, e
		}
		t := time.NewTimer(f.o.Backoff << min(attempt, 16))
		select {
		case <-ctx.Done():
			t.Stop()
			return n, &Error{URL: f.name, Range: rangeText(off, len(p)), Err: ctx.Err()}
		case <-t.C:
		}
	}
}

// statusError is an HTTP answer that is not what was asked for: its
// status, and why when the status alone does not say.
type statusError struct {
	status int
	err    error
}

func (e *statusError) Error() string {
	if e.err != nil {
		return e.err.Error()
	}
	return http.StatusText(e.status)
}

func (e *statusError) Unwrap() error { return e.err }

func rangeText(off int64, n int) string {
	return fmt.Sprintf("bytes %d-%d", off, off+int64(n)-1)
}

// try sends one request for p at off and reads its body into p; k is the
// bytes read, retry whether another try may succeed.
func (f *File) try(ctx context.Context, p []byte, off int64, first bool) (k int, retry bool, err error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, f.url, nil)
	if err != nil {
		return 0, false, errors.Unwrap(err)
	}
	for name, vs := range f.o.Header {
		req.Header[name] = vs
	}
	req.Header.Set("Range", fmt.Sprintf("bytes=%d-%d", off, off+int64(len(p))-1))
	switch {
	case first:
	case f.etag != "" && !strings.HasPrefix(f.etag, "W/"):
		req.Header.Set("If-Match", f.etag)
	case f.etag == "" && f.modified != "":
		req.Header.Set("If-Unmodified-Since", f.modified)
	}
	f.requests.Add(1)
	resp, err := f.client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // *url.Error repeats the whole URL, query included
		}
		return 0, ctx.Err() == nil, err
	}
	defer resp.Body.Close()
	switch {
	case resp.StatusCode == http.StatusPartialContent:
	case resp.StatusCode == http.StatusOK && first && off == 0 && f.size < 0:
		// The first answer, the whole file: the server ignores Range.
		return f.spoolBody(resp, p)
	case resp.StatusCode == http.StatusOK:
		return 0, false, &statusError{resp.StatusCode, errors.New("the server answered a range request with the whole file")}
	case resp.StatusCode == http.StatusRequestedRangeNotSatisfiable && first:
		// Only an empty file has no byte 0.
		if _, total, ok := parseContentRange(resp.Header.Get("Content-Range")); ok && total == 0 {
			f.size = 0
			f.setVersion(resp)
			return 0, false, nil
		}
		return 0, false, &statusError{status: resp.StatusCode}
	case resp.StatusCode == http.StatusPreconditionFailed:
		return 0, false, &statusError{resp.StatusCode, fmt.Errorf("%w (the server says it no longer matches %s)", ErrChanged, f.versionText())}
	case resp.StatusCode >= 500, resp.StatusCode == http.StatusRequestTimeout, resp.StatusCode == http.StatusTooManyRequests:
		io.Copy(io.Discard, io.LimitReader(resp.Body, 4096))
		return 0, true, &statusError{status: resp.StatusCode}
	default:
		return 0, false, &statusError{status: resp.StatusCode}
	}
	start, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
	if !ok || start != off {
		return 0, false, &statusError{resp.StatusCode, fmt.Errorf("Content-Range %q does not answer the range asked for", resp.Header.Get("Content-Range"))}
	}
	if first && f.size < 0 {
		f.size = total
		f.setVersion(resp)
	} else if err := f.sameVersion(resp, total); err != nil {
		return 0, false, err
	}
	if first {
		p = p[:min(int64(len(p)), max(f.size-off, 0))]
	}
	k, err = f.readBody(resp.Body, p)
	if err != nil {
		return k, ctx.Err() == nil, fmt.Errorf("the answer broke off after %d of %d bytes: %w", k, len(p), err)
	}
	return k, false, nil
}

// readBody reads len(p) bytes of body into p, counting them.
func (f *File) readBody(body io.Reader, p []byte) (int, error) {
	k := 0
	for k < len(p) {
		m, err := body.Read(p[k:min(len(p), k+copyBuf)])
		k += m
		f.count(int64(m))
		if err != nil {
			if k == len(p) && errors.Is(err, io.EOF) {
				break
			}
			if errors.Is(err, io.EOF) {
				err = io.ErrUnexpectedEOF
			}
			return k, err
		}
	}
	return k, nil
}

func (f *File) count(n int64) {
	if n == 0 {
		return
	}
	t := f.fetched.Add(n)
	if f.o.Progress != nil {
		f.o.Progress(t)
	}
}

// spoolBody reads the whole file of a server that ignored Range into an
// unlinked temporary file, and fills p with its first bytes.
func (f *File) spoolBody(resp *http.Response, p []byte) (int, bool, error) {
	if f.o.Warn != nil {
		f.o.Warn(fmt.Sprintf("%s: the server ignores range requests; reading the whole file in one stream", f.name))
	}
	tmp, err := os.CreateTemp("", "pctk-remote-*")
	if err != nil {
		return 0, false, err
	}
	os.Remove(tmp.Name())
	n, err := io.CopyBuffer(tmp, &countReader{resp.Body, f}, make([]byte, copyBuf))
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("the answer broke off after %d of %d bytes: %w", n, resp.ContentLength, io.ErrUnexpectedEOF)
	}
	if err != nil {
		tmp.Close()
		// The file is fetched whole again, from its start.
		f.fetched.Add(-n)
		return 0, true, err
	}
	f.spool, f.size = tmp, n
	f.setVersion(resp)
	k, _ := tmp.ReadAt(p, 0)
	return k, false, nil
}

// countReader counts the bytes read through it as fetched.
type countReader struct {
	r io.Reader
	f *File
}

func (c *countReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.f.count(int64(n))
	return n, err
}

func (f *File) setVersion(resp *http.Response) {
	f.etag, f.modified = resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
}

func (f *File) versionText() string {
	if f.etag != "" {
		return "ETag " + f.etag
	}
	return "Last-Modified " + f.modified
}

// sameVersion checks that an answer is of the file opened.
func (f *File) sameVersion(resp *http.Response, total int64) error {
	etag, mod := resp.Header.Get("ETag"), resp.Header.Get("Last-Modified")
	switch {
	case total != f.size:
		return &statusError{resp.StatusCode, fmt.Errorf("%w: %d bytes, then %d", ErrChanged, f.size, total)}
	case f.etag != "" && etag != f.etag:
		return &statusError{resp.StatusCode, fmt.Errorf("%w: ETag %s, then %s", ErrChanged, f.etag, etag)}
	case f.etag == "" && f.modified != "" && mod != f.modified:
		return &statusError{resp.StatusCode, fmt.Errorf("%w: Last-Modified %s, then %s", ErrChanged, f.modified, mod)}
	}
	return nil
}

// parseContentRange parses "bytes START-END/TOTAL" (or "bytes */TOTAL").
func parseContentRange(s string) (start, total int64, ok bool) {
	rest, ok := strings.CutPrefix(s, "bytes ")
	if !ok {
		return 0, 0, false
	}
	rng, tot, ok := strings.Cut(rest, "/")
	if !ok {
		return 0, 0, false
	}
	total, err := strconv.ParseInt(tot, 10, 64)
	if err != nil || total < 0 {
		return 0, 0, false
	}
	if rng == "*" {
		return 0, total, true
	}
	a, b, ok := strings.Cut(rng, "-")
	if !ok {
		return 0, 0, false
	}
	start, err1 := strconv.ParseInt(a, 10, 64)
	end, err2 := strconv.ParseInt(b, 10, 64)
	if err1 != nil || err2 != nil || start < 0 || end < start || end >= total {
		return 0, 0, false
	}
	return start, total, true
}
