package pcio

import (
	"context"
	"io"
	"os"
	"sync"

	"github.com/pctk/pctk/io/remote"
)

var (
	rmu        sync.Mutex
	remoteOpts remote.Options
	remotes    = map[string]*remote.File{}
)

// SetRemoteOptions sets the options (headers, warnings, progress) of the
// URLs opened from now on.
func SetRemoteOptions(o remote.Options) {
	rmu.Lock()
	defer rmu.Unlock()
	remoteOpts = o
}

// openRemote returns the remote.File of URL u, opened once per process:
// every pass over the same URL (out-of-core reads take several) reads the
// same version of the file, or fails with remote.ErrChanged.
func openRemote(u string) (*remote.File, error) {
	rmu.Lock()
	defer rmu.Unlock()
	if f, ok := remotes[u]; ok {
		return f, nil
	}
	f, err := remote.Open(context.Background(), u, remoteOpts)
	if err != nil {
		return nil, err
	}
	remotes[u] = f
	return f, nil
}

// OpenAt opens path for random access: a regular file, or an http:// or
// https:// URL read with range requests (package io/remote). ok is false,
// with nothing open, for standard input and for what is not a regular
// file (a named pipe). The caller closes c.
func OpenAt(path string) (r io.ReaderAt, size int64, c io.Closer, ok bool, err error) {
	if path == Stdio {
		return nil, 0, nil, false, nil
	}
	if remote.IsURL(path) {
		f, err := openRemote(path)
		if err != nil {
			return nil, 0, nil, false, err
		}
		return f, f.Size(), io.NopCloser(nil), true, nil
	}
	fh, err := os.Open(path)
	if err != nil {
		return nil, 0, nil, false, err
	}
	st, err := fh.Stat()
	if err != nil || !st.Mode().IsRegular() {
		fh.Close()
		return nil, 0, nil, false, err
	}
	return fh, st.Size(), fh, true, nil
}
