package algotest

import (
	"fmt"
	"os"
	"testing"
)

// RequirePeer skips t when a peer (a tool or library a test compares with)
// is missing, err saying why, or fails it under CI=true, where
// .ci/deps/debian-peers.sh must have installed it. what names the peer and
// its Debian package.
func RequirePeer(t testing.TB, what string, err error) {
	t.Helper()
	if err == nil {
		return
	}
	msg := fmt.Sprintf("%s is not available (%v); .ci/deps/debian-peers.sh installs it", what, err)
	if os.Getenv("CI") == "true" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}
