package pcio

import (
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
