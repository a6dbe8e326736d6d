package admin

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

// A stranger's text reaches the owner's terminal without its escape sequences.
func TestPrintable(t *testing.T) {
	in := "hi \x1b]0;OWNED\x07 there\x1b[2J\u202e\u200b ok"
	got := line(in, 60)
	if strings.ContainsAny(got, "\x1b\x07\u202e\u200b") || !strings.Contains(got, "hi") || !strings.Contains(got, "ok") {
		t.Errorf("line(%q) = %q", in, got)
	}
}

// The token never crosses the network in the clear.
func TestRefusesPlainHTTPToAnotherHost(t *testing.T) {
	var out, errOut bytes.Buffer
	env := map[string]string{"TWOFOLD_URL": "http://board.example", "ADMIN_TOKEN": strings.Repeat("x", 40)}
	code := Run(context.Background(), []string{"audit"}, Env{Getenv: func(k string) string { return env[k] }, Stdout: &out, Stderr: &errOut})
	if code != 2 || !strings.Contains(errOut.String(), "use https") {
		t.Errorf("plain http to another host: %d %s", code, errOut.String())
	}
}
