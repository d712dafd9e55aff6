package las

import (
	"bytes"
	"fmt"
	"slices"

	"github.com/pctk/pctk/core"
)

// layout is how an encoder lays out point records.
type layout struct {
	minor  uint8
	pf     int
	recLen int
	fields []field
	extra  []ExtraField
	// eb is the Extra Bytes VLR payload to write, nil for none.
	eb []byte
	// keepEB reports that eb is the source's descriptors as they are, so
	// the source's Extra Bytes VLRs and EVLRs are written unchanged.
	keepEB bool
	// added reports whether columns were added as new Extra Bytes.
	added bool
}

// Variants lists the versions the encoder writes on request. LAS 1.3 is
// there for the waveform point formats 4 and 5.
var Variants = []string{"1.2", "1.3", "1.4"}

// waveNames are the waveform packet fields.
var waveNames = []string{DimWavePacketDescriptorIndex, DimWaveformDataOffset, DimWaveformPacketSize, DimReturnPointWaveformLocation, DimWaveformXt, DimWaveformYt, DimWaveformZt}

// minimalFormat returns the smallest point format of the legacy (0-5) or
// extended (6-10) family that stores GPS time, colour, near infrared and
// waveform packets as asked; legacy formats have no near infrared.
func minimalFormat(legacy, gps, rgb, nir, wave bool) int {
	if legacy {
		switch {
		case wave && rgb:
			return 5
		case wave:
			return 4
		case gps && rgb:
			return 3
		case rgb:
			return 2
		case gps:
			return 1
		}
		return 0
	}
	switch {
	case wave && (rgb || nir):
		return 10
	case wave:
		return 9
	case nir:
		return 8
	case rgb:
		return 7
	}
	return 6
}

func fieldNames(fs []field) map[string]bool {
	m := make(map[string]bool, len(fs))
	for _, f := range fs {
		m[f.name] = true
	}
	return m
}

// planLayout chooses version, point format and Extra Bytes for writing
// the columns of schema. src is the LAS file the cloud came from, or nil;
// variant is "", "1.2", "1.3" or "1.4".
func planLayout(schema []*core.Attribute, src *Info, variant string) (*layout, error) {
	explicit := variant != ""
	var minor uint8 = 2
	switch variant {
	case "":
		if src != nil {
			minor = src.Header.VersionMinor
		}
	case "1.2":
	case "1.3":
		minor = 3
	case "1.4":
		minor = 4
	default:
		return nil, fmt.Errorf("las: unknown variant %q (want one of %v)", variant, Variants)
	}
	l, err := planFormat(schema, src, minor, explicit)
	if err != nil {
		return nil, err
	}
	if !explicit && l.added && l.minor < 4 {
		// New Extra Bytes in a pre-1.4 file: upgrade, as users of Extra
		// Bytes expect them in LAS 1.4 (a cloud from another format also
		// moves to the 1.4 point formats).
		return planFormat(schema, src, 4, src == nil)
	}
	return l, nil
}

// planFormat lays out records for LAS 1.minor. explicit means the version
// was asked for, so a legacy source format moves to formats 6-10 in 1.4.
func planFormat(schema []*core.Attribute, src *Info, minor uint8, explicit bool) (*layout, error) {
	cols := make(map[string]*core.Attribute, len(schema))
	for _, a := range schema {
		cols[a.Name] = a
	}
	has := func(names ...string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return cols[n] != nil })
	}
	srcPF := -1
	if src != nil {
		srcPF = src.Header.pointFormat()
	}
	legacy := minor < 4 || (!explicit && srcPF >= 0 && srcPF <= 5)
	// Waveform formats 4 and 5 need LAS 1.3; in 1.2 the fields go to Extra Bytes.
	wave := has(waveNames...) && minor >= 3
	pf := minimalFormat(legacy, has(core.DimGpsTime), has(core.DimRed, core.DimGreen, core.DimBlue), has(core.DimInfrared), wave)
	if srcPF >= 0 && (srcPF <= 5) == legacy && (minor >= 3 || srcPF < 4) {
		// Keep the source's format when it stores every field the minimal
		// one does, so that point records come back byte for byte.
		want, got := fieldNames(nativeFields(pf)), fieldNames(nativeFields(srcPF))
		keep := true
		for n := range want {
			keep = keep && got[n]
		}
		if keep {
			pf = srcPF
		}
	}
	l := &layout{minor: minor, pf: pf, fields: nativeFields(pf)}
	used := fieldNames(l.fields)
	used[core.DimX], used[core.DimY], used[core.DimZ] = true, true, true
	if src != nil {
		for _, ef := range src.Extra {
			ok := true
			for _, f := range ef.fields(0) {
				a := cols[f.name]
				ok = ok && a != nil && a.Type == f.col && !used[f.name]
			}
			if ok {
				l.extra = append(l.extra, ef)
				for _, n := range ef.Columns {
					used[n] = true
				}
			}
		}
	}
	for _, a := range schema {
		if used[a.Name] {
			continue
		}
		d, err := newDescriptor(a)
		if err != nil {
			return nil, err
		}
		l.extra = append(l.extra, ExtraField{Descriptor: d, Columns: []string{a.Name}})
		used[a.Name] = true
		l.added = true
	}
	// Bytes with no descriptor may trail the described ones as they are;
	// one before a described field gets a descriptor of data type 0 (the
	// spec's "undocumented extra bytes") of size 1, named as its column.
	lastDescribed := -1
	for i, ef := range l.extra {
		if ef.Descriptor != nil {
			lastDescribed = i
		}
	}
	off := formatSizes[pf]
	for i := range l.extra {
		ef := &l.extra[i]
		if i < lastDescribed && ef.Descriptor == nil {
			ef.Descriptor = undocumentedDescriptor(ef.Columns[0])
		}
		if i <= lastDescribed {
			l.eb = append(l.eb, ef.Descriptor...)
		}
		l.fields = append(l.fields, ef.fields(off)...)
		off += ef.size()
	}
	if off > 0xffff {
		return nil, fmt.Errorf("las: point record of %d bytes exceeds the 65535 LAS allows", off)
	}
	l.recLen = off
	l.keepEB = src != nil && l.eb != nil && bytes.Equal(l.eb, src.descriptors())
	return l, nil
}

// vlrs returns the VLRs to write: the source's in order, with the Extra
// Bytes records kept when the layout keeps the source's descriptors, else
// replaced by one of the layout's (or added, or dropped), and the CRS
// records replaced when the cloud's CRS differs from the source's.
func (l *layout) vlrs(src *Info, crs core.CRS) []VLR {
	var in []VLR
	var srcCRS core.CRS
	if src != nil {
		in = src.VLRs
		srcCRS = crsFromVLRs(append(slices.Clone(src.VLRs), src.EVLRs...))
	}
	change := planCRS(crs, srcCRS)
	var out []VLR
	ebDone := false
	for _, v := range in {
		switch {
		case v.Is(userSpec, recExtraBytes) && !l.keepEB:
			// The layout changed: its descriptors replace the first
			// Extra Bytes record, the others go.
			if l.eb == nil || ebDone {
				continue
			}
			if !bytes.Equal(v.Data, l.eb) {
				v.Data = l.eb
			}
		case change.drops(&v):
			continue
		}
		ebDone = ebDone || v.Is(userSpec, recExtraBytes)
		out = append(out, v)
	}
	if l.eb != nil && !ebDone && !l.keepEB {
		out = append(out, newVLR(userSpec, recExtraBytes, "Extra Bytes", l.eb))
	}
	out = append(out, change.add...)
	return out
}
