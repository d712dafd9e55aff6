package stage

import (
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/pctk/pctk/internal/msg"
)

// progress returns a callback that redraws "label: NN%" on stderr at most
// ten times a second, and a function that ends the line. Both do nothing
// unless stderr is a terminal and --quiet is off. The callback is safe to
// call from several goroutines.
func progress(label string) (update func(done float64), finish func()) {
	if msg.Current < msg.Normal || !msg.StderrIsTerminal() {
		return func(float64) {}, func() {}
	}
	var mu sync.Mutex
	var last time.Time
	drawn := false
	update = func(done float64) {
		mu.Lock()
		defer mu.Unlock()
		if now := time.Now(); now.Sub(last) >= 100*time.Millisecond {
			last = now
			drawn = true
			fmt.Fprintf(os.Stderr, "\r%s: %3.0f%%", label, 100*min(max(done, 0), 1))
		}
	}
	finish = func() {
		mu.Lock()
		defer mu.Unlock()
		if drawn {
			fmt.Fprint(os.Stderr, "\r\033[K")
		}
	}
	return update, finish
}

// stageProgress adapts the progress line to work in stages: report draws
// "label: NN%" for the stage "" and "label: STAGE: NN%" for a named one,
// each stage on its own line; finish ends the last.
func stageProgress(label string) (report func(stage string, done float64), finish func()) {
	var mu sync.Mutex
	cur := ""
	update, end := progress(label)
	report = func(stage string, done float64) {
		mu.Lock()
		if stage != cur {
			end()
			name := label
			if stage != "" {
				name += ": " + stage
			}
			update, end = progress(name)
			cur = stage
		}
		u := update
		mu.Unlock()
		u(done)
	}
	finish = func() {
		mu.Lock()
		defer mu.Unlock()
		end()
	}
	return report, finish
}
