package optix

import "testing"

// TestSBT checks where the shader binding table points: the raygen
// programs' records first, in PipelineDesc.Raygen's order, then the miss
// record, then the hit group's, one header apart.
func TestSBT(t *testing.T) {
	p := &Pipeline{raygens: 2, records: 4096}
	for raygen, want := range []uint64{4096, 4096 + sbtRecordHeaderSize} {
		s := p.sbt(raygen)
		if s.RaygenRecord != want {
			t.Errorf("raygen %d: record at %d, want %d", raygen, s.RaygenRecord, want)
		}
		if s.MissRecordBase != 4096+2*sbtRecordHeaderSize || s.HitgroupRecordBase != 4096+3*sbtRecordHeaderSize {
			t.Errorf("raygen %d: miss at %d, hit group at %d, want %d and %d", raygen,
				s.MissRecordBase, s.HitgroupRecordBase, 4096+2*sbtRecordHeaderSize, 4096+3*sbtRecordHeaderSize)
		}
		if s.MissRecordCount != 1 || s.HitgroupRecordCount != 1 ||
			s.MissRecordStrideInBytes != sbtRecordHeaderSize || s.HitgroupRecordStrideInBytes != sbtRecordHeaderSize {
			t.Errorf("raygen %d: %+v, want one record of %d bytes for miss and hit group", raygen, s, sbtRecordHeaderSize)
		}
	}
}
