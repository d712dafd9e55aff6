package las

import (
	"bytes"
	"fmt"
	"slices"
	"strings"

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
	// dropped are the columns not written: native fields the point format
	// asked for lacks, columns extra dimensions leave out.
	dropped []string
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
// variant is "", "1.2", "1.3" or "1.4" ("1.0" and "1.1" too, which
// WriteOptions.Version asks for); o's Version replaces it.
func planLayout(schema []*core.Attribute, src *Info, variant string, o *WriteOptions) (*layout, error) {
	pf := -1
	if o != nil {
		if o.Version != "" {
			variant = o.Version
		}
		if o.PointFormat != nil {
			pf = *o.PointFormat
			if pf < 0 || pf > 10 {
				return nil, fmt.Errorf("las: point format %d (LAS defines 0 to 10)", pf)
			}
		}
	}
	explicit := variant != ""
	var minor uint8 = 2
	switch variant {
	case "":
		if src != nil {
			minor = src.Header.VersionMinor
		}
		if pf >= 0 {
			minor = max(minor, minVersion(pf))
		}
	case "1.0", "1.1", "1.2", "1.3", "1.4":
		minor = variant[2] - '0'
	default:
		return nil, fmt.Errorf("las: unknown variant %q (want one of %v)", variant, Variants)
	}
	if pf >= 0 && minor < minVersion(pf) {
		return nil, fmt.Errorf("las: point format %d needs LAS 1.%d or later, not 1.%d", pf, minVersion(pf), minor)
	}
	l, err := planFormat(schema, src, minor, explicit, pf, o)
	if err != nil {
		return nil, err
	}
	if !explicit && l.added && l.minor < 4 {
		// New Extra Bytes in a pre-1.4 file: upgrade, as users of Extra
		// Bytes expect them in LAS 1.4 (a cloud from another format also
		// moves to the 1.4 point formats).
		return planFormat(schema, src, 4, src == nil, pf, o)
	}
	return l, nil
}

// planFormat lays out records for LAS 1.minor in point format pf, or with
// pf -1 in the format the fields need. explicit means the version was
// asked for, so a legacy source format moves to formats 6-10 in 1.4.
func planFormat(schema []*core.Attribute, src *Info, minor uint8, explicit bool, pf int, o *WriteOptions) (*layout, error) {
	cols := make(map[string]*core.Attribute, len(schema))
	for _, a := range schema {
		cols[a.Name] = a
	}
	has := func(names ...string) bool {
		return slices.ContainsFunc(names, func(n string) bool { return cols[n] != nil })
	}
	chosen := pf >= 0 // asked for: native fields it lacks are dropped
	if !chosen {
		pf = autoFormat(has, src, minor, explicit)
		if need := minVersion(pf); minor < need && !explicit {
			minor = need // a LAS 1.0 or 1.1 source that gained colour
		} else if minor < need {
			var names []string
			for _, f := range nativeFields(pf) {
				if cols[f.name] != nil && !fieldNames(nativeFields(1))[f.name] {
					names = append(names, f.name)
				}
			}
			return nil, fmt.Errorf("las: LAS 1.%d holds point formats 0 and 1; %s need point format %d (LAS 1.%d); choose a point format to drop them", minor, strings.Join(names, ", "), pf, need)
		}
	}
	l := &layout{minor: minor, pf: pf, fields: nativeFields(pf)}
	used := fieldNames(l.fields)
	used[core.DimX], used[core.DimY], used[core.DimZ] = true, true, true
	if o != nil && o.ExtraDims != nil {
		// PDAL's extra_dims: these columns alone, in these types.
		listed := map[string]bool{}
		for _, d := range o.ExtraDims {
			if cols[d.Name] == nil {
				return nil, fmt.Errorf("las: extra dimension %s: the cloud has no such column", d.Name)
			}
			desc, err := newDescriptor(&core.Attribute{Name: d.Name, Type: d.Type})
			if err != nil {
				return nil, err
			}
			l.extra = append(l.extra, ExtraField{Descriptor: desc, Columns: []string{d.Name}})
			listed[d.Name] = true
			l.added = true
		}
		for _, a := range schema {
			if !used[a.Name] && !listed[a.Name] {
				l.dropped = append(l.dropped, a.Name)
			}
		}
	} else {
		if chosen && (o == nil || !o.AllExtra) {
			for _, a := range schema {
				if nativeNames[a.Name] && !used[a.Name] {
					l.dropped = append(l.dropped, a.Name)
					used[a.Name] = true
				}
			}
		}
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

// autoFormat returns the point format for LAS 1.minor that holds the
// fields has reports, the smallest of its family, or src's format when that
// holds them all, so that point records come back byte for byte.
func autoFormat(has func(names ...string) bool, src *Info, minor uint8, explicit bool) int {
	srcPF := -1
	if src != nil {
		srcPF = src.Header.pointFormat()
	}
	legacy := minor < 4 || (!explicit && srcPF >= 0 && srcPF <= 5)
	// Waveform formats 4 and 5 need LAS 1.3; in 1.2 the fields go to Extra Bytes.
	wave := has(waveNames...) && minor >= 3
	pf := minimalFormat(legacy, has(core.DimGpsTime), has(core.DimRed, core.DimGreen, core.DimBlue), has(core.DimInfrared), wave)
	if srcPF >= 0 && (srcPF <= 5) == legacy && (minor >= 3 || srcPF < 4) {
		want, got := fieldNames(nativeFields(pf)), fieldNames(nativeFields(srcPF))
		keep := true
		for n := range want {
			keep = keep && got[n]
		}
		if keep {
			pf = srcPF
		}
	}
	return pf
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
