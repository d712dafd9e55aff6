package fntest

import (
	"fmt"
	"testing"
)

// Recorder is a testing.TB that collects Errorf messages instead of
// failing, for tests that check a checker catches a defect: wrap the real
// test (&Recorder{TB: t}), run the checker, and look at Errs.
type Recorder struct {
	testing.TB
	Errs []string
}

// Errorf records the message.
func (r *Recorder) Errorf(format string, args ...any) {
	r.Errs = append(r.Errs, fmt.Sprintf(format, args...))
}
