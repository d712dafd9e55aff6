package findneighbor

// SetMomentBlock sets the points momentBlocks queries at a time and
// returns what restores it, for tests of several blocks on small clouds.
func SetMomentBlock(n int) (restore func()) {
	old := momentBlock
	momentBlock = n
	return func() { momentBlock = old }
}
