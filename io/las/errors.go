package las

import "fmt"

// FormatError reports malformed LAS input: a header field, VLR or record
// that contradicts the specification or the rest of the file. It is
// io/internal/codec's FormatError with the field named, as LAS users look
// fields up by name in the specification.
type FormatError struct {
	// Field names what is wrong ("header size", "VLR 3 record length", ...).
	Field string
	// Offset is the byte offset of the field in the file.
	Offset int64
	// Msg says what is wrong with it.
	Msg string
	// Err, when set, is the cause: io.ErrUnexpectedEOF for a file that
	// ends inside the field.
	Err error
}

func (e *FormatError) Error() string {
	s := fmt.Sprintf("las: %s at byte offset %d: %s", e.Field, e.Offset, e.Msg)
	if e.Err != nil {
		s += ": " + e.Err.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *FormatError) Unwrap() error { return e.Err }

// UnsupportedError reports valid LAS input that pctk does not handle, such
// as a LAS version past 1.4 or a LAZ file without its LASzip VLR.
type UnsupportedError struct {
	// Field names the header field that asks for the feature.
	Field string
	// Offset is the byte offset of the field in the file.
	Offset int64
	// Msg says which feature.
	Msg string
}

func (e *UnsupportedError) Error() string {
	return fmt.Sprintf("las: unsupported %s at byte offset %d: %s", e.Field, e.Offset, e.Msg)
}

func formatErr(field string, off int64, format string, args ...any) error {
	return &FormatError{Field: field, Offset: off, Msg: fmt.Sprintf(format, args...)}
}
