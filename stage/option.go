package stage

import (
	"fmt"
	"math"
	"os"
	"slices"
	"strconv"
	"strings"
)

// Kind is the type of an option's value.
type Kind int

// The kinds of option values.
const (
	Bool Kind = iota
	Int
	Uint64
	Float
	String
)

func (k Kind) String() string {
	return [...]string{"bool", "int", "uint64", "float", "string"}[k]
}

// Option declares one option of a stage (or of the driver, shared by
// every stage): its name (a flag's long name, a pipeline step's word and a
// JSON key), its PDAL name where PDAL's stage has it, the kind and default
// of its value and its help. The command line, pctk pipeline (words and
// JSON) and Beam all read the same declaration, as PDAL's addArgs does.
type Option struct {
	Name    string
	Aliases []string // one-letter or older names
	// PDAL is the option's name in PDAL's stage ("min_points"), when it
	// differs from Name; "-" when PDAL's stage has no such option.
	PDAL string
	// PDALValues maps PDAL's values of the option to pctk's, where they
	// differ (voxeldownsize's mode first: downsize-first).
	PDALValues map[string]string
	Kind       Kind
	// Value is the default (a bool, an int, a uint64, a float64 or a
	// string, as Kind says; an untyped constant of another numeric kind is
	// converted); nil: the zero value.
	Value any
	// DefaultText, when set, is what help shows as the default instead of
	// Value ("none", "every level").
	DefaultText string
	// Usage is the one-line help; a word in backquotes names the value
	// ("radius `R` in coordinate units").
	Usage string
	// EnvVars name environment variables that set the option when it is
	// not given (PCTK_BACKEND).
	EnvVars []string
}

// Default returns the option's default value in its kind's Go type.
func (o *Option) Default() any {
	v := o.Value
	switch o.Kind {
	case Bool:
		b, _ := v.(bool)
		return b
	case Int:
		return int(toFloat(v))
	case Uint64:
		return uint64(toFloat(v))
	case Float:
		return toFloat(v)
	}
	s, _ := v.(string)
	return s
}

// toFloat converts a numeric default to float64 (0 for nil).
func toFloat(v any) float64 {
	switch x := v.(type) {
	case int:
		return float64(x)
	case int64:
		return float64(x)
	case uint64:
		return float64(x)
	case float64:
		return x
	}
	return 0
}

// Parse converts text to a value of the option's kind, as a flag's
// parser would; errors name the option.
func (o *Option) Parse(text string) (any, error) {
	var v any
	var err error
	switch o.Kind {
	case Bool:
		v, err = strconv.ParseBool(text)
	case Int:
		var i int64
		i, err = strconv.ParseInt(text, 0, 64)
		v = int(i)
	case Uint64:
		v, err = strconv.ParseUint(text, 0, 64)
	case Float:
		v, err = strconv.ParseFloat(text, 64)
	default:
		v = text
	}
	if err != nil {
		return nil, UsageError{fmt.Sprintf("invalid value %q for flag -%s: want a %s", text, o.Name, o.Kind)}
	}
	return v, nil
}

// Values are the values of a run's options, looked up by name: the
// declared default where an option was not given. Values of
// urfave/cli satisfies it, and so does Settings (pipeline steps, JSON,
// Beam).
type Values interface {
	Bool(name string) bool
	Int(name string) int
	Uint64(name string) uint64
	Float64(name string) float64
	String(name string) string
	IsSet(name string) bool
}

// Settings are Values of declared options, set from words or JSON.
type Settings struct {
	opts []*Option
	set  map[string]any
}

// NewSettings returns Settings of opts, none set.
func NewSettings(opts []*Option) *Settings {
	return &Settings{opts: opts, set: map[string]any{}}
}

// Option returns the option named name (or one of its aliases), nil if none.
func (s *Settings) Option(name string) *Option {
	for _, o := range s.opts {
		if o.Name == name || slices.Contains(o.Aliases, name) {
			return o
		}
	}
	return nil
}

// Set sets the option named name from text.
func (s *Settings) Set(name, text string) error {
	o := s.Option(name)
	if o == nil {
		return UsageError{fmt.Sprintf("flag provided but not defined: --%s", name)}
	}
	v, err := o.Parse(text)
	if err != nil {
		return err
	}
	s.set[o.Name] = v
	return nil
}

func (s *Settings) value(name string) any {
	if v, ok := s.set[name]; ok {
		return v
	}
	if o := s.Option(name); o != nil {
		if v, ok := s.set[o.Name]; ok {
			return v
		}
		for _, env := range o.EnvVars {
			if text := os.Getenv(env); text != "" {
				if v, err := o.Parse(text); err == nil {
					return v
				}
			}
		}
		return o.Default()
	}
	return nil
}

// Bool returns the value of a Bool option.
func (s *Settings) Bool(name string) bool { b, _ := s.value(name).(bool); return b }

// Int returns the value of an Int option.
func (s *Settings) Int(name string) int { i, _ := s.value(name).(int); return i }

// Uint64 returns the value of a Uint64 option.
func (s *Settings) Uint64(name string) uint64 { u, _ := s.value(name).(uint64); return u }

// Float64 returns the value of a Float option.
func (s *Settings) Float64(name string) float64 {
	f, ok := s.value(name).(float64)
	if !ok {
		return math.NaN()
	}
	return f
}

// String returns the value of a String option.
func (s *Settings) String(name string) string { t, _ := s.value(name).(string); return t }

// IsSet reports whether the option was given.
func (s *Settings) IsSet(name string) bool {
	if o := s.Option(name); o != nil {
		_, ok := s.set[o.Name]
		return ok
	}
	return false
}

// ParseWords sets options from a step's words as a command line gives
// them: "--name value", "--name=value", "-n value", a Bool option alone
// ("--force") or "--force=false". It returns the words that are not
// options (a stage's IN and OUT on the command line; none in a pipeline
// step).
func (s *Settings) ParseWords(words []string) (args []string, err error) {
	for i := 0; i < len(words); i++ {
		w := words[i]
		if len(w) < 2 || w[0] != '-' || w == "--" {
			args = append(args, w)
			continue
		}
		name := strings.TrimLeft(w, "-")
		text, hasText := "", false
		if j := strings.IndexByte(name, '='); j >= 0 {
			name, text, hasText = name[:j], name[j+1:], true
		}
		o := s.Option(name)
		if o == nil {
			return nil, UsageError{fmt.Sprintf("flag provided but not defined: %s", w)}
		}
		if !hasText {
			if o.Kind == Bool {
				text = "true"
			} else {
				if i+1 >= len(words) {
					return nil, UsageError{fmt.Sprintf("flag needs an argument: %s", w)}
				}
				i++
				text = words[i]
			}
		}
		if err := s.Set(o.Name, text); err != nil {
			return nil, err
		}
	}
	return args, nil
}

// UsageError marks errors in how a stage was called (an unknown option, a
// value out of its limits): the command line exits with status 2.
type UsageError struct{ Msg string }

func (e UsageError) Error() string { return e.Msg }

// Usagef returns a UsageError with a formatted message.
func Usagef(format string, args ...any) error {
	return UsageError{fmt.Sprintf(format, args...)}
}
