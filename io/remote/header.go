package remote

import (
	"fmt"
	"net/http"
	"net/textproto"
	"strings"
)

// HeaderEnv names the environment variable whose lines ("Name: value",
// one per line) are sent with every request, as ParseHeader reads them.
const HeaderEnv = "PCTK_HTTP_HEADER"

// ParseHeader turns lines "Name: value" into a header. Blank lines are
// skipped. Errors name the line by its number and never quote it (it may
// hold a token).
func ParseHeader(lines []string) (http.Header, error) {
	h := http.Header{}
	for i, l := range lines {
		if strings.TrimSpace(l) == "" {
			continue
		}
		name, value, ok := strings.Cut(l, ":")
		name = strings.TrimSpace(name)
		if !ok || name == "" || strings.ContainsAny(name, " \t\r\n") || strings.ContainsAny(value, "\r\n") {
			return nil, fmt.Errorf("remote: header %d: want \"Name: value\" on one line", i+1)
		}
		h.Add(textproto.CanonicalMIMEHeaderKey(name), strings.TrimSpace(value))
	}
	return h, nil
}
