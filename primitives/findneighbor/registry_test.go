package findneighbor

import (
	"errors"
	"testing"
)

// fakeBackend reports a fixed probe outcome and counts its probes.
type fakeBackend struct {
	name   string
	pri    int
	err    error
	bound  int // MaxPriority; see boundBackend
	probes int
}

func (f *fakeBackend) Name() string { return f.name }
func (f *fakeBackend) Probe() (Info, error) {
	f.probes++
	return Info{Name: f.name, Priority: f.pri}, f.err
}
func (f *fakeBackend) Build([]float32, float32, BuildOptions) (Index, error) {
	return nil, errors.New("fake")
}

// boundBackend is a fakeBackend that declares its priority bound.
type boundBackend struct{ *fakeBackend }

func (b boundBackend) MaxPriority() int { return b.bound }

func TestPickAutoSkipsBackendsThatCannotWin(t *testing.T) {
	unusable := errors.New("no GPU")
	for _, c := range []struct {
		name       string
		list       func() ([]Backend, []*fakeBackend)
		want       string
		wantProbes []int
	}{
		{"gpu usable: lower bounds unprobed", func() ([]Backend, []*fakeBackend) {
			cpu := &fakeBackend{name: "cpu", pri: 10}
			gpu := &fakeBackend{name: "gpu", pri: 50, bound: 50}
			rt := &fakeBackend{name: "rt", pri: 40, bound: 45}
			return []Backend{cpu, boundBackend{gpu}, boundBackend{rt}}, []*fakeBackend{cpu, gpu, rt}
		}, "gpu", []int{1, 1, 0}},
		{"gpu unusable: next bound probed", func() ([]Backend, []*fakeBackend) {
			cpu := &fakeBackend{name: "cpu", pri: 10}
			gpu := &fakeBackend{name: "gpu", bound: 50, err: unusable}
			rt := &fakeBackend{name: "rt", pri: 40, bound: 45}
			return []Backend{cpu, boundBackend{gpu}, boundBackend{rt}}, []*fakeBackend{cpu, gpu, rt}
		}, "rt", []int{1, 1, 1}},
		{"equal priority: first registered wins, later one unprobed", func() ([]Backend, []*fakeBackend) {
			a := &fakeBackend{name: "a", pri: 30, bound: 30}
			b := &fakeBackend{name: "b", pri: 30, bound: 30}
			return []Backend{boundBackend{a}, boundBackend{b}}, []*fakeBackend{a, b}
		}, "a", []int{1, 0}},
		{"an unbounded backend above the bounds wins", func() ([]Backend, []*fakeBackend) {
			gpu := &fakeBackend{name: "gpu", pri: 50, bound: 50}
			big := &fakeBackend{name: "big", pri: 90}
			return []Backend{boundBackend{gpu}, big}, []*fakeBackend{gpu, big}
		}, "big", []int{0, 1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			list, fakes := c.list()
			b, err := pickAuto(list)
			if err != nil {
				t.Fatal(err)
			}
			if b.Name() != c.want {
				t.Errorf("picked %s, want %s", b.Name(), c.want)
			}
			for i, f := range fakes {
				if f.probes != c.wantProbes[i] {
					t.Errorf("%s probed %d times, want %d", f.name, f.probes, c.wantProbes[i])
				}
			}
		})
	}
	if _, err := pickAuto([]Backend{&fakeBackend{name: "x", err: unusable}}); !errors.Is(err, ErrUnavailable) {
		t.Errorf("no usable backend: err = %v, want ErrUnavailable", err)
	}
}
