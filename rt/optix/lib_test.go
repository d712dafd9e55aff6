package optix

import (
	"errors"
	"testing"
)

// TestLoadWithoutOptiX checks that where libnvoptix cannot be opened (or
// lacks ABI 60) Load fails with an error wrapping ErrNoOptiX, for callers
// to fall back on.
func TestLoadWithoutOptiX(t *testing.T) {
	err := Load()
	if err == nil {
		t.Skip("OptiX is usable here")
	}
	if !errors.Is(err, ErrNoOptiX) {
		t.Errorf("Load() = %v, want an error wrapping ErrNoOptiX", err)
	}
	if again := Load(); again != err {
		t.Errorf("second Load() = %v, want the first outcome %v", again, err)
	}
}
