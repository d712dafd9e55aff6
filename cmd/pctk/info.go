package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/pctk/pctk/core"
	"github.com/pctk/pctk/internal/msg"
	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/remote"
	"github.com/pctk/pctk/stage"
	"github.com/urfave/cli/v2"
)

func init() {
	commands = append(commands, &cli.Command{
		Name:      "info",
		Usage:     "print a file's format, point count, bounds, attributes with min/max and CRS",
		ArgsUsage: "FILE",
		Description: "FILE is any format pctk reads (LAS/LAZ, PLY, PCD, STL) or - for standard input.\n" +
			"A cloud with Classification gets its histogram with the ASPRS names, one with\n" +
			"ReturnNumber and NumberOfReturns a returns table (docs/las.md).\n\n" +
			"Examples:\n" +
			"   pctk info scan.laz\n" +
			"   pctk info --stats scan.laz\n" +
			"   pctk info --json table_scene_lms400.pcd",
		Flags: append([]cli.Flag{
			&cli.BoolFlag{Name: "json", Usage: "print the facts as JSON"},
			&cli.BoolFlag{Name: "stats", Usage: "also print each dimension's count, minimum, maximum, average and standard deviation (PDAL info --stats)"},
			flagOf(stage.SalvageOption),
		}, flagsOf(stage.QueryOptions...)...),
		Action: runInfo,
	})
}

// infoReport is what "pctk info" prints; its JSON form is stable.
type infoReport struct {
	File       string      `json:"file"`
	Format     string      `json:"format"`
	Points     int         `json:"points"`
	Bounds     *boundsInfo `json:"bounds,omitempty"`
	Attributes []attrInfo  `json:"attributes"`
	CRS        *crsInfo    `json:"crs,omitempty"`
	Comments   []string    `json:"comments,omitempty"`
	Header     []pcio.Fact `json:"header,omitempty"`
	// Stats (with --stats), Classes and Returns: infostats.go.
	Stats   []dimStats    `json:"stats,omitempty"`
	Classes []classCount  `json:"classes,omitempty"`
	Returns []returnCount `json:"returns,omitempty"`
}

// boundsInfo is the cloud's bounding box, with lower-case JSON keys like
// every other key of the report.
type boundsInfo struct {
	Min [3]float64 `json:"min"`
	Max [3]float64 `json:"max"`
}

type attrInfo struct {
	Name string   `json:"name"`
	Type string   `json:"type"`
	Min  *float64 `json:"min,omitempty"`
	Max  *float64 `json:"max,omitempty"`
}

type crsInfo struct {
	EPSG    int      `json:"epsg,omitempty"`
	WKT     string   `json:"wkt,omitempty"`
	GeoKeys []uint16 `json:"geokeys,omitempty"`
}

func runInfo(c *cli.Context) error {
	if c.NArg() != 1 {
		return stage.Usagef("info needs exactly one FILE (or - for stdin), got %d argument(s)", c.NArg())
	}
	path := c.Args().First()
	q, err := stage.QueryOf(c)
	if err != nil {
		return err
	}
	// The octree first: it reads only the hierarchy, and tells what the
	// query will read before the points are fetched.
	octree, err := stage.CopcFacts(path, q)
	if err != nil {
		return err
	}
	if remote.IsURL(path) {
		for _, f := range octree {
			if f.Key == "COPC query reads" {
				msg.Infof("pctk: %s: the query reads %s", pcio.Name(path), f.Value)
			}
		}
	}
	cloud, f, err := stage.ReadCloud(c, path)
	if err != nil {
		return err
	}
	r := describe(path, f, cloud)
	r.Header = append(r.Header, octree...)
	if c.Bool("stats") {
		r.Stats = statsOf(cloud)
	}
	if c.Bool("json") {
		return stage.PrintJSON(r)
	}
	printInfo(os.Stdout, r)
	return nil
}

func describe(path string, f *pcio.Format, cloud *core.Cloud) infoReport {
	r := infoReport{File: path, Format: f.Name, Points: cloud.Len(), Comments: cloud.Meta.Comments, Attributes: []attrInfo{}}
	if b, ok := cloud.Bounds(); ok {
		r.Bounds = &boundsInfo{Min: b.Min, Max: b.Max}
	}
	for _, a := range cloud.Attrs {
		ai := attrInfo{Name: a.Name, Type: a.Type.String()}
		if lo, hi, ok := a.Range(); ok {
			ai.Min, ai.Max = &lo, &hi
		}
		r.Attributes = append(r.Attributes, ai)
	}
	if crs := cloud.Meta.CRS; !crs.IsZero() {
		r.CRS = &crsInfo{EPSG: crs.EPSG, WKT: crs.WKT, GeoKeys: crs.GeoKeys}
	}
	if f.Describe != nil {
		r.Header = f.Describe(&cloud.Meta)
	}
	r.Classes, r.Returns = classesOf(cloud), returnsOf(cloud)
	return r
}

func printInfo(w io.Writer, r infoReport) {
	fmt.Fprintf(w, "file:       %s\n", r.File)
	fmt.Fprintf(w, "format:     %s\n", r.Format)
	fmt.Fprintf(w, "points:     %d\n", r.Points)
	if b := r.Bounds; b != nil {
		fmt.Fprintf(w, "bounds:     X [%s, %s]\n", number(b.Min[0]), number(b.Max[0]))
		fmt.Fprintf(w, "            Y [%s, %s]\n", number(b.Min[1]), number(b.Max[1]))
		fmt.Fprintf(w, "            Z [%s, %s]\n", number(b.Min[2]), number(b.Max[2]))
	}
	switch crs := r.CRS; {
	case crs == nil:
		fmt.Fprintf(w, "crs:        none\n")
	case crs.EPSG != 0:
		fmt.Fprintf(w, "crs:        EPSG:%d\n", crs.EPSG)
	case crs.WKT != "":
		fmt.Fprintf(w, "crs:        %s\n", firstLine(crs.WKT, 100))
	default:
		fmt.Fprintf(w, "crs:        GeoTIFF keys (%d values)\n", len(crs.GeoKeys))
	}
	fmt.Fprintf(w, "attributes: %d\n", len(r.Attributes))
	for _, a := range r.Attributes {
		if a.Min != nil {
			fmt.Fprintf(w, "  %-20s %-8s [%s, %s]\n", a.Name, a.Type, number(*a.Min), number(*a.Max))
		} else {
			fmt.Fprintf(w, "  %-20s %-8s\n", a.Name, a.Type)
		}
	}
	width := 0
	for _, f := range r.Header {
		width = max(width, len(f.Key)+1)
	}
	for _, f := range r.Header {
		fmt.Fprintf(w, "%-*s %s\n", width, f.Key+":", f.Value)
	}
	for _, cm := range r.Comments {
		fmt.Fprintf(w, "comment:    %s\n", cm)
	}
	printHistograms(w, r)
}

// number formats v as the shortest decimal that reads back as v, without
// an exponent where that is short: 2230738.84, not 2230738.8399999999 or
// 2.23073884e+06; 1e+90, not 91 digits (pcio.FormatFloat).
func number(v float64) string { return pcio.FormatFloat(v) }

// firstLine returns s up to its first newline, cut to n bytes.
func firstLine(s string, n int) string {
	s, _, _ = strings.Cut(s, "\n")
	if len(s) > n {
		s = s[:n] + "..."
	}
	return s
}
