package stage

import (
	"errors"

	"github.com/pctk/pctk/primitives/findneighbor"
	"github.com/pctk/pctk/primitives/tile"
)

// checkTileSize checks --tile-size (when given) against the job's
// neighbour reach, its halo, and the points xyz that take part (none
// before IN is read: the reach alone) with tile.CheckSize: a size too small
// to be useful is a usage error naming the flag and the smallest size.
func (s *step) checkTileSize(xyz []float32) error {
	if s.tileSize == 0 {
		return nil
	}
	var lo, hi [2]float64
	if len(xyz) >= 3 {
		b := findneighbor.BoxOf(xyz)
		lo, hi = [2]float64{float64(b.Min[0]), float64(b.Min[1])}, [2]float64{float64(b.Max[0]), float64(b.Max[1])}
	}
	return s.checkTileBounds(s.reach(), lo, hi, int64(len(xyz)/3))
}

// checkTileBounds is checkTileSize for n points in [lo, hi] seen through
// tiles with halo (an out-of-core run's, which knows them from its first
// pass).
func (s *step) checkTileBounds(halo float64, lo, hi [2]float64, n int64) error {
	if s.tileSize == 0 {
		return nil
	}
	err := tile.CheckSize(s.tileSize, halo, lo, hi, n)
	if se := (*tile.SmallError)(nil); errors.As(err, &se) {
		return Usagef("--tile-size: %v", err)
	}
	return err
}

// reach is the job's neighbour reach: the halo its tiles need (0 for a
// neighbourhood of k points, whose reach only the points tell).
func (s *step) reach() float64 {
	if s.job.Stream == nil {
		return 0
	}
	return s.job.Stream.Halo
}
