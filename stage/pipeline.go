package stage

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

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
	in := strings.Join(ins, " ")
	steps := make([]pipelineStep, len(words))
	outputs := []string{out}
	for i, w := range words {
		s, err := parseStep(w, out)
		if err != nil {
			return err
		}
		steps[i] = pipelineStep{w, s}
		outputs = append(outputs, s.outputs()...)
	}
	if err := CheckInOut(c, ins, outputs[:1], outputs[1:]); err != nil {
		return err
	}

	start := time.Now()
	cloud, from, err := ReadClouds(c, ins)
	if err != nil {
		return err
	}
	if _, _, err := pcio.OutputFormat(out, c.String("format"), from); err != nil {
		return Usagef("%v", err)
	}
	read := time.Since(start)
	if len(steps) == 0 {
		if err := WriteCloud(c, out, cloud, from); err != nil {
			return err
		}
		msg.Infof("pipeline: wrote the %d points of %d file(s) to %s in %.3fs", cloud.Len(), len(ins), out, time.Since(start).Seconds())
		return nil
	}
	type done struct {
		p   *Points
		res *Result
		t   Timings
	}
	var runs []done
	for i, ps := range steps {
		sc := ps.s.c
		bc := c
		if sc.IsSet(BackendOption.Name) {
			bc = sc
		}
		pending, err := backend(bc, ps.s.job.CPUWork)
		if err != nil {
			return err
		}
		b, _, err := pending.resolve()
		if err != nil {
			return err
		}
		t := time.Now()
		p, res, err := ps.s.compute(cloud, from, b, in, out)
		if err != nil {
			return fmt.Errorf("pipeline step %d (%s): %w", i+1, strings.Join(ps.words, " "), err)
		}
		if cloud, err = ps.s.apply(p, res); err != nil {
			return err
		}
		runs = append(runs, done{p, res, Timings{Compute: time.Since(t).Seconds()}})
	}
	runs[0].t.Read = read.Seconds()
	t := time.Now()
	// Every step's device work is over: release the devices while OUT is
	// written, as a single filter does.
	var released []func()
	for _, r := range runs {
		released = append(released, ReleaseBackend(r.p.Backend))
	}
	err = WriteCloud(c, out, cloud, from)
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
// its writer's file and the options readers and writers set
// (pipeline_files.go).
func ParsePipelineJSON(data []byte) (*Pipeline, error) {
	var doc struct {
		Pipeline []json.RawMessage `json:"pipeline"`
	}
	trimmed := bytes.TrimSpace(data)
	var err error
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(trimmed, &doc.Pipeline)
	} else {
		doc.Pipeline, err = pipelineStages(trimmed)
	}
	if err != nil {
		return nil, err
	}
	p := &Pipeline{Options: map[string]string{}}
	var files []string
	for i, raw := range doc.Pipeline {
		var name string
		if json.Unmarshal(raw, &name) == nil {
			files = append(files, name)
			continue
		}
		kv, err := orderedObject(raw)
		if err != nil {
			return nil, fmt.Errorf("stage %d: %v", i+1, err)
		}
		typ, _ := kv.get("type")
		switch {
		case strings.HasPrefix(typ, "readers.") || strings.HasPrefix(typ, "writers."):
			name, err := fileStage(typ, kv, p.Options)
			if err != nil {
				return nil, fmt.Errorf("stage %d (%s): %v", i+1, typ, err)
			}
			files = append(files, name)
			continue
		case typ == "":
			return nil, fmt.Errorf("stage %d: no type", i+1)
		case typ == "filters.merge" && len(p.Steps) == 0 && len(kv) == 1:
			continue // the readers are merged anyway
		}
		if p.Ins == nil && len(files) == 0 {
			return nil, fmt.Errorf("stage %d: a filter before any input", i+1)
		}
		if p.Ins == nil {
			p.Ins, files = files, nil
		}
		if len(files) > 0 {
			return nil, fmt.Errorf("stage %d: filters stand between the inputs and the output", i+1)
		}
		words, err := stageWords(typ, kv)
		if err != nil {
			return nil, fmt.Errorf("stage %d (%s): %v", i+1, typ, err)
		}
		p.Steps = append(p.Steps, words)
	}
	if p.Ins == nil && len(files) > 0 {
		p.Ins, files = files[:len(files)-1], files[len(files)-1:]
	}
	if len(p.Ins) == 0 || len(files) != 1 {
		return nil, fmt.Errorf("want inputs, filters if any, and one output, got %d input(s), %d filter(s) and %d file(s) after them", len(p.Ins), len(p.Steps), len(files))
	}
	p.Out = files[0]
	writerFormat(p.Options)
	return p, nil
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
