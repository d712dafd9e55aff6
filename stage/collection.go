package stage

import (
	"os"
	"path"
	"path/filepath"
	"strings"

	"github.com/pctk/pctk/io/pcio"
	"github.com/pctk/pctk/io/remote"
)

// Tile collections (docs/scale.md): a tiled filter's IN may be several
// files or a glob ('tiles/*.laz') and OUT a folder. The files are one
// cloud, in the order given (each glob's matches sorted), run out of core
// (--max-memory, or a quarter of the machine's memory, 1GiB at least):
// every point sees its neighbours in the other files, as in the files'
// concatenation, and each file's points are written to OUT/its name (with
// --format's extension when given).

// defaultCollectionMemory is --max-memory for a collection without it: a
// quarter of the machine's memory (or of the cgroup's limit, when lower),
// 1GiB at least and where the memory is unknown. The quarter leaves room
// for the estimate's error (fusedBytes: 19 GiB estimated, 26 GiB resident
// for issue 32's 64M points on the cuda backend) and for other work.
func defaultCollectionMemory() int64 {
	return max(1<<30, physicalMemory()/4)
}

// isGlob reports whether an IN is a glob pattern; a URL never is (the
// "?" of its query is not a wildcard).
func isGlob(p string) bool { return !remote.IsURL(p) && strings.ContainsAny(p, "*?[") }

// ExpandInputs returns the files that args name, each glob ('tiles/*.laz')
// replaced by its matches, sorted; a glob that matches nothing is a usage
// error.
func ExpandInputs(args []string) ([]string, error) {
	var ins []string
	for _, p := range args {
		if !isGlob(p) {
			ins = append(ins, p)
			continue
		}
		m, err := filepath.Glob(p)
		if err != nil || len(m) == 0 {
			return nil, Usagef("%s: no file matches (a glob of IN)", p)
		}
		ins = append(ins, m...)
	}
	return ins, nil
}

// IsMerge reports whether a converting command's arguments (INs then
// OUT) name several inputs, or a glob, to merge into one OUT.
func IsMerge(args []string) bool {
	return len(args) > 2 || len(args) == 2 && isGlob(args[0])
}

// CollectionArgs returns the inputs and outputs of a tile collection, and
// OUT, the folder: args are several INs or a glob, then a folder; nil
// inputs when the arguments are one IN and one OUT. With several INs and an
// OUT that is not a folder, it returns nil inputs, or an error for a
// command that only takes collections (see collectionDir).
func CollectionArgs(c Values, args []string) (ins, outs []string, dir string, err error) {
	if len(args) < 2 || !isCollectionDir(args[len(args)-1]) {
		return nil, nil, "", nil
	}
	return collectionArgs(c, args)
}

// isCollectionDir reports whether OUT names a collection's folder: an
// existing folder, or a path ending in /.
func isCollectionDir(out string) bool {
	st, err := os.Stat(out)
	return err == nil && st.IsDir() || strings.HasSuffix(out, "/")
}

// collectionArgs returns the inputs and outputs of a tile collection, and
// OUT, the folder; nil inputs when the arguments are one IN and one OUT.
func collectionArgs(c Values, args []string) (ins, outs []string, dir string, err error) {
	if len(args) < 2 || len(args) == 2 && !isGlob(args[0]) {
		return nil, nil, "", nil
	}
	dir = args[len(args)-1]
	if ins, err = ExpandInputs(args[:len(args)-1]); err != nil {
		return nil, nil, "", err
	}
	if err := collectionDir(dir); err != nil {
		return nil, nil, "", err
	}
	ext := ""
	if spec := c.String("format"); spec != "" {
		if f, _, err := pcio.Lookup(spec); err == nil && len(f.Extensions) > 0 {
			ext = f.Extensions[0]
		}
	}
	inAbs := map[string]bool{}
	for _, in := range ins {
		if a, err := filepath.Abs(in); err == nil {
			inAbs[a] = true
		}
	}
	for _, in := range ins {
		name := filepath.Base(in)
		if remote.IsURL(in) {
			name = path.Base(remote.Path(in))
		}
		if ext != "" {
			name = strings.TrimSuffix(name, filepath.Ext(name)) + ext
		}
		out := filepath.Join(dir, name)
		if a, err := filepath.Abs(out); err == nil && inAbs[a] {
			return nil, nil, "", Usagef("OUT %s would replace the input %s: give another folder", dir, in)
		}
		outs = append(outs, out)
	}
	return ins, outs, dir, nil
}

// collectionDir checks a tile collection's OUT: an existing folder, or a
// path ending in / for a folder to make, so that a mistyped file name
// (three arguments where two were meant, a glob before a file's name)
// never becomes a folder.
func collectionDir(dir string) error {
	if isCollectionDir(dir) {
		return nil
	}
	return Usagef("with several inputs (a tile collection, docs/scale.md) OUT is a folder: %s is not an existing folder; end it with / to make one", dir)
}
