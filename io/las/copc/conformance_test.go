package copc

import (
	"bufio"
	"bytes"
	"encoding/base64"
	"encoding/json"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/pctk/pctk/io/internal/codectest"
)

// conformanceDir holds check.mjs and, once .ci/deps/npm-copc.sh has run,
// copc.js in node_modules.
const conformanceDir = "testdata/conformance"

// copcJS is what check.mjs reports for one file.
type copcJS struct {
	File   string `json:"file"`
	Error  string `json:"error"`
	Header struct {
		Format       int       `json:"format"`
		RecordLength int       `json:"recordLength"`
		PointCount   int64     `json:"pointCount"`
		Scale        []float64 `json:"scale"`
		Offset       []float64 `json:"offset"`
	} `json:"header"`
	Info struct {
		Cube    []float64 `json:"cube"`
		Spacing float64   `json:"spacing"`
	} `json:"info"`
	Pages int `json:"pages"`
	Nodes []struct {
		Key        string `json:"key"`
		PointCount int    `json:"pointCount"`
		Records    string `json:"records"`
	} `json:"nodes"`
}

// records returns the node's records as laz-perf decompressed them.
func (r *copcJS) records(t *testing.T, i int) []byte {
	b, err := base64.StdEncoding.DecodeString(r.Nodes[i].Records)
	if err != nil {
		t.Fatalf("%s: node %s: %v", r.File, r.Nodes[i].Key, err)
	}
	return b
}

// runCopcJS runs check.mjs on files, or skips (fails when CI=true) when
// node or copc.js is missing.
func runCopcJS(t *testing.T, files ...string) map[string]*copcJS {
	t.Helper()
	node := codectest.NodePeer(t, conformanceDir, ".ci/deps/npm-copc.sh", "copc")
	abs := make([]string, len(files))
	for i, f := range files {
		var err error
		if abs[i], err = filepath.Abs(f); err != nil {
			t.Fatal(err)
		}
	}
	cmd := exec.Command(node, append([]string{"check.mjs"}, abs...)...)
	cmd.Dir = conformanceDir
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("check.mjs: %v\n%s", err, stderr.String())
	}
	res := map[string]*copcJS{}
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<30)
	for sc.Scan() {
		var r copcJS
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Fatalf("check.mjs output: %v", err)
		}
		if r.Error != "" {
			t.Fatalf("copc.js rejects %s: %s", r.File, r.Error)
		}
		res[r.File] = &r
	}
	for i, f := range abs {
		if res[f] == nil {
			t.Fatalf("check.mjs printed nothing for %s", files[i])
		}
		res[files[i]] = res[f]
	}
	return res
}

// parseKey parses "d-x-y-z".
func parseKey(t *testing.T, s string) Key {
	k, err := ParseKey(s)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// TestSharedNodesMatchLazPerf decodes every node of the shared COPC files
// and compares its records with those laz-perf (through copc.js) gives.
func TestSharedNodesMatchLazPerf(t *testing.T) {
	files := sharedFiles(t)
	peer := runCopcJS(t, files...)
	for _, path := range files {
		f, _ := openShared(t, path)
		p, err := f.Plan(nil)
		if err != nil {
			t.Fatal(err)
		}
		js := peer[path]
		if len(js.Nodes) != len(p.Nodes) {
			t.Fatalf("%s: %d nodes with points, copc.js finds %d", path, len(p.Nodes), len(js.Nodes))
		}
		byKey := map[Key]Entry{}
		for _, e := range p.Nodes {
			byKey[e.Key] = e
		}
		for i, n := range js.Nodes {
			e, ok := byKey[parseKey(t, n.Key)]
			if !ok {
				t.Fatalf("%s: copc.js has node %s, pctk does not", path, n.Key)
			}
			got, err := f.NodeRecords(e)
			if err != nil {
				t.Fatalf("%s: %v", path, err)
			}
			if want := js.records(t, i); !bytes.Equal(got, want) {
				t.Fatalf("%s: node %s: pctk's %d record bytes differ from laz-perf's %d", path, n.Key, len(got), len(want))
			}
		}
	}
}
