package stage

import (
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
)

// A JSON pipeline is a graph (PDAL's tag and inputs); pctk's driver runs
// one chain: readers merged, filters one after another, writers anywhere
// along it. These map the one onto the other, and refuse, naming it, what
// does not map.

// nodeKind is what a JSON stage is.
type nodeKind uint8

const (
	readerNode nodeKind = iota
	writerNode
	filterNode
	mergeNode // filters.merge without options: merges its inputs
)

// pipelineNode is one stage of a JSON pipeline.
type pipelineNode struct {
	label  string // "stage 3 (filters.range)"
	kind   nodeKind
	tag    string
	inputs []int             // the stages it takes, in order
	file   string            // readers and writers
	opts   map[string]string // readers' and writers' pipeline options
	raster map[string]string // writers.gdal's options (newRasterWriter)
	words  []string          // filters
}

// graphKeys takes PDAL's "tag" and "inputs" out of a stage's members: its
// tag (a new one; PDAL's Stage::parseTagName: a letter or _, then letters,
// digits and _) and the stages its inputs name by tag (a string or a list
// of strings, each a tag of a stage before it).
func graphKeys(kv object, tags map[string]int) (rest object, tag string, inputs []int, err error) {
	for _, e := range kv {
		switch e.key {
		case "tag":
			if json.Unmarshal(e.value, &tag) != nil || !validTag(tag) {
				return nil, "", nil, fmt.Errorf("tag %s: want a name of letters, digits and _, not starting with a digit", e.value)
			}
			if _, dup := tags[tag]; dup {
				return nil, "", nil, fmt.Errorf("tag %q given twice", tag)
			}
		case "inputs":
			var names []string
			var one string
			if json.Unmarshal(e.value, &one) == nil {
				names = []string{one}
			} else if json.Unmarshal(e.value, &names) != nil {
				return nil, "", nil, fmt.Errorf("inputs %s: want a tag or a list of tags", e.value)
			}
			for _, n := range names {
				i, ok := tags[n]
				if !ok {
					return nil, "", nil, fmt.Errorf("inputs: no stage before it has tag %q", n)
				}
				inputs = append(inputs, i)
			}
		default:
			rest = append(rest, e)
		}
	}
	return rest, tag, inputs, nil
}

// validTag reports whether s is a tag name PDAL accepts.
func validTag(s string) bool {
	for i, r := range s {
		letter := r == '_' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z')
		if !letter && (i == 0 || r < '0' || r > '9') {
			return false
		}
	}
	return s != ""
}

// pipelineChain maps the graph of nodes onto pctk's chain. It must have one
// leaf, a writer (PDAL runs only the first of several leaves, with an
// error message; pctk refuses them), reached from the readers through
// stages that each take one input, but the first, which takes the
// readers, merged in its inputs' order. Writers before the leaf pass the
// points on, as PDAL's do; filters.merge with one input, or the readers
// alone, does nothing more.
func pipelineChain(nodes []pipelineNode) (*Pipeline, error) {
	taken := make([]bool, len(nodes))
	for _, n := range nodes {
		for _, i := range n.inputs {
			taken[i] = true
		}
	}
	var leaves []string
	leaf := -1
	for i, n := range nodes {
		if !taken[i] {
			leaves = append(leaves, n.label)
			leaf = i
		}
	}
	switch {
	case len(leaves) > 1:
		return nil, fmt.Errorf("the stages %s each end a branch: pctk runs one chain of stages (PDAL runs the first alone); chain the writers instead, a writer passes its points on", strings.Join(leaves, ", "))
	case leaf < 0 || nodes[leaf].kind != writerNode:
		return nil, fmt.Errorf("want inputs, filters if any, and one output: the last stage is not a writer")
	}
	var chain []int
	var ins []string
	for at := leaf; ; {
		n := nodes[at]
		chain = append(chain, at)
		readers := true
		for _, i := range n.inputs {
			readers = readers && nodes[i].kind == readerNode
		}
		if readers {
			for _, i := range n.inputs {
				ins = append(ins, nodes[i].file)
			}
			break
		}
		if len(n.inputs) > 1 {
			var names []string
			for _, i := range n.inputs {
				names = append(names, nodes[i].label)
			}
			return nil, fmt.Errorf("%s merges the points of %s: pctk merges readers only, at the first stage after them", n.label, strings.Join(names, ", "))
		}
		at = n.inputs[0]
	}
	slices.Reverse(chain)
	p := &Pipeline{Ins: ins, Options: map[string]string{}}
	for _, i := range nodes[chain[0]].inputs {
		maps.Copy(p.Options, nodes[i].opts)
	}
	for _, at := range chain {
		switch n := nodes[at]; n.kind {
		case filterNode:
			p.Steps = append(p.Steps, n.words)
		case writerNode:
			writerOptions(n.opts, n.file)
			if at == leaf {
				p.Out, p.Raster = n.file, n.raster
				maps.Copy(p.Options, n.opts)
			} else {
				p.Writes = append(p.Writes, PipelineWrite{After: len(p.Steps), File: n.file, Options: n.opts, Raster: n.raster})
			}
		}
	}
	return p, nil
}
