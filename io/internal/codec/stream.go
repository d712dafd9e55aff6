package codec

import (
	"fmt"
	"io"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/io/pcio"
)

// NewChunk returns a zeroed cloud of n points with h's schema and metadata.
func NewChunk(h *pcio.Header, n int) *core.Cloud {
	c := core.New(n)
	for _, a := range h.Schema {
		c.Attrs = append(c.Attrs, core.NewAttribute(a.Name, a.Type, n))
	}
	c.Meta = h.Meta
	return c
}

// DecodeAll reads the points of a stream whose header is h. When the input
// size is known (and the header's count was checked against it) the cloud
// is allocated once and into fills c[at:at+n] chunk by chunk; otherwise
// read returns chunks that are appended, so memory grows only with data.
// When into reports a file cut short (*ShortError) and o says to salvage,
// the points before the cut are returned and the error goes to o's Warn;
// read salvages by itself.
func DecodeAll(h *pcio.Header, known bool, o pcio.ReadOptions, into func(c *core.Cloud, at, n int) error, read func(max int) (*core.Cloud, error)) (*core.Cloud, error) {
	if known {
		c := NewChunk(h, int(h.Count))
		for at := 0; at < c.Len(); at += Chunk {
			if err := into(c, at, min(Chunk, c.Len()-at)); err != nil {
				return Salvage(o, err, c, 0)
			}
		}
		return c, nil
	}
	c := NewChunk(h, 0)
	for {
		chunk, err := read(Chunk)
		if err == io.EOF {
			return c, nil
		}
		if err != nil {
			return nil, err
		}
		if err := c.Append(chunk); err != nil {
			return nil, err
		}
	}
}

// EncodeWhole writes the whole cloud c through e, an encoder just made for
// it (err is the error of making it), and closes it: what every codec's
// Encode does after choosing its layout.
func EncodeWhole(e pcio.Encoder, err error, c *core.Cloud) error {
	if err != nil {
		return err
	}
	if err := e.Write(c); err != nil {
		return err
	}
	return e.Close()
}

// Variant maps an Encode variant to a codec's encoding: "" gives src, the
// source file's encoding, or def when the cloud came from elsewhere (src
// ""); the others map through variants[i] -> encodings[i].
func Variant(codec, variant, src, def string, variants, encodings []string) (string, error) {
	if variant == "" {
		if src != "" {
			return src, nil
		}
		return def, nil
	}
	for i, v := range variants {
		if v == variant {
			return encodings[i], nil
		}
	}
	return "", fmt.Errorf("%s: unknown variant %q (want %s)", codec, variant, strings.Join(variants, ", "))
}

// Salvage handles an error err met while decoding chunk c, whose first
// point is point first of the file: a file cut short (*ShortError) read with
// o.Salvage gives c cut to the whole points before the cut, and err goes to
// o's Warn; any other error is returned as it is.
func Salvage(o pcio.ReadOptions, err error, c *core.Cloud, first int64) (*core.Cloud, error) {
	short, ok := err.(*ShortError)
	if !ok || !o.Salvage {
		return nil, err
	}
	o.Warning(short)
	Truncate(c, int(short.Present-first))
	return c, nil
}
