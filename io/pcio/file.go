package pcio

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pctk/pctk/core"
)

// Stdio is the path that stands for standard input or standard output.
const Stdio = "-"

// Open opens path for reading ("-" is standard input) and identifies its
// format: by magic bytes first, then by extension, then by a format's Sniff
// (text clouds). For a regular file the
// reader returned is the *os.File itself, positioned at 0, so codecs can
// seek and check header counts against the file size. The caller closes rc.
func Open(path string) (f *Format, r io.Reader, rc io.Closer, err error) {
	if path == Stdio {
		f, r, err := Sniff(os.Stdin)
		if err != nil {
			return nil, nil, nil, fmt.Errorf("%s: %w", "standard input", err)
		}
		return f, r, io.NopCloser(nil), nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, nil, nil, err
	}
	head := make([]byte, sniffLen)
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
	f, err = match(head[:n])
	if err != nil {
		if g, gerr := ByExtension(path); gerr == nil {
			return g, r, fh, nil
		}
		if g := sniff(head[:n]); g != nil {
			return g, r, fh, nil
		}
		fh.Close()
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, r, fh, nil
}

// ReadFile reads a whole cloud from path ("-" for standard input). Errors
// name the path.
func ReadFile(path string) (*core.Cloud, *Format, error) { return ReadFileWith(path, nil) }

// ReadFileWith is ReadFile where bind, when not nil, gives the format to
// decode with from the one identified: the same format bound to options
// the file cannot tell (see io/text.WithOptions), or an error.
func ReadFileWith(path string, bind func(*Format) (*Format, error)) (*core.Cloud, *Format, error) {
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
	cloud, err := f.Decode(r)
	if err != nil {
		return nil, f, fmt.Errorf("%s: %w", path, err)
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

// WriteFile writes a whole cloud to path in format f and variant, atomically.
func WriteFile(path string, f *Format, variant string, c *core.Cloud) error {
	if f.Encode == nil {
		return fmt.Errorf("%s: format %s cannot be written", path, f.Name)
	}
	return WriteAtomic(path, func(w io.Writer) error { return f.Encode(w, c, variant) })
}

// WriteAtomic calls write with a writer for path and makes the result
// appear all at once: it writes a temporary file in the same folder, syncs
// it and renames it over path, so that a failure never leaves a half-written
// file. "-" writes to standard output directly.
func WriteAtomic(path string, write func(w io.Writer) error) (err error) {
	if path == Stdio {
		return write(os.Stdout)
	}
	dir, base := filepath.Split(path)
	if dir == "" {
		dir = "."
	}
	tmp, err := os.CreateTemp(dir, "."+base+".tmp*")
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if err = write(tmp); err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	if err = tmp.Sync(); err != nil {
		return err
	}
	if err = tmp.Close(); err != nil {
		return err
	}
	if fi, statErr := os.Stat(path); statErr == nil {
		_ = os.Chmod(tmp.Name(), fi.Mode().Perm())
	} else {
		_ = os.Chmod(tmp.Name(), 0o644)
	}
	return os.Rename(tmp.Name(), path)
}
