package host

import (
	"maps"
	"os"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"twofold/server/content"
	"twofold/server/host/rules"
	"twofold/site"

	"github.com/BurntSushi/toml"
)

// netlifyConfig is the part of netlify.toml the static host acts on.
type netlifyConfig struct {
	Build struct {
		Command     string
		Publish     string
		Environment map[string]string
	}
	Redirects []struct {
		From   string
		To     string
		Status int
		Force  bool
		Signed string
	}
	Headers []struct {
		For    string
		Values map[string]string
	}
}

func readNetlify(t *testing.T) (*netlifyConfig, toml.MetaData) {
	t.Helper()
	var c netlifyConfig
	meta, err := toml.DecodeFile("../../netlify.toml", &c)
	if err != nil {
		t.Fatal(err)
	}
	return &c, meta
}

// netlify.toml, _redirects and _headers together must say exactly what the route table says, rule for rule and in
// Netlify's order (_redirects' rules, then netlify.toml's), so that the static host and local mode behave alike.
// netlify.toml holds the signed proxies and nothing the build writes: a page added to the site must need no line
// here.
func TestNetlifyAgreesWithRouteTable(t *testing.T) {
	c, meta := readNetlify(t)
	if undecoded := meta.Undecoded(); len(undecoded) > 0 {
		t.Errorf("netlify.toml has keys this test does not check: %v", undecoded)
	}
	s, err := content.LoadSite(site.FS)
	if err != nil {
		t.Fatal(err)
	}
	table := rules.Redirects(s.Pages)
	fromFile := parseRedirects(t, rules.NetlifyRedirects(s.Pages))
	if len(fromFile)+len(c.Redirects) != len(table) {
		t.Fatalf("_redirects has %d rules and netlify.toml %d, the route table %d", len(fromFile), len(c.Redirects), len(table))
	}
	origin := ""
	for i, r := range table {
		if i < len(fromFile) {
			f := fromFile[i]
			if r.Kind != rules.Static || f != (netlifyRedirect{From: r.From, To: r.To, Status: r.Status, Force: true}) {
				t.Errorf("rule %d: _redirects has %+v; the table says %+v", i+1, f, r)
			}
			continue
		}
		n := c.Redirects[i-len(fromFile)]
		if r.Kind != rules.Dynamic {
			t.Errorf("rule %d (%s -> %s) is static, yet it is not in _redirects", i+1, r.From, r.To)
			continue
		}
		if origin == "" {
			origin = strings.TrimSuffix(n.To, r.To)
		}
		if n.Signed != "API_SIGNATURE_TOKEN" {
			t.Errorf("netlify.toml %s: signed = %q; every proxy is signed with API_SIGNATURE_TOKEN", n.From, n.Signed)
		}
		if n.From != r.From || n.To != origin+r.To || n.Status != r.Status || !n.Force {
			t.Errorf("rule %d: netlify.toml has %s -> %s %d force=%v; the table says %s -> %s %d force=true",
				i+1, n.From, n.To, n.Status, n.Force, r.From, origin+r.To, r.Status)
		}
	}
	if !regexp.MustCompile(`^https://[a-z0-9.-]+$`).MatchString(origin) {
		t.Errorf("proxies go to %q, want one https origin", origin)
	}
	if !strings.Contains(c.Build.Command, origin) || !strings.Contains(c.Build.Command, "${API_ORIGIN:-") {
		t.Errorf("the build command does not substitute API_ORIGIN for %s: %q", origin, c.Build.Command)
	}

	// Netlify merges netlify.toml's header rules with _headers' (netlify.toml winning where both set a header): one
	// home is enough, and the header rules live in _headers alone.
	if len(c.Headers) != 0 {
		t.Errorf("netlify.toml has %d header rules; they belong in the _headers the build writes", len(c.Headers))
	}
	headers := rules.Headers()
	fromHeaders := parseHeaders(t, rules.NetlifyHeaders())
	if len(fromHeaders) != len(headers) {
		t.Fatalf("_headers has %d rules, the table %d", len(fromHeaders), len(headers))
	}
	for i, h := range headers {
		if fromHeaders[i].For != h.For || !maps.Equal(fromHeaders[i].Values, h.Values) {
			t.Errorf("header rule %d: _headers has %s %v; the table says %s %v", i+1, fromHeaders[i].For, fromHeaders[i].Values, h.For, h.Values)
		}
	}
}

// netlifyRedirect is one line of _redirects, as Netlify's documentation describes them: from, to, status, and
// "!" for a forced rule.
type netlifyRedirect struct {
	From, To string
	Status   int
	Force    bool
}

func parseRedirects(t *testing.T, file []byte) []netlifyRedirect {
	t.Helper()
	var out []netlifyRedirect
	for n, line := range strings.Split(string(file), "\n") {
		if i := strings.Index(line, "#"); i >= 0 {
			line = line[:i]
		}
		f := strings.Fields(line)
		if len(f) == 0 {
			continue
		}
		status, force := strings.CutSuffix(f[len(f)-1], "!")
		code, err := strconv.Atoi(status)
		if len(f) != 3 || err != nil {
			t.Fatalf("_redirects:%d: %q is not \"from to status\"", n+1, line)
		}
		out = append(out, netlifyRedirect{From: f[0], To: f[1], Status: code, Force: force})
	}
	return out
}

// parseHeaders reads _headers: a path line, then its headers indented as "Name: value".
func parseHeaders(t *testing.T, file []byte) []rules.Header {
	t.Helper()
	var out []rules.Header
	for n, line := range strings.Split(string(file), "\n") {
		trimmed := strings.TrimSpace(line)
		switch {
		case trimmed == "" || strings.HasPrefix(trimmed, "#"):
		case strings.HasPrefix(line, "/"):
			out = append(out, rules.Header{For: trimmed, Values: map[string]string{}})
		default:
			name, value, ok := strings.Cut(trimmed, ":")
			if !ok || len(out) == 0 || line == trimmed {
				t.Fatalf("_headers:%d: %q is neither a path nor an indented header of one", n+1, line)
			}
			if _, dup := out[len(out)-1].Values[name]; dup {
				t.Errorf("_headers:%d: %s twice for %s", n+1, name, out[len(out)-1].For)
			}
			out[len(out)-1].Values[name] = strings.TrimSpace(value)
		}
	}
	return out
}

func TestNetlifyBuildSettings(t *testing.T) {
	c, _ := readNetlify(t)
	if c.Build.Publish != "public" || !strings.HasSuffix(c.Build.Command, "make build") {
		t.Errorf("build = %+v", c.Build)
	}
	gomod, err := os.ReadFile("../../go.mod")
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^go (\S+)$`).FindSubmatch(gomod)
	if m == nil || c.Build.Environment["GO_VERSION"] != string(m[1]) {
		t.Errorf("GO_VERSION = %q, want go.mod's %q, a full version", c.Build.Environment["GO_VERSION"], m[1])
	}
}
