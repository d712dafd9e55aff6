package pcio

import (
	"io"
	"os"

	"golang.org/x/sys/unix"
)

// writeBehind is how many bytes WriteAtomic's temporary file takes between
// two starts of its write-back.
const writeBehind = 8 << 20

// flushBehind returns f as the writer WriteAtomic hands its caller: every
// writeBehind bytes written through Write, it asks the kernel to start
// writing the file's dirty pages to disk (sync_file_range with
// SYNC_FILE_RANGE_WRITE, which queues the writes without waiting for them
// to finish), so that the disk works while the rest is being encoded and
// the sync before the rename finds less to do: on this project's
// development VM the sync of a 38 MB LAS took 50 ms after the write, a
// quarter of a whole `pctk convert` (docs/io.md, "Writing"). The sync still makes the file durable before the
// rename; this only starts the disk's work earlier. Seek, WriteAt and the
// rest are the file's own (an encoder may seek back to patch a header).
func flushBehind(f *os.File) io.Writer {
	return &behind{File: f}
}

// behind is flushBehind's writer.
type behind struct {
	*os.File
	pending int // bytes written since the last start of write-back
}

func (b *behind) Write(p []byte) (int, error) {
	n, err := b.File.Write(p)
	if b.pending += n; b.pending >= writeBehind && err == nil {
		b.pending = 0
		if c, cerr := b.File.SyscallConn(); cerr == nil {
			// Only a hint: an error (a file system without it) changes
			// nothing, since the sync before the rename does the work.
			_ = c.Control(func(fd uintptr) { _ = unix.SyncFileRange(int(fd), 0, 0, unix.SYNC_FILE_RANGE_WRITE) })
		}
	}
	return n, err
}
