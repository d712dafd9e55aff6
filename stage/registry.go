package stage

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/pctk/pctk/core"
)

// The registry of stages, as image.RegisterFormat keeps formats: each
// stage registers itself from an init function.
var (
	regMu  sync.Mutex
	stages []*Stage
	groups []*Group
)

// Group is a command whose modes are stages ("denoise" of "denoise
// statistical" and "denoise radius"): its own help.
type Group struct {
	Name        string
	Usage       string
	Description string
}

// Register adds s to the registry. It panics on a stage without a name or
// Prepare, or a name (or PDAL name and mode) registered twice: both are
// mistakes in the program, found when it starts.
func Register(s *Stage) {
	regMu.Lock()
	defer regMu.Unlock()
	if s.Name == "" || s.Prepare == nil {
		panic(fmt.Sprintf("stage: Register of %q without a name or Prepare", s.Name))
	}
	for _, o := range stages {
		if o.Name == s.Name || s.PDAL != "" && o.PDAL == s.PDAL && o.PDALMode == s.PDALMode {
			panic(fmt.Sprintf("stage: %q registered twice", s.Name))
		}
	}
	for _, d := range s.Writes {
		core.RegisterDimension(d)
	}
	stages = append(stages, s)
}

// RegisterGroup adds a group of modes to the registry.
func RegisterGroup(g *Group) {
	regMu.Lock()
	defer regMu.Unlock()
	groups = append(groups, g)
}

// Stages returns the registered stages in the order they registered (a
// group's modes in the order its help lists them).
func Stages() []*Stage {
	regMu.Lock()
	defer regMu.Unlock()
	return slices.Clone(stages)
}

// Groups returns the registered groups, sorted by name.
func Groups() []*Group {
	regMu.Lock()
	defer regMu.Unlock()
	out := slices.Clone(groups)
	slices.SortFunc(out, func(a, b *Group) int { return strings.Compare(a.Name, b.Name) })
	return out
}

// Lookup returns the stage that words start with (its name's words, the
// last one or an alias of it) and the words after them; nil when none.
func Lookup(words []string) (*Stage, []string) {
	for _, s := range Stages() {
		name := strings.Fields(s.Name)
		if len(words) < len(name) || !slices.Equal(words[:len(name)-1], name[:len(name)-1]) {
			continue
		}
		if last := words[len(name)-1]; last == name[len(name)-1] || slices.Contains(s.Aliases, last) {
			return s, words[len(name):]
		}
	}
	return nil, words
}

// ByPDAL returns the stage that serves PDAL's stage typ ("filters.lof",
// or one of a stage's PDALAs),
// with mode the value of its "method" option where several stages serve
// it (filters.outlier; "": the first registered, which serves PDAL's
// default method); nil when none.
func ByPDAL(typ, mode string) *Stage {
	var first *Stage
	for _, s := range Stages() {
		if _, ok := s.PDALAs[typ]; ok {
			return s
		}
		if s.PDAL != typ {
			continue
		}
		if s.PDALMode == mode {
			return s
		}
		if first == nil {
			first = s
		}
	}
	if mode == "" {
		return first
	}
	return nil
}

// ExampleOptions returns the option words of the stage's first example,
// without IN and OUT and without options that name files (their value is
// a `FILE`): the options with which tests that walk the registry run it.
func (s *Stage) ExampleOptions() ([]string, error) {
	if len(s.Examples) == 0 {
		return nil, fmt.Errorf("stage %s has no example", s.Name)
	}
	words, err := SplitWords(s.Examples[0])
	if err != nil {
		return nil, fmt.Errorf("example %q: %v", s.Examples[0], err)
	}
	words = words[1+len(strings.Fields(s.Name)):]
	v := NewSettings(s.AllOptions())
	var out []string
	for i := 0; i < len(words); i++ {
		w := words[i]
		if !strings.HasPrefix(w, "-") {
			continue // IN, OUT
		}
		o := v.Option(strings.TrimLeft(w, "-"))
		if o == nil {
			return nil, fmt.Errorf("example %q: unknown option %s", s.Examples[0], w)
		}
		take := []string{w}
		if o.Kind != Bool {
			if i++; i == len(words) {
				return nil, fmt.Errorf("example %q: %s without its value", s.Examples[0], w)
			}
			take = append(take, words[i])
		}
		if !strings.Contains(o.Usage, "`FILE`") {
			out = append(out, take...)
		}
	}
	return out, nil
}
