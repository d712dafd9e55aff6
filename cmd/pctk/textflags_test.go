package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestTextFlags converts a headerless text file named with --columns to
// PLY and back to text, checks that every value came back bit for bit (the
// same bytes, the header line aside), and that --precision and a misplaced
// flag do what they say.
func TestTextFlags(t *testing.T) {
	dir := t.TempDir()
	in := filepath.Join(dir, "in.xyz")
	body := "1.0000000000000002 -0 5e-324 7 200\n1.7976931348623157e+308 0.1 -2.5 65535 0\n"
	if err := os.WriteFile(in, []byte(body), 0o644); err != nil {
		t.Fatal(err)
	}
	ply, out := filepath.Join(dir, "mid.ply"), filepath.Join(dir, "out.txt")
	pctkRun(t, 0, "convert", "--columns", "x,y,z,intensity:uint16,red:uint8", in, ply)
	pctkRun(t, 0, "convert", ply, out)
	got, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	want := "X Y Z Intensity Red\n1.0000000000000002 -0 5e-324 7 200\n1.7976931348623157e+308 0.1 -2.5 65535 0\n"
	if string(got) != want {
		t.Errorf("text -> ply -> text gave\n%s\nwant\n%s", got, want)
	}
	pctkRun(t, 0, "convert", "--precision", "2", in, out)
	if got, _ := os.ReadFile(out); !strings.HasPrefix(string(got), "X Y Z Column4 Column5\n1.00 -0.00 0.00 7.00 200.00\n") {
		t.Errorf("--precision 2 gave\n%s", got)
	}
	// Standard input without an extension: recognised as text from its
	// content, after the binary magics.
	cmd := pctkCmd(t, "-q", "convert", "--columns", "x,y,z,intensity:uint16,red:uint8", "-", "-", "--format", "csv")
	cmd.Stdin = strings.NewReader(body)
	if got, err := cmd.Output(); err != nil || string(got) != strings.ReplaceAll(want, " ", ",") {
		t.Errorf("stdin to stdout as csv: %v\n%s", err, got)
	}
	pctkRun(t, 2, "convert", "--columns", "x,y,z", ply, out)
	pctkRun(t, 2, "convert", "--precision", "3", in, ply)
	pctkRun(t, 1, "convert", "--columns", "x,y,z", in, out) // 5 values a line, 3 names
}
