package pcio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/pctk/pctk/core"
)

func init() {
	Register(&Format{
		Name:       "testfmt",
		Extensions: []string{".tst"},
		Magic:      [][]byte{[]byte("TST1")},
		Variants:   []string{"ascii", "binary-be"},
		Decode:     func(r io.Reader, _ ...ReadOptions) (*core.Cloud, error) { return core.New(0), nil },
	})
}

func TestLookup(t *testing.T) {
	tests := []struct {
		spec, name, variant string
		ok                  bool
	}{
		{"testfmt", "testfmt", "", true},
		{"TESTFMT-ascii", "testfmt", "ascii", true},
		{"testfmt-binary-be", "testfmt", "binary-be", true},
		{"testfmt-binary", "", "", false},
		{"xyz", "", "", false},
	}
	for _, tt := range tests {
		f, v, err := Lookup(tt.spec)
		if (err == nil) != tt.ok {
			t.Errorf("Lookup(%q) error = %v, want ok=%v", tt.spec, err, tt.ok)
			continue
		}
		if tt.ok && (f.Name != tt.name || v != tt.variant) {
			t.Errorf("Lookup(%q) = %s, %q; want %s, %q", tt.spec, f.Name, v, tt.name, tt.variant)
		}
		if !tt.ok && !errors.Is(err, ErrUnknownFormat) {
			t.Errorf("Lookup(%q) error %v does not wrap ErrUnknownFormat", tt.spec, err)
		}
	}
}

func TestSniffAndExtension(t *testing.T) {
	f, r, err := Sniff(strings.NewReader("TST1 rest"))
	if err != nil || f.Name != "testfmt" {
		t.Fatalf("Sniff = %v, %v; want testfmt", f, err)
	}
	if b, _ := io.ReadAll(r); string(b) != "TST1 rest" {
		t.Errorf("Sniff consumed input: %q left", b)
	}
	if _, _, err := Sniff(strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "empty") {
		t.Errorf("Sniff(empty) error = %v, want one saying empty", err)
	}
	if f, err := ByExtension("/a/B.TST"); err != nil || f.Name != "testfmt" {
		t.Errorf("ByExtension(B.TST) = %v, %v", f, err)
	}
	if _, err := ByExtension("a.unknown"); err == nil || !strings.Contains(err.Error(), "a.unknown") {
		t.Errorf("ByExtension error %v does not name the file", err)
	}
}

func TestWriteAtomic(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "out.tst")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("boom")
	err := WriteAtomic(path, func(w io.Writer) error {
		io.WriteString(w, "partial")
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("WriteAtomic error = %v, want boom", err)
	}
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("failed write changed the file to %q", b)
	}
	if ents, _ := os.ReadDir(dir); len(ents) != 1 {
		t.Errorf("failed write left %d files behind", len(ents))
	}
	if err := WriteAtomic(path, func(w io.Writer) error { _, err := io.WriteString(w, "new"); return err }); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(path)
	fi, _ := os.Stat(path)
	if string(b) != "new" || fi.Mode().Perm() != 0o600 {
		t.Errorf("after write: %q mode %v; want \"new\" 0600", b, fi.Mode().Perm())
	}
}

// TestTextWriter checks what reaches a terminal: text passes, binary data
// is refused with ErrTerminal before anything is printed, even after a
// text header in the same or an earlier write.
func TestTextWriter(t *testing.T) {
	for _, tc := range []struct {
		name   string
		writes []string
		ok     bool
	}{
		{"ascii PLY", []string{"ply\nformat ascii 1.0\n", "end_header\n1 2 3\r\n\t4 5 6\n"}, true},
		{"binary after a text header", []string{"ply\nformat binary_little_endian 1.0\nend_header\n", "\x00\x00\x80\x3f"}, false},
		{"LAS", []string{"LASF\x00\x00\x01\x02"}, false},
	} {
		var term bytes.Buffer
		tw := &textWriter{w: &term}
		var err error
		for _, w := range tc.writes {
			if _, err = tw.Write([]byte(w)); err != nil {
				break
			}
		}
		if err == nil {
			err = tw.flush()
		}
		switch {
		case tc.ok && (err != nil || term.String() != strings.Join(tc.writes, "")):
			t.Errorf("%s: got %q, %v; want the text through", tc.name, term.String(), err)
		case !tc.ok && (!errors.Is(err, ErrTerminal) || term.Len() != 0):
			t.Errorf("%s: got %q, %v; want ErrTerminal and nothing printed", tc.name, term.String(), err)
		}
	}
}

// TestWriteAtomicSafety checks the cases a user expects: a read-only file
// is refused (and left alone) unless Force, a symbolic link is followed
// and kept, a missing folder fails before write is called, a folder is
// refused and a device written as it is.
func TestWriteAtomicSafety(t *testing.T) {
	dir := t.TempDir()
	write := func(s string) func(io.Writer) error {
		return func(w io.Writer) error { _, err := io.WriteString(w, s); return err }
	}
	ro := filepath.Join(dir, "ro.tst")
	if err := os.WriteFile(ro, []byte("old"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(ro, write("new")); !errors.Is(err, ErrReadOnly) {
		t.Errorf("read-only target: got %v, want ErrReadOnly", err)
	}
	if err := WriteAtomic(ro, write("new"), WriteOptions{Force: true}); err != nil {
		t.Errorf("read-only target with Force: %v", err)
	}
	if b, _ := os.ReadFile(ro); string(b) != "new" {
		t.Errorf("Force left %q", b)
	}
	link := filepath.Join(dir, "link.tst")
	if err := os.Symlink("target.tst", link); err != nil {
		t.Fatal(err)
	}
	if err := WriteAtomic(link, write("through")); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(filepath.Join(dir, "target.tst"))
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 || string(b) != "through" {
		t.Errorf("write through a dangling link: link %v (%v), target %q", fi.Mode(), err, b)
	}
	called := false
	err := WriteAtomic(filepath.Join(dir, "no", "such", "x.tst"), func(io.Writer) error { called = true; return nil })
	if err == nil || called {
		t.Errorf("missing folder: got %v, write called %v; want an error first", err, called)
	}
	if err := CheckOutput(filepath.Join(dir, "no", "x.tst")); err == nil || !strings.Contains(err.Error(), "no/x.tst") {
		t.Errorf("CheckOutput of a missing folder: %v, want an error naming the path", err)
	}
	if err := CheckOutput(dir); err == nil || !strings.Contains(err.Error(), "is a folder") {
		t.Errorf("CheckOutput of a folder: %v, want an error", err)
	}
	// A device is written as it is, never replaced.
	if err := WriteAtomic(os.DevNull, write("gone")); err != nil {
		t.Errorf("writing %s: %v", os.DevNull, err)
	}
	if fi, err := os.Stat(os.DevNull); err != nil || fi.Mode()&os.ModeCharDevice == 0 {
		t.Errorf("%s after a write: %v (%v), want the device", os.DevNull, fi.Mode(), err)
	}
}

// TestWriteAtomicLarge writes more than several write-behind chunks
// (flushBehind starts the disk's work every writeBehind bytes) in writes of
// odd sizes, then seeks back and patches the first bytes, as the LAS
// encoder patches its header: the file must hold exactly those bytes.
func TestWriteAtomicLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.tst")
	want := make([]byte, 3*(8<<20)+12345)
	for i := range want {
		want[i] = byte(i*7 + i>>13)
	}
	err := WriteAtomic(path, func(w io.Writer) error {
		for off := 0; off < len(want); {
			n := min(len(want)-off, 1<<20+off%4099)
			if _, err := w.Write(want[off : off+n]); err != nil {
				return err
			}
			off += n
		}
		ws, ok := w.(io.WriteSeeker)
		if !ok {
			return errors.New("WriteAtomic's writer cannot seek")
		}
		if _, err := ws.Seek(0, io.SeekStart); err != nil {
			return err
		}
		copy(want, "HEADER")
		_, err := io.WriteString(ws, "HEADER")
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Errorf("file of %d bytes differs from the %d written", len(got), len(want))
	}
}
