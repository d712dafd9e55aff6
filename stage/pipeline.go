package stage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/pcio"
)

// pipelineStep is one step: its words, and the prepared filter run.
type pipelineStep struct {
	words []string
	s     *step
}

// RunPipeline runs steps, each a stage's words as its command takes them
// without IN and OUT ("denoise statistical --k 8"), on the cloud read from
// in, one after another in memory, and writes the last one's cloud to out:
// the bytes the same stages joined by shell pipes write. c holds the
// pipeline's own options (--format, --backend for the steps that name
// none, --salvage, --force, the read query).
func RunPipeline(c Values, in string, words [][]string, out string) error {
	return RunPipelineFiles(c, []string{in}, words, out)
}

// RunPipelineFiles is RunPipeline on the files ins merged in order
// (ReadClouds); with no steps it translates them into out.
func RunPipelineFiles(c Values, ins []string, words [][]string, out string) error {
	return runPipeline(c, ins, words, pipelineWrite{len(words), out, c}, nil)
}

// Run runs the pipeline p with the command's options c under its own:
// its readers merged, its steps, each of its writers.
func (p *Pipeline) Run(c Values) error {
	v, err := p.Values(c)
	if err != nil {
		return Usagef("pipeline: %v", err)
	}
	writes := make([]pipelineWrite, len(p.Writes))
	for i, w := range p.Writes {
		wv, err := (&Pipeline{Options: w.Options}).Values(c)
		if err != nil {
			return Usagef("pipeline: writer %s: %v", w.File, err)
		}
		if w.Raster != nil {
			if wv, err = newRasterWriter(c, w.File, w.Raster); err != nil {
				return err
			}
		}
		writes[i] = pipelineWrite{w.After, w.File, wv}
	}
	out := pipelineWrite{len(p.Steps), p.Out, v}
	if p.Raster != nil {
		if out.c, err = newRasterWriter(v, p.Out, p.Raster); err != nil {
			return err
		}
	}
	return runPipeline(v, p.Ins, p.Steps, out, writes)
}

// pipelineWrite is a writer of a pipeline: the cloud after that many steps
// (the last writer: after them all) goes to file with the values c.
type pipelineWrite struct {
	after int
	file  string
	c     Values
}

// runPipeline is RunPipelineFiles writing the last step's cloud with
// last (a cloud's options are c's; a raster's, its own) and, before, the
// cloud as the first after steps leave it to each of writes, in order: a
// step that fails leaves last's file untouched, not the writes before it.
func runPipeline(c Values, ins []string, words [][]string, last pipelineWrite, writes []pipelineWrite) error {
	in, out := strings.Join(ins, " "), last.file
	steps := make([]pipelineStep, len(words))
	outputs := []string{out}
	for _, w := range writes {
		outputs = append(outputs, w.file)
	}
	for i, w := range words {
		s, err := parseStep(w, out)
		if err != nil {
			return err
		}
		steps[i] = pipelineStep{w, s}
		outputs = append(outputs, s.outputs()...)
	}
	stream, cins, couts, err := streamedPipeline(c, ins, out)
	if err != nil {
		return err
	}
	if stream {
		switch {
		case len(steps) == 0:
			return Usagef("pipeline: a tile collection or --max-memory needs at least one step (pctk convert translates files)")
		case len(writes) > 0:
			return Usagef("pipeline: a tile collection or --max-memory writes its last step only, not writers between steps")
		case isRaster(last.c):
			return Usagef("pipeline: writers.gdal grids a cloud in memory, not a tile collection or --max-memory (pctk raster grids them, out of core with --max-memory)")
		}
		return runPipelineStreamed(c, in, cins, couts, out, steps)
	}
	if err := CheckInOut(c, ins, outputs[:1+len(writes)], outputs[1+len(writes):]); err != nil {
		return err
	}

	pending, err := startSteps(c, steps)
	if err != nil {
		return err
	}
	start := time.Now()
	cloud, from, err := ReadClouds(c, ins)
	if err != nil {
		return err
	}
	for _, w := range append([]pipelineWrite{last}, writes...) {
		if err := checkOutput(w.c, w.file, from); err != nil {
			return err
		}
	}
	// writeAfter writes the writes that take the cloud after step n.
	writeAfter := func(n int, cloud *core.Cloud) error {
		for _, w := range writes {
			if w.after == n {
				if err := writeOutput(w.c, w.file, cloud, from); err != nil {
					return err
				}
			}
		}
		return nil
	}
	if err := writeAfter(0, cloud); err != nil {
		return err
	}
	read := time.Since(start)
	if len(steps) == 0 {
		if err := writeOutput(last.c, out, cloud, from); err != nil {
			return err
		}
		msg.Infof("pipeline: wrote the %d points of %d file(s) to %s in %.3fs", cloud.Len(), len(ins), out, time.Since(start).Seconds())
		return nil
	}
	cloud, runs, err := runSteps(cloud, from, in, out, steps, pending, writeAfter)
	if err != nil {
		return err
	}
	return reportSteps(steps, runs, read, func() error { return writeOutput(last.c, out, cloud, from) })
}

// stepRun is a step's run in memory, kept for its report.
type stepRun struct {
	p   *Points
	res *Result
	t   Timings
}

// runSteps runs steps on cloud in memory, one after another (c's
// --backend for the steps that name none; an error names the step by its
// words, when it has some), and returns the cloud the last leaves and each
// step's run; after, when set, gets the cloud each step n leaves (n from
// 1).
func runSteps(cloud *core.Cloud, from *pcio.Format, in, out string, steps []pipelineStep, pending []*pendingBackend, after func(n int, cloud *core.Cloud) error) (*core.Cloud, []stepRun, error) {
	var runs []stepRun
	for i, ps := range steps {
		b, _, err := pending[i].resolve()
		if err != nil {
			return nil, nil, err
		}
		t, device := time.Now(), deviceClock(b)
		p, res, err := ps.s.compute(cloud, from, b, in, out)
		if err != nil && ps.words != nil {
			err = fmt.Errorf("pipeline step %d (%s): %w", i+1, strings.Join(ps.words, " "), err)
		}
		if err != nil {
			return nil, nil, err
		}
		if cloud, err = ps.s.apply(p, res); err != nil {
			return nil, nil, err
		}
		if after != nil {
			if err := after(i+1, cloud); err != nil {
				return nil, nil, err
			}
		}
		runs = append(runs, stepRun{p, res, Timings{Compute: time.Since(t).Seconds(), Device: device()}})
	}
	return cloud, runs, nil
}

// startSteps starts every step's backend in the background (its
// --backend, or the pipeline's), as a command does before it reads its
// input: a GPU's start-up then overlaps the pipeline's read instead of
// following it. runSteps resolves them in turn.
func startSteps(c Values, steps []pipelineStep) ([]*pendingBackend, error) {
	pending := make([]*pendingBackend, len(steps))
	for i, ps := range steps {
		bc := c
		if ps.s.c.IsSet(BackendOption.Name) {
			bc = ps.s.c
		}
		var err error
		if pending[i], err = backend(bc, ps.s.job.CPUWork); err != nil {
			return nil, err
		}
	}
	return pending, nil
}

// reportSteps runs write, the pipeline's output, with every step's
// devices released (their work is over, as a single filter releases its
// own while OUT is written), then reports each step, the first with the
// reading of IN (read), the last with the write.
func reportSteps(steps []pipelineStep, runs []stepRun, read time.Duration, write func() error) error {
	runs[0].t.Read = read.Seconds()
	t := time.Now()
	var released []func()
	for _, r := range runs {
		released = append(released, ReleaseBackend(r.p.Backend))
	}
	err := write()
	for _, wait := range released {
		wait()
	}
	if err != nil {
		return err
	}
	runs[len(runs)-1].t.Write = time.Since(t).Seconds()
	for i, r := range runs {
		total := time.Duration((r.t.Read + r.t.Compute + r.t.Write) * float64(time.Second))
		if err := steps[i].s.report(r.p, r.res, r.t, total); err != nil {
			return err
		}
	}
	return nil
}

// parseStep parses one step's words with its stage's own options, as the
// stage's command would, and prepares the step.
func parseStep(words []string, out string) (*step, error) {
	if len(words) == 0 {
		return nil, Usagef("pipeline: an empty step")
	}
	f, rest := Lookup(words)
	if f == nil {
		var names []string
		for _, s := range Stages() {
			names = append(names, s.Name)
		}
		return nil, Usagef("pipeline: unknown step %q (a stage: %s)", strings.Join(words, " "), strings.Join(names, ", "))
	}
	v := NewSettings(f.AllOptions())
	args, err := v.ParseWords(rest)
	if err == nil && len(args) > 0 {
		err = Usagef("takes no IN or OUT (pipeline's own arguments), got %q", args)
	}
	if err != nil {
		return nil, Usagef("pipeline step %q: %v", strings.Join(words, " "), err)
	}
	for _, o := range []*Option{MaxMemoryOption, TmpdirOption} {
		if v.IsSet(o.Name) {
			return nil, Usagef("pipeline step %q: --%s does not apply to a step, whose cloud is in memory (--tile-size does)", strings.Join(words, " "), o.Name)
		}
	}
	return f.prepare(v, out)
}

// SplitWords splits a step into words at spaces, as a shell would for
// plain words and quoted ones ('...' or "..."); no other expansion.
func SplitWords(s string) ([]string, error) {
	var words []string
	var w strings.Builder
	inWord := false
	for i := 0; i < len(s); i++ {
		switch ch := s[i]; ch {
		case ' ', '\t', '\n':
			if inWord {
				words = append(words, w.String())
				w.Reset()
				inWord = false
			}
		case '\'', '"':
			j := strings.IndexByte(s[i+1:], ch)
			if j < 0 {
				return nil, fmt.Errorf("unterminated %c", ch)
			}
			w.WriteString(s[i+1 : i+1+j])
			i += j + 1
			inWord = true
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	if inWord {
		words = append(words, w.String())
	}
	return words, nil
}

// ParsePipelineJSON reads a JSON pipeline (see the command's description):
// its readers' files (merged), each filter's words (none: a translation),
// its writers' files and the options readers and writers set
// (pipeline_files.go). Stages connect as PDAL connects them
// (pdal/PipelineReaderJSON.cpp): each takes the stage before it, or the
// stages its "inputs" name by "tag", and a reader adds itself to the
// inputs of the next stage; pipelineChain maps that graph onto one chain.
func ParsePipelineJSON(data []byte) (*Pipeline, error) {
	var stages []json.RawMessage
	trimmed := bytes.TrimSpace(data)
	var err error
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(trimmed, &stages)
	} else {
		stages, err = pipelineStages(trimmed)
	}
	if err != nil {
		return nil, err
	}
	nodes := make([]pipelineNode, len(stages))
	tags := map[string]int{}
	var inputs []int
	for i, raw := range stages {
		n := &nodes[i]
		n.label = fmt.Sprintf("stage %d", i+1)
		var typ string
		var specified []int
		var kv object
		if json.Unmarshal(raw, &n.file) != nil {
			if kv, err = orderedObject(raw); err != nil {
				return nil, fmt.Errorf("%s: %v", n.label, err)
			}
			typ, _ = kv.get("type")
			if typ != "" {
				n.label += " (" + typ + ")"
			}
			if kv, n.tag, specified, err = graphKeys(kv, tags); err != nil {
				return nil, fmt.Errorf("%s: %v", n.label, err)
			}
			if len(specified) > 0 {
				inputs = specified
			}
		}
		switch {
		case (typ == "" && (i == 0 || i != len(stages)-1)) || strings.HasPrefix(typ, "readers."):
			n.kind = readerNode
			if len(specified) > 0 {
				return nil, fmt.Errorf("%s: a reader takes no inputs", n.label)
			}
			inputs = append(slices.Clone(inputs), i)
		case typ == "" || strings.HasPrefix(typ, "writers."):
			n.kind, n.inputs, inputs = writerNode, inputs, []int{i}
		default:
			n.kind, n.inputs, inputs = filterNode, inputs, []int{i}
			if typ == "filters.merge" && len(kv) == 1 {
				n.kind = mergeNode
			} else if n.words, err = stageWords(typ, kv); err != nil {
				return nil, fmt.Errorf("%s: %v", n.label, err)
			}
		}
		if n.kind == readerNode || n.kind == writerNode {
			n.opts = map[string]string{}
		}
		if n.kind != readerNode && len(n.inputs) == 0 {
			return nil, fmt.Errorf("%s: a filter or writer before any input", n.label)
		}
		if typ == "writers.gdal" {
			if n.file, n.raster, err = gdalStage(kv); err != nil {
				return nil, fmt.Errorf("%s: %v", n.label, err)
			}
		} else if kv != nil && n.opts != nil {
			if n.file, err = fileStage(typ, n.kind == writerNode, kv, n.opts); err != nil {
				return nil, fmt.Errorf("%s: %v", n.label, err)
			}
		}
		if n.tag != "" {
			tags[n.tag] = i
		}
	}
	return pipelineChain(nodes)
}

// stageWords turns a JSON stage into a step's words: typ names a stage by
// its PDAL name ("filters.outlier", with PDAL's option names) or by pctk's
// words ("denoise statistical", "pctk.dbscan", with pctk's option names).
func stageWords(typ string, kv object) ([]string, error) {
	pdal := strings.HasPrefix(typ, "filters.")
	var f *Stage
	if pdal {
		mode, _ := kv.get("method")
		if f = ByPDAL(typ, mode); f == nil {
			return nil, fmt.Errorf("not a stage pctk has (PDAL stages: %s)", strings.Join(pdalNames(), ", "))
		}
	} else {
		var rest []string
		if f, rest = Lookup(strings.Fields(strings.TrimPrefix(typ, "pctk."))); f == nil || len(rest) > 0 {
			return nil, fmt.Errorf("not a stage pctk has")
		}
	}
	words := strings.Fields(f.Name)
	if pdal {
		words = append(words, f.PDALArgs...)
		words = append(words, f.PDALAs[typ]...)
	}
	v := NewSettings(f.AllOptions())
	for _, e := range kv {
		if e.key == "type" || (pdal && f.PDALMode != "" && e.key == "method") {
			continue
		}
		o := v.Option(e.key)
		if pdal {
			o = f.pdalOption(e.key)
		}
		if o == nil {
			return nil, fmt.Errorf("option %q is not one pctk maps (%s)", e.key, strings.Join(f.optionNames(pdal), ", "))
		}
		text, err := flagValue(o.Name, e.value)
		if err != nil {
			return nil, fmt.Errorf("option %q: %v", e.key, err)
		}
		if v, ok := o.PDALValues[text]; ok && pdal {
			text = v
		}
		switch {
		case text == "true" && o.Kind == Bool:
			words = append(words, "--"+o.Name)
		case text == "false" && o.Kind == Bool:
			if o.Default() == true { // PDAL's smooth, exponential, allow_extrapolation: false
				words = append(words, "--"+o.Name+"=false")
			}
		default:
			words = append(words, "--"+o.Name, text)
		}
	}
	return words, nil
}

// pdalOption returns the option of f whose PDAL name is key; nil if none.
func (f *Stage) pdalOption(key string) *Option {
	for _, o := range f.AllOptions() {
		if o.PDAL == key {
			return o
		}
	}
	return nil
}

// optionNames lists f's option names, PDAL's (pdal) or pctk's.
func (f *Stage) optionNames(pdal bool) []string {
	var names []string
	for _, o := range f.AllOptions() {
		switch {
		case !pdal:
			names = append(names, o.Name)
		case o.PDAL != "":
			names = append(names, o.PDAL)
		}
	}
	slices.Sort(names)
	return names
}

// pdalNames lists the PDAL stages pctk serves.
func pdalNames() []string {
	var names []string
	for _, s := range Stages() {
		for _, n := range append([]string{s.PDAL}, slices.Sorted(maps.Keys(s.PDALAs))...) {
			if n != "" && !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	return names
}

// flagValue turns a JSON value into a flag's text: numbers as written,
// strings as they are (PDAL's dimensions "X,Y" become xy), lists joined by
// commas.
func flagValue(flag string, raw json.RawMessage) (string, error) {
	var list []json.RawMessage
	if json.Unmarshal(raw, &list) == nil {
		parts := make([]string, len(list))
		for i, r := range list {
			p, err := flagValue(flag, r)
			if err != nil {
				return "", err
			}
			parts[i] = p
		}
		return strings.Join(parts, ","), nil
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		if flag == "dims" {
			return pdalDims(s)
		}
		return s, nil
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		return "", err
	}
	switch v.(type) {
	case float64, bool: // a number as written in the file, not as parsed
		return strings.TrimSpace(string(raw)), nil
	}
	return "", fmt.Errorf("want a number, a string, a boolean or a list, got %s", raw)
}

// object is a JSON object's members in file order (a stage's options are
// flags, whose order can matter to the reader of the words).
type object []struct {
	key   string
	value json.RawMessage
}

func (o object) get(key string) (string, bool) {
	for _, e := range o {
		if e.key == key {
			var s string
			if json.Unmarshal(e.value, &s) == nil {
				return s, true
			}
		}
	}
	return "", false
}

func orderedObject(raw json.RawMessage) (object, error) {
	d := json.NewDecoder(bytes.NewReader(raw))
	if t, err := d.Token(); err != nil || t != json.Delim('{') {
		return nil, fmt.Errorf("want a file name or an object, got %s", raw)
	}
	var o object
	for d.More() {
		t, err := d.Token()
		if err != nil {
			return nil, err
		}
		var v json.RawMessage
		if err := d.Decode(&v); err != nil {
			return nil, err
		}
		if _, dup := o.raw(t.(string)); dup {
			return nil, fmt.Errorf("key %q given twice", t)
		}
		o = append(o, struct {
			key   string
			value json.RawMessage
		}{t.(string), v})
	}
	return o, nil
}
