package codectest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// NodePeer returns the path of node for a test that runs an npm peer
// installed in dir/node_modules by the .ci/deps script install, after
// checking that each of pkgs is there. When node or a package is missing
// it skips the test, or fails it under CI=true, where the script must
// have run.
func NodePeer(t testing.TB, dir, install string, pkgs ...string) string {
	t.Helper()
	missing := func(why string) {
		msg := why + "; run " + install + " to install the npm peers into " + filepath.Join(dir, "node_modules")
		if os.Getenv("CI") == "true" {
			t.Fatal(msg)
		}
		t.Skip(msg)
	}
	node, err := exec.LookPath("node")
	if err != nil {
		missing("node not found")
	}
	for _, p := range pkgs {
		if _, err := os.Stat(filepath.Join(dir, "node_modules", p, "package.json")); err != nil {
			missing("npm package " + p + " not installed")
		}
	}
	return node
}
