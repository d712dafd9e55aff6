package cuda

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// PTXHashPrefix starts the header line that scripts/build-ptx.sh writes at
// the top of every PTX file: "// source-sha256: <hex>".
const PTXHashPrefix = "// source-sha256: "

// SourceHash returns the SHA-256 (hex) that scripts/build-ptx.sh records
// for the CUDA source at path: the hash of the file's bytes followed by the
// bytes of each file it includes with #include "name" (resolved beside it,
// one level, in order of appearance), so that editing a local header also
// marks the PTX stale.
func SourceHash(path string) (string, error) {
	src, err := os.ReadFile(path)
	if err != nil {
		return "", err
	}
	h := sha256.New()
	h.Write(src)
	sc := bufio.NewScanner(bytes.NewReader(src))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		rest, ok := strings.CutPrefix(line, "#include")
		if !ok {
			continue
		}
		rest = strings.TrimSpace(rest)
		if len(rest) < 2 || rest[0] != '"' {
			continue
		}
		name, _, ok := strings.Cut(rest[1:], `"`)
		if !ok {
			continue
		}
		inc, err := os.ReadFile(filepath.Join(filepath.Dir(path), name))
		if err != nil {
			return "", fmt.Errorf("cuda: %s includes %q: %w", path, name, err)
		}
		h.Write(inc)
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// PTXSourceHash returns the source hash recorded in a PTX file's header,
// or "" when the header is missing.
func PTXSourceHash(ptx []byte) string { return headerValue(ptx, PTXHashPrefix) }

// FatbinHashPrefix starts the line of a fatbin's header file (NAME.fatbin.txt)
// that records the SHA-256 of the fatbin itself.
const FatbinHashPrefix = "// fatbin-sha256: "

// headerValue returns the value of the first of a file's first ten lines
// that starts with prefix, or "".
func headerValue(text []byte, prefix string) string {
	sc := bufio.NewScanner(bytes.NewReader(text))
	for i := 0; i < 10 && sc.Scan(); i++ {
		if h, ok := strings.CutPrefix(sc.Text(), prefix); ok {
			return strings.TrimSpace(h)
		}
	}
	return ""
}

// CheckFatbin reports an error when the fatbin at fatbinPath is missing,
// was not built from the current cuPath, or is not the file its header
// (fatbinPath + ".txt", written with it by scripts/build-ptx.sh) describes.
func CheckFatbin(cuPath, fatbinPath string) error {
	if err := CheckPTX(cuPath, fatbinPath+".txt"); err != nil {
		return err
	}
	fb, err := os.ReadFile(fatbinPath)
	if err != nil {
		return fmt.Errorf("cuda: %s has no fatbin (run scripts/build-ptx.sh on a machine with nvcc): %w", cuPath, err)
	}
	head, err := os.ReadFile(fatbinPath + ".txt")
	if err != nil {
		return err
	}
	sum := sha256.Sum256(fb)
	if got, want := hex.EncodeToString(sum[:]), headerValue(head, FatbinHashPrefix); got != want {
		return fmt.Errorf("cuda: %s hashes to %q, its header records %q: the two files are from different builds; rerun scripts/build-ptx.sh", fatbinPath, got, want)
	}
	return nil
}

// CheckPTX reports an error when the PTX file ptxPath is missing or was
// not generated from the current cuPath: tests call it for every embedded
// PTX, so a .cu edited without rerunning scripts/build-ptx.sh fails CI.
func CheckPTX(cuPath, ptxPath string) error {
	want, err := SourceHash(cuPath)
	if err != nil {
		return err
	}
	ptx, err := os.ReadFile(ptxPath)
	if err != nil {
		return fmt.Errorf("cuda: %s has no PTX (run scripts/build-ptx.sh on a machine with nvcc): %w", cuPath, err)
	}
	got := PTXSourceHash(ptx)
	if got != want {
		return fmt.Errorf("cuda: %s is stale: it records source hash %q, %s hashes to %q; rerun scripts/build-ptx.sh", ptxPath, got, cuPath, want)
	}
	return nil
}
