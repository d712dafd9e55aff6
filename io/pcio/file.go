package pcio

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/pctk/pctk/core"
)

// Stdio is the path that stands for standard input or standard output.
const Stdio = "-"

// Open opens path for reading ("-" is standard input) and identifies its
// format: by magic bytes first, then by extension. The caller closes rc.
func Open(path string) (f *Format, r io.Reader, rc io.Closer, err error) {
	var in io.ReadCloser = os.Stdin
	if path != Stdio {
		fh, err := os.Open(path)
		if err != nil {
			return nil, nil, nil, err
		}
		in = fh
	} else {
		in = io.NopCloser(os.Stdin)
	}
	f, r, err = Sniff(in)
	if err != nil && path != Stdio {
		if g, gerr := ByExtension(path); gerr == nil {
			return g, r, in, nil
		}
	}
	if err != nil {
		in.Close()
		return nil, nil, nil, fmt.Errorf("%s: %w", path, err)
	}
	return f, r, in, nil
}

// ReadFile reads a whole cloud from path ("-" for standard input). Errors
// name the path.
func ReadFile(path string) (*core.Cloud, *Format, error) {
	f, r, c, err := Open(path)
	if err != nil {
		return nil, nil, err
	}
	defer c.Close()
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
