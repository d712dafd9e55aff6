package pcio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/scratch"
	"github.com/pctk/pctk/io/remote"
)

// Stdio is the path that stands for standard input or standard output.
const Stdio = "-"

// Open opens path for reading ("-" is standard input) and identifies its
// format: by magic bytes first, then by extension, then by a format's Sniff
// (text clouds). For a regular file the reader returned is the *os.File
// itself, positioned at 0, so codecs can seek and check header counts
// against the file size. A gzip or bzip2 file is read through, its
// content identified the same way (x.ply.gz by the extension .ply); the
// reader then is a stream. An http:// or https:// URL is read with range
// requests (io/remote): r is then a *remote.Reader, which seeks and reads
// at offsets as a file does, and its extension is that of the URL's path.
// The caller closes rc.
func Open(path string) (f *Format, r io.Reader, rc io.Closer, err error) {
	if remote.IsURL(path) {
		return openURL(path)
	}
	if path == Stdio {
		f, r, err := Sniff(os.Stdin)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", Name(path), err)
		}
		return f, r, io.NopCloser(nil), nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	head := make([]byte, SniffLen)
	n, err := io.ReadFull(fh, head)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		fh.Close()
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	if _, err := fh.Seek(0, io.SeekStart); err != nil {
		// Not seekable (a named pipe): read through a buffer that still
		// holds the sniffed bytes.
		r = io.MultiReader(bytes.NewReader(head[:n]), fh)
	} else {
		r = fh
	}
	f, r, err = identify(r, head[:n], path)
	if err != nil {
		fh.Close()
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, r, fh, nil
}

// openURL is Open for a URL.
func openURL(u string) (*Format, io.Reader, io.Closer, error) {
	rf, err := openRemote(u)
	if err != nil {
		return nil, nil, nil, err
	}
	head := make([]byte, min(SniffLen, rf.Size()))
	if _, err := rf.ReadAt(head, 0); err != nil {
		return nil, nil, nil, err
	}
	f, r, err := identify(rf.Reader(), head, remote.Path(u))
	if err != nil {
		return nil, nil, nil, fmt.Errorf("%s: %w", Name(u), err)
	}
	return f, r, io.NopCloser(nil), nil
}

// Name is how messages name path: "standard input" (or output) for "-",
// a URL without its query (which may hold a signature, see
// remote.Redact), else path itself.
func Name(path string) string {
	if path == Stdio {
		return "standard input"
	}
	if remote.IsURL(path) {
		return remote.Redact(path)
	}
	return path
}

// ReadFile reads a whole cloud from path ("-" for standard input) with
// the given options (at most one; none reads strictly). Errors name the
// path (see Name).
func ReadFile(path string, opts ...ReadOptions) (*core.Cloud, *Format, error) {
	return readFile(path, nil, opts...)
}

// readFile is ReadFile where bind, when not nil, gives the format to
// decode with from the one identified: the same format bound to options
// the file cannot tell (see io/text.WithOptions), or an error.
func readFile(path string, bind func(*Format) (*Format, error), opts ...ReadOptions) (*core.Cloud, *Format, error) {
	f, r, c, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
	if bind != nil {
		if f, err = bind(f); err != nil {
			return nil, nil, err
		}
	}
	cloud, err := f.Decode(r, opts...)
	if err != nil {
		return nil, f, fmt.Errorf("%s: %w", Name(path), err)
	}
	return cloud, f, nil
}

// OutputFormat picks the format for writing path: spec (a --format value)
// when given, else the extension of path. Standard output needs spec or,
// failing that, falls back to the format the data came from (from).
func OutputFormat(path, spec string, from *Format) (*Format, string, error) {
	if spec != "" {
		return Lookup(spec)
	}
	if path == Stdio {
		if from != nil && from.Encode != nil {
			return from, "", nil
		}
		return nil, "", fmt.Errorf("writing to standard output needs --format")
	}
	f, err := ByExtension(path)
	if err != nil {
		return nil, "", err
	}
	return f, "", nil
}

// WriteOptions are the choices of WriteFile and WriteAtomic. The zero value
// is the safe one.
type WriteOptions struct {
	// Force replaces a file the user may not write (one without write
	// permission), and writes binary data to standard output when it is a
	// terminal.
	Force bool
}

// ErrReadOnly is returned for an output file without any write permission
// bit, unless WriteOptions.Force.
var ErrReadOnly = errors.New("file is read-only (no write permission bit set)")

// ErrTerminal is returned when binary data would go to standard output and
// it is a terminal, unless WriteOptions.Force.
var ErrTerminal = errors.New("refusing to write binary data to a terminal: redirect standard output or write an ascii format")

// WriteFile writes a whole cloud to path in format f and variant, atomically
// (see WriteAtomic).
func WriteFile(path string, f *Format, variant string, c *core.Cloud, opts ...WriteOptions) error {
	if f.Encode == nil {
		return fmt.Errorf("format %s cannot be written", f.Name)
	}
	return WriteAtomic(path, func(w io.Writer) error { return f.Encode(w, c, variant) }, opts...)
}

// CheckOutput checks that path can be written, before any work is done: "-"
// always can, and so can a device or named pipe; otherwise the folder must
// exist and take new files, and an existing file (a symbolic link's
// target) must not be a folder, and have a write permission bit unless
// Force. Errors name path.
func CheckOutput(path string, opts ...WriteOptions) error {
	if path == Stdio {
		return nil
	}
	if err := checkOutput(resolve(path), first(opts)); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// checkOutput is CheckOutput for a path already resolved; errors do not
// name it.
func checkOutput(target string, o WriteOptions) error {
	fi, err := os.Stat(target)
	switch {
	case err == nil && fi.IsDir():
		return errors.New("is a folder")
	case err == nil && !fi.Mode().IsRegular():
		return nil // a device or a named pipe, written as it is
	case err == nil && fi.Mode().Perm()&0o222 == 0 && !o.Force:
		return ErrReadOnly
	case err != nil && !errors.Is(err, fs.ErrNotExist):
		return err
	}
	dir := filepath.Dir(target)
	if fi, err := os.Stat(dir); err != nil || !fi.IsDir() {
		return fmt.Errorf("its folder %s does not exist", dir)
	}
	tmp, err := scratch.CreateTemp(dir, filepath.Base(target), ".check")
	if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
		err = pe.Err // the temporary name is ours, not the user's
	}
	if err != nil {
		return fmt.Errorf("cannot create files in its folder %s: %w", dir, err)
	}
	tmp.Close()
	return scratch.Remove(tmp.Name())
}

// SameFile reports whether a and b name one existing regular file, by the
// same path or through symbolic or hard links: writing b would replace a.
// "-", a missing file, a device or a named pipe is never the same.
func SameFile(a, b string) bool {
	if a == Stdio || b == Stdio {
		return false
	}
	fa, err := os.Stat(a)
	if err != nil || !fa.Mode().IsRegular() {
		return false
	}
	fb, err := os.Stat(b)
	return err == nil && os.SameFile(fa, fb)
}

// first returns opts[0], or the zero value when opts is empty: options
// come as a variadic last argument, at most one of them.
func first[T any](opts []T) (o T) {
	if len(opts) > 0 {
		o = opts[0]
	}
	return o
}

// resolve follows path through symbolic links, dangling ones included, to
// the file a write should replace: writing "through" a link keeps it, as
// the shell's > does.
func resolve(path string) string {
	for range 40 { // as Linux's limit on nested links
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode()&fs.ModeSymlink == 0 {
			return path
		}
		link, err := os.Readlink(path)
		if err != nil {
			return path
		}
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(path), link)
		}
		path = link
	}
	return path
}

// WriteAtomic calls write with a writer for path and makes the result
// appear all at once: it writes a temporary file in the same folder
// (".NAME.pctk-PID-RAND.tmp", see internal/scratch: removed on failure and
// on SIGINT or SIGTERM, and by the next run after a SIGKILL), syncs it and
// renames it over path, so that a failure never leaves a half-written file. A symbolic link path is followed: its target is replaced and the
// link kept. A device or named pipe (/dev/null) is written directly. The new file keeps the old one's permissions. A path
// CheckOutput refuses is refused before write is called. "-" writes to
// standard output directly; when that is a terminal, binary data is
// refused with ErrTerminal unless Force. Errors do not name path: callers
// do, as they also name what they were writing.
func WriteAtomic(path string, write func(w io.Writer) error, opts ...WriteOptions) (err error) {
	if path == Stdio {
		if first(opts).Force || !isTerminal(os.Stdout) {
			return write(os.Stdout)
		}
		tw := &textWriter{w: os.Stdout}
		if err := write(tw); err != nil {
			return err
		}
		return tw.flush()
	}
	target := resolve(path)
	if err := checkOutput(target, first(opts)); err != nil {
		return err
	}
	if fi, err := os.Stat(target); err == nil && !fi.Mode().IsRegular() {
		return writeDevice(target, write)
	}
	tmp, err := scratch.CreateTemp(filepath.Dir(target), filepath.Base(target), ".tmp")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			scratch.Remove(tmp.Name())
		}
	}()
	if err = write(flushBehind(tmp)); err != nil {
		return err
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if fi, statErr := os.Stat(target); statErr == nil {
		_ = os.Chmod(tmp.Name(), fi.Mode().Perm())
	} else {
		_ = os.Chmod(tmp.Name(), 0o644)
	}
	return scratch.Rename(tmp.Name(), target)
}

// writeDevice writes to a device or named pipe (/dev/null, a FIFO), which
// cannot be replaced by a rename.
func writeDevice(path string, write func(w io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// textWriter passes text through to w and refuses binary data with
// ErrTerminal. It holds back the first textHold bytes, so that a binary
// file whose header is text prints nothing at all.
type textWriter struct {
	w      io.Writer
	held   []byte
	passed bool // the held bytes went out; later writes pass as they come
}

const textHold = 64 << 10

func (t *textWriter) Write(p []byte) (int, error) {
	if !isText(p) {
		return 0, ErrTerminal
	}
	if t.passed {
		return t.w.Write(p)
	}
	t.held = append(t.held, p...)
	if len(t.held) >= textHold {
		if err := t.flush(); err != nil {
			return 0, err
		}
	}
	return len(p), nil
}

// flush writes what is held back.
func (t *textWriter) flush() error {
	t.passed = true
	_, err := t.w.Write(t.held)
	t.held = nil
	return err
}

// isText reports whether p has no control bytes but tab, newline, vertical
// tab, form feed and carriage return.
func isText(p []byte) bool {
	for _, b := range p {
		if b < 0x20 && (b < '\t' || b > '\r') || b == 0x7f {
			return false
		}
	}
	return true
}
