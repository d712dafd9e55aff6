package stage

import (
	"strings"

	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/text"
)

// The options of the text format (io/text) that a file cannot tell:
// --columns names the columns of text input without a header line,
// --precision sets the decimals of text output.
var (
	ColumnsOption = &Option{Kind: String,
		Name:  "columns",
		Usage: "for text input (.xyz .txt .csv .pts): the column `NAMES`, comma-separated, when the file has no header line (x,y,z,intensity; a name may carry a type: red:uint8; default: the header line's names, else X Y Z [Intensity] or X Y Z Column4 ... by the count of values)",
	}
	PrecisionOption = &Option{Kind: Int,
		Name:        "precision",
		Usage:       "for text output: the number of decimals of floating-point values",
		DefaultText: "the shortest form that reads back to the same value",
	}
)

// WithText binds --columns (input) or --precision (output) to f when f is
// a text format; either flag with a format of another kind is a usage
// error, rather than an option silently ignored.
func WithText(c Values, f *pcio.Format, input bool) (*pcio.Format, error) {
	var o text.Options
	flag := PrecisionOption.Name
	if input {
		flag = ColumnsOption.Name
		if s := c.String(flag); s != "" {
			o.Columns = strings.Split(s, ",")
		}
	} else {
		o.Precision = c.Int(flag)
		if o.Precision < 0 {
			return nil, Usagef("--precision needs a number of decimals ≥ 0, got %d", o.Precision)
		}
	}
	if !text.IsText(f) {
		if c.IsSet(flag) {
			return nil, Usagef("--%s applies to text files (.xyz .txt .csv .pts), not %s", flag, f.Name)
		}
		return f, nil
	}
	return text.WithOptions(f, o), nil
}
