package host

import (
	"maps"
	"os"
	"regexp"
	"strings"
	"testing"

	"twofold/server/content"
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

// netlify.toml must say exactly what the route table says, rule for rule and in the same order, so that the
// static host and local mode behave alike.
func TestNetlifyAgreesWithRouteTable(t *testing.T) {
	c, meta := readNetlify(t)
	if undecoded := meta.Undecoded(); len(undecoded) > 0 {
		t.Errorf("netlify.toml has keys this test does not check: %v", undecoded)
	}
	s, err := content.LoadSite(site.FS)
	if err != nil {
		t.Fatal(err)
	}
	rules := Rules(s.Pages)
	if len(c.Redirects) != len(rules) {
		t.Fatalf("netlify.toml has %d redirects, the route table %d", len(c.Redirects), len(rules))
	}
	origin := ""
	for i, r := range rules {
		n := c.Redirects[i]
		to := r.To
		if r.Kind == Dynamic {
			if origin == "" {
				origin = strings.TrimSuffix(n.To, r.To)
			}
			to = origin + r.To
		}
		if (r.Kind == Dynamic) != (n.Signed == "API_SIGNATURE_TOKEN") {
			t.Errorf("redirect %d (%s): signed = %q; proxies, and only they, are signed with API_SIGNATURE_TOKEN", i+1, n.From, n.Signed)
		}
		if n.From != r.From || n.To != to || n.Status != r.Status || !n.Force {
			t.Errorf("redirect %d: netlify.toml has %s -> %s %d force=%v; the table says %s -> %s %d force=true",
				i+1, n.From, n.To, n.Status, n.Force, r.From, to, r.Status)
		}
	}
	if !regexp.MustCompile(`^https://[a-z0-9.-]+$`).MatchString(origin) {
		t.Errorf("proxies go to %q, want one https origin", origin)
	}
	if !strings.Contains(c.Build.Command, origin) || !strings.Contains(c.Build.Command, "${API_ORIGIN:-") {
		t.Errorf("the build command does not substitute API_ORIGIN for %s: %q", origin, c.Build.Command)
	}

	headers := Headers()
	if len(c.Headers) != len(headers) {
		t.Fatalf("netlify.toml has %d header rules, the table %d", len(c.Headers), len(headers))
	}
	for i, h := range headers {
		if c.Headers[i].For != h.For || !maps.Equal(c.Headers[i].Values, h.Values) {
			t.Errorf("header rule %d: netlify.toml has %s %v; the table says %s %v", i+1, c.Headers[i].For, c.Headers[i].Values, h.For, h.Values)
		}
	}
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
