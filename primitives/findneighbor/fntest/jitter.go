package fntest

import (
	"math/rand/v2"
	"sync"
	"time"

	"github.com/pctk/pctk/primitives/findneighbor"
)

// Jitter returns a backend that is b but waits before each Build a
// pseudo-random while (up to max, from seed), so that tiles run at once on
// several Jitters (primitives/tile's Pool) finish out of order.
func Jitter(b findneighbor.Backend, seed uint64, max time.Duration) findneighbor.Backend {
	return &jitter{Backend: b, mu: new(sync.Mutex), r: Rand(seed), max: max}
}

type jitter struct {
	findneighbor.Backend
	mu  *sync.Mutex
	r   *rand.Rand
	max time.Duration
}

// InFrame frames the backend the jitter waits for (findneighbor.Framer),
// sharing the jitter's random waits.
func (j *jitter) InFrame(f findneighbor.Frame) findneighbor.Backend {
	return &jitter{Backend: findneighbor.InFrame(j.Backend, f), mu: j.mu, r: j.r, max: j.max}
}

func (j *jitter) Build(xyz []float32, eps float32, opts findneighbor.BuildOptions) (findneighbor.Index, error) {
	j.mu.Lock()
	d := time.Duration(j.r.Int64N(int64(j.max) + 1))
	j.mu.Unlock()
	time.Sleep(d)
	return j.Backend.Build(xyz, eps, opts)
}

// Jitters returns n Jitters of b (seeds seed, seed+1, ...): the backends of
// a Pool whose workers finish their tiles out of order.
func Jitters(b findneighbor.Backend, n int, seed uint64, max time.Duration) []findneighbor.Backend {
	bs := make([]findneighbor.Backend, n)
	for i := range bs {
		bs[i] = Jitter(b, seed+uint64(i), max)
	}
	return bs
}
