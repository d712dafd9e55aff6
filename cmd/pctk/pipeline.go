package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strings"
	"time"

	"github.com/pctk/pctk/io/pcio"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "pipeline",
		Usage:     "run several filters in one process: read once, write once",
		ArgsUsage: "IN STEP... OUT | --file PIPELINE.json",
		Description: `Each STEP is one filter command's words, quoted, exactly as the command takes
them without IN and OUT ("denoise statistical --k 8 --std-ratio 2"). The cloud
passes from step to step in memory; OUT is byte-identical to the same steps
joined by shell pipes. --backend applies to the steps that name none.

--file reads a JSON pipeline close to PDAL's: {"pipeline": [IN, STAGE..., OUT]}
where IN and OUT are file names (or {"type": "readers.las", "filename": ...}),
and a stage is {"type": "dbscan", "eps": 1.5, "min-pts": 10} with pctk's
command and flag names ("denoise statistical", true for a flag without value,
a list for a comma list), or one of PDAL's filters.dbscan, filters.outlier,
filters.normal, filters.radialdensity, filters.covariancefeatures and
filters.sample with PDAL's option names (docs/pipeline.md lists the mapping;
the computation is pctk's).

Examples:
   pctk pipeline scan.laz "denoise statistical --k 8 --std-ratio 2" "dbscan --eps 1.5 --min-pts 10" clusters.laz
   pctk pipeline --file pipeline.json`,
		Flags: append([]cli.Flag{formatFlag, backendFlag, salvageFlag, forceFlag, inPlaceFlag,
			&cli.StringFlag{Name: "file", Usage: "read the pipeline from a JSON `FILE` instead of the arguments"},
		}, queryFlags...),
		Action: runPipeline,
	})
}

// pipelineStep is one step: its words, and the prepared filter run.
type pipelineStep struct {
	words []string
	s     *step
}

func runPipeline(c *cli.Context) error {
	var in, out string
	var words [][]string
	if path := c.String("file"); path != "" {
		if c.NArg() > 0 {
			return usagef("pipeline: --file takes the input, steps and output from the file, not from %d argument(s)", c.NArg())
		}
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		if in, words, out, err = parsePipelineJSON(data); err != nil {
			return usagef("pipeline %s: %v", path, err)
		}
	} else {
		if c.NArg() < 3 {
			return usagef("pipeline needs IN, at least one STEP and OUT, got %d argument(s)", c.NArg())
		}
		args := c.Args().Slice()
		in, out = args[0], args[len(args)-1]
		for _, a := range args[1 : len(args)-1] {
			w, err := splitWords(a)
			if err != nil {
				return usagef("pipeline step %q: %v", a, err)
			}
			words = append(words, w)
		}
	}
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
	if err := checkInOut(c, []string{in}, outputs[:1], outputs[1:]); err != nil {
		return err
	}

	start := time.Now()
	cloud, from, err := readCloud(c, in)
	if err != nil {
		return err
	}
	if _, _, err := pcio.OutputFormat(out, c.String("format"), from); err != nil {
		return usagef("%v", err)
	}
	read := time.Since(start)
	type done struct {
		p   *Points
		res *Result
		t   Timings
	}
	var runs []done
	for i, ps := range steps {
		sc := ps.s.c
		bc := c
		if sc.IsSet(backendFlag.Name) {
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
		released = append(released, releaseBackend(r.p.Backend))
	}
	err = writeCloud(c, out, cloud, from)
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

// parseStep parses one step's words with its filter's own flags, as the
// filter's command would, and prepares the step.
func parseStep(words []string, out string) (*step, error) {
	if len(words) == 0 {
		return nil, usagef("pipeline: an empty step")
	}
	top := findCommand(commands, words[0])
	if top == nil {
		return nil, usagef("pipeline: unknown step %q (a filter command: %s)", words[0], strings.Join(filterNames(), ", "))
	}
	cmd := top
	if filterOf[top] == nil {
		var methods []string
		for _, sub := range top.Subcommands {
			if filterOf[sub] != nil {
				methods = append(methods, sub.Name)
			}
		}
		if len(methods) == 0 {
			return nil, usagef("pipeline: %q is not a filter (a filter command: %s)", words[0], strings.Join(filterNames(), ", "))
		}
		if len(words) < 2 || !slices.Contains(methods, words[1]) {
			return nil, usagef("pipeline: step %q needs a method (%s)", words[0], strings.Join(methods, ", "))
		}
		cmd = findCommand(top.Subcommands, words[1])
	}
	f := filterOf[cmd]
	var ctx *cli.Context
	clone := *cmd
	clone.Action = func(c *cli.Context) error {
		if c.NArg() > 0 {
			return usagef("takes no IN or OUT (pipeline's own arguments), got %q", c.Args().Slice())
		}
		ctx = c
		return nil
	}
	root := &clone
	if cmd != top {
		t := *top
		t.Subcommands = []*cli.Command{&clone}
		root = &t
	}
	app := &cli.App{
		Name: "pctk", Commands: []*cli.Command{root}, HideHelpCommand: true,
		OnUsageError:   func(_ *cli.Context, err error, _ bool) error { return flagUsage(err) },
		ExitErrHandler: func(*cli.Context, error) {},
	}
	if err := app.Run(reorderArgs(append([]string{"pctk"}, words...))); err != nil {
		return nil, usagef("pipeline step %q: %v", strings.Join(words, " "), err)
	}
	if ctx == nil {
		return nil, usagef("pipeline step %q did not run (help asked?)", strings.Join(words, " "))
	}
	for _, fl := range []*cli.StringFlag{maxMemoryFlag, tmpdirFlag} {
		if ctx.IsSet(fl.Name) {
			return nil, usagef("pipeline step %q: --%s does not apply to a step, whose cloud is in memory (--tile-size does)", strings.Join(words, " "), fl.Name)
		}
	}
	return f.prepare(ctx, out)
}

// filterNames lists the commands pipeline can run as steps.
func filterNames() []string {
	var names []string
	for _, c := range commands {
		if filterOf[c] != nil {
			names = append(names, c.Name)
		}
		for _, s := range c.Subcommands {
			if filterOf[s] != nil {
				names = append(names, c.Name+" "+s.Name)
			}
		}
	}
	return names
}

// splitWords splits a step into words at spaces, as a shell would for
// plain words and quoted ones ('...' or "..."); no other expansion.
func splitWords(s string) ([]string, error) {
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

// pdalStages maps PDAL filter names to a pctk command (nil: chosen by the
// stage's method) and PDAL option names to its flags.
var pdalStages = map[string]struct {
	cmd  []string
	opts map[string]string
}{
	"filters.dbscan":             {[]string{"dbscan"}, map[string]string{"eps": "eps", "min_points": "min-pts", "dimensions": "dims"}},
	"filters.outlier":            {nil, map[string]string{"mean_k": "k", "multiplier": "std-ratio", "radius": "radius", "min_k": "min-neighbors", "class": "class"}},
	"filters.normal":             {[]string{"normals"}, map[string]string{"knn": "knn", "viewpoint": "viewpoint"}},
	"filters.radialdensity":      {[]string{"density"}, map[string]string{"radius": "radius"}},
	"filters.covariancefeatures": {[]string{"features"}, map[string]string{"knn": "knn", "radius": "radius", "mode": "mode", "feature_set": "features", "min_k": "min-k"}},
	"filters.sample":             {[]string{"sample"}, map[string]string{"radius": "radius"}},
}

// parsePipelineJSON reads a JSON pipeline (see the command's description)
// into IN, each step's words and OUT.
func parsePipelineJSON(data []byte) (in string, steps [][]string, out string, err error) {
	var doc struct {
		Pipeline []json.RawMessage `json:"pipeline"`
	}
	trimmed := bytes.TrimSpace(data)
	if len(trimmed) > 0 && trimmed[0] == '[' {
		err = json.Unmarshal(trimmed, &doc.Pipeline)
	} else {
		doc.Pipeline, err = pipelineStages(trimmed)
	}
	if err != nil {
		return "", nil, "", err
	}
	var files []string
	for i, raw := range doc.Pipeline {
		var name string
		if json.Unmarshal(raw, &name) == nil {
			files = append(files, name)
			continue
		}
		kv, err := orderedObject(raw)
		if err != nil {
			return "", nil, "", fmt.Errorf("stage %d: %v", i+1, err)
		}
		typ, _ := kv.get("type")
		switch {
		case strings.HasPrefix(typ, "readers.") || strings.HasPrefix(typ, "writers."):
			name, ok := kv.get("filename")
			if !ok || len(kv) != 2 {
				return "", nil, "", fmt.Errorf("stage %d: %s takes exactly a filename", i+1, typ)
			}
			files = append(files, name)
			continue
		case typ == "":
			return "", nil, "", fmt.Errorf("stage %d: no type", i+1)
		}
		if len(files) != 1 {
			return "", nil, "", fmt.Errorf("stage %d: filters stand between one input and the output", i+1)
		}
		words, err := stageWords(typ, kv)
		if err != nil {
			return "", nil, "", fmt.Errorf("stage %d (%s): %v", i+1, typ, err)
		}
		steps = append(steps, words)
	}
	if len(files) != 2 || len(steps) == 0 {
		return "", nil, "", fmt.Errorf("want an input, at least one filter and an output, got %d file(s) and %d filter(s)", len(files), len(steps))
	}
	return files[0], steps, files[1], nil
}

// stageWords turns a JSON stage into a step's words.
func stageWords(typ string, kv object) ([]string, error) {
	rename := func(k string) (string, error) { return k, nil }
	words := strings.Fields(strings.TrimPrefix(typ, "pctk."))
	if st, ok := pdalStages[typ]; ok {
		words = st.cmd
		if words == nil { // filters.outlier: the method names the mode
			m, _ := kv.get("method")
			if m == "" {
				m = "statistical"
			}
			words = []string{"denoise", m}
		}
		rename = func(k string) (string, error) {
			if f, ok := st.opts[k]; ok {
				return f, nil
			}
			return "", fmt.Errorf("option %q is not one pctk maps (%s)", k, strings.Join(keys(st.opts), ", "))
		}
	}
	words = append([]string(nil), words...)
	for _, e := range kv {
		if e.key == "type" || (typ == "filters.outlier" && e.key == "method") {
			continue
		}
		flag, err := rename(e.key)
		if err != nil {
			return nil, err
		}
		v, err := flagValue(flag, e.value)
		if err != nil {
			return nil, fmt.Errorf("option %q: %v", e.key, err)
		}
		switch {
		case v == "true":
			words = append(words, "--"+flag)
		case v == "false":
		default:
			words = append(words, "--"+flag, v)
		}
	}
	return words, nil
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

func keys(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
