package peers

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// PDAL is the shared PDAL 2.9.2 build (../shared/anchors/pdal), the
// side-by-side peer of every PDAL stage pctk mirrors.
const PDAL = "PDAL"

// SharedData returns the path of rel under ../shared/data (the shared
// test data outside the repository), found from the current folder
// upwards as PDALRun finds PDAL, or an error when no such file exists (a
// user's clone).
func SharedData(rel string) (string, error) {
	return findUp(filepath.Join("shared", "data", rel))
}

// findUp returns the first dir/../rel that exists, dir going from the
// current folder up to the root.
func findUp(rel string) (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		p := filepath.Join(dir, "..", rel)
		if _, err := os.Stat(p); err == nil {
			return p, nil
		}
		up := filepath.Dir(dir)
		if up == dir {
			return "", fmt.Errorf("../%s not found above the current folder", filepath.ToSlash(rel))
		}
		dir = up
	}
}

// PDALRun returns the path of the shared PDAL build's run script
// (../shared/anchors/pdal/run, found from the current folder upwards),
// or an error saying why it cannot run here: the folder is absent (a
// user's clone), or its Debian runtime (.ci/deps/pdal.sh) is missing.
func PDALRun() (string, error) {
	run, err := findUp(filepath.Join("shared", "anchors", "pdal", "run"))
	if err != nil {
		return "", err
	}
	if out, err := exec.Command(run, "--version").CombinedOutput(); err != nil {
		return "", fmt.Errorf("%s --version: %v: %s (its runtime: .ci/deps/pdal.sh)", run, err, lastLine(out))
	}
	return run, nil
}

// PDALPipeline runs PDAL on a pipeline (its JSON array of stages, as
// PDAL's pipeline files hold it), written to dir/pipeline.json.
func PDALPipeline(dir string, stages ...any) (ToolRun, error) {
	return pdalPipeline(dir, nil, stages)
}

// PDALPipelineNoStream is PDALPipeline in PDAL's standard mode
// (--nostream): every point is read before a writer starts, as
// writers.las needs for its scale and offset "auto" (in stream mode PDAL
// takes scale 1 and the first point as the offset, with a warning).
func PDALPipelineNoStream(dir string, stages ...any) (ToolRun, error) {
	return pdalPipeline(dir, []string{"--nostream"}, stages)
}

// pdalPipeline runs "pdal pipeline ARGS FILE" on the pipeline of stages.
func pdalPipeline(dir string, args []string, stages []any) (ToolRun, error) {
	run, err := PDALRun()
	if err != nil {
		return ToolRun{}, err
	}
	data, err := json.MarshalIndent(stages, "", "  ")
	if err != nil {
		return ToolRun{}, err
	}
	p := filepath.Join(dir, "pipeline.json")
	if err := os.WriteFile(p, data, 0o644); err != nil {
		return ToolRun{}, err
	}
	return runTool(run, append(append([]string{"pipeline"}, args...), p), nil, nil, 0)
}

// pdalVersion returns what "pdal --version" prints, e.g. "2.9.2".
func pdalVersion() string {
	run, err := PDALRun()
	if err != nil {
		return ""
	}
	out, err := exec.Command(run, "--version").Output()
	if err != nil {
		return ""
	}
	for _, f := range strings.Fields(string(out)) {
		if len(f) > 0 && f[0] >= '0' && f[0] <= '9' {
			return f
		}
	}
	return ""
}
