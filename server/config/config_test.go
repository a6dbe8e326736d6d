package config

import (
	"log/slog"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"
)

var defaults = Defaults{BaseURL: "https://site.example", WritingFeedURL: "https://blog.example/feed.xml"}

func env(vars map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := vars[k]; return v, ok }
}

func TestDefaults(t *testing.T) {
	c, err := FromEnv(env(map[string]string{"PUBLIC_DIR": t.TempDir()}), defaults)
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != ":8080" || c.DataDir != "./data" || c.BaseURL != "https://site.example" || c.WritingFeedURL != defaults.WritingFeedURL ||
		c.LogLevel != slog.LevelInfo || c.BoardClosed || c.ScreenLLMFailClosed || c.ShutdownTimeout != 10*time.Second {
		t.Fatalf("defaults = %+v", c)
	}
}

func TestFromEnv(t *testing.T) {
	tests := []struct {
		name    string
		vars    map[string]string
		wantErr string
		check   func(Config) bool
	}{
		{"overrides", map[string]string{"ADDR": "127.0.0.1:9000", "BASE_URL": "https://other.example/", "BOARD_CLOSED": "1", "SCREEN_LLM_FAIL": "closed", "LOG_LEVEL": "debug"}, "",
			func(c Config) bool {
				return c.Addr == "127.0.0.1:9000" && c.BaseURL == "https://other.example" && c.BoardClosed && c.ScreenLLMFailClosed && c.LogLevel == slog.LevelDebug
			}},
		{"static serving off", map[string]string{"PUBLIC_DIR": ""}, "", func(c Config) bool { return c.PublicDir == "" }},
		{"trusted proxies", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8, 192.168.1.7"}, "",
			func(c Config) bool {
				return len(c.TrustedProxies) == 2 && c.TrustedProxies[1].String() == "192.168.1.7/32"
			}},
		{"bad addr", map[string]string{"ADDR": "8080"}, "ADDR: \"8080\" is not host:port", nil},
		{"bad metrics addr", map[string]string{"METRICS_ADDR": "9090"}, "METRICS_ADDR: \"9090\" is not host:port", nil},
		{"metrics beside the API", map[string]string{"ADDR": "127.0.0.1:9000", "METRICS_ADDR": "127.0.0.1:9000"}, "METRICS_ADDR: must differ from ADDR", nil},
		{"metrics on", map[string]string{"METRICS_ADDR": "127.0.0.1:9090", "RATE_LOGOS": "5", "LOGO_SERVICES": "https://icons.example/{domain}.png"}, "",
			func(c Config) bool {
				return c.MetricsAddr == "127.0.0.1:9090" && c.Limits.Logos == 5 && len(c.LogoServices) == 1
			}},
		{"bad logo service", map[string]string{"LOGO_SERVICES": "https://icons.example/fixed.png"}, "LOGO_SERVICES:", nil},
		{"missing public dir", map[string]string{"PUBLIC_DIR": "/nope"}, "PUBLIC_DIR: \"/nope\" is not a folder", nil},
		{"relative base url", map[string]string{"BASE_URL": "example.com"}, "BASE_URL:", nil},
		{"bad feed", map[string]string{"WRITING_FEED_URL": "ftp://x"}, "WRITING_FEED_URL:", nil},
		{"short secret", map[string]string{"CHALLENGE_SECRET": "short"}, "CHALLENGE_SECRET: must be at least 32", nil},
		{"previous without current", map[string]string{"CHALLENGE_SECRET_PREVIOUS": strings.Repeat("x", 32)}, "CHALLENGE_SECRET_PREVIOUS:", nil},
		{"bad proxy", map[string]string{"TRUSTED_PROXIES": "10.0.0.0/8,nope"}, "TRUSTED_PROXIES: \"nope\"", nil},
		{"bad board flag", map[string]string{"BOARD_CLOSED": "maybe"}, "BOARD_CLOSED:", nil},
		{"bad fail mode", map[string]string{"SCREEN_LLM_FAIL": "ajar"}, "SCREEN_LLM_FAIL:", nil},
		{"bad log level", map[string]string{"LOG_LEVEL": "loud"}, "LOG_LEVEL:", nil},
		{"bad shutdown", map[string]string{"SHUTDOWN_TIMEOUT": "-1s"}, "SHUTDOWN_TIMEOUT:", nil},
		{"rate limits", map[string]string{"RATE_POSTS": "100", "RATE_READS": "100000"}, "",
			func(c Config) bool {
				return c.Limits.Posts == 100 && c.Limits.Challenges == 30 && c.Limits.Reads == 100000
			}},
		{"bad rate", map[string]string{"RATE_CHALLENGES": "0"}, "RATE_CHALLENGES:", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			vars := map[string]string{"PUBLIC_DIR": t.TempDir()}
			for k, v := range tt.vars {
				vars[k] = v
			}
			c, err := FromEnv(env(vars), defaults)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error = %v, want %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(c) {
				t.Fatalf("config = %+v, err = %v", c, err)
			}
		})
	}
}

func TestEveryProblemIsReported(t *testing.T) {
	_, err := FromEnv(env(map[string]string{"ADDR": "x", "LOG_LEVEL": "y", "PUBLIC_DIR": ""}), defaults)
	if err == nil || !strings.Contains(err.Error(), "ADDR:") || !strings.Contains(err.Error(), "LOG_LEVEL:") {
		t.Fatalf("error = %v, want both ADDR and LOG_LEVEL named", err)
	}
}

// README's configuration table lists exactly the variables FromEnv reads, each with the default its row gives.
func TestREADMEListsEveryVariable(t *testing.T) {
	data, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := string(data)
	start, end := strings.Index(section, "## Configuration"), strings.Index(section, "## Deploying")
	if start < 0 || end < start {
		t.Fatal("README has no Configuration section before Deploying")
	}
	documented := map[string]string{} // name: default, as README gives it
	name := regexp.MustCompile("`([A-Z][A-Z0-9_]+)`")
	for _, line := range strings.Split(section[start:end], "\n") {
		cells := strings.Split(line, "|")
		if len(cells) < 4 || !strings.HasPrefix(strings.TrimSpace(cells[1]), "`") {
			continue
		}
		names := name.FindAllStringSubmatch(cells[1], -1)
		defaults := strings.Split(cells[2], ",")
		for i, m := range names {
			d := cells[2]
			if len(defaults) == len(names) {
				d = defaults[i]
			}
			documented[m[1]] = strings.TrimSpace(strings.ReplaceAll(d, "`", ""))
		}
	}
	for _, v := range Vars {
		d, ok := documented[v.Name]
		if !ok {
			t.Errorf("README's configuration table does not list %s", v.Name)
			continue
		}
		if !strings.HasPrefix(d, v.Default) {
			t.Errorf("%s: README gives the default %q, the code %q", v.Name, d, v.Default)
		}
		delete(documented, v.Name)
	}
	for n := range documented {
		t.Errorf("README's configuration table lists %s, which the server does not read", n)
	}
}

// STORE_URL is checked at start as pgx would read it, and no message about it shows a password, wherever the
// password is written.
func TestStoreURL(t *testing.T) {
	tests := []struct{ name, value, wantErr string }{
		{"ok", "postgres://twofold:s3cret-pw@db.example:5432/twofold?sslmode=disable", ""},
		{"not a URL", "host=db.example user=twofold password=s3cret-pw", "not a PostgreSQL URL"},
		{"another scheme", "mysql://twofold:s3cret-pw@db.example/twofold", "not a PostgreSQL URL"},
		{"bad port", "postgres://twofold:s3cret-pw@db.example:99999/twofold", "cannot be used"},
		{"bad sslmode", "postgres://twofold:s3cret-pw@db.example/twofold?sslmode=sometimes", "cannot be used"},
		{"bad timeout, password in the query", "postgres://db.example/twofold?password=s3cret-pw&connect_timeout=soon", "cannot be used"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := FromEnv(env(map[string]string{"PUBLIC_DIR": t.TempDir(), "STORE_URL": tt.value}), defaults)
			if tt.wantErr == "" {
				if err != nil || c.StoreURL != tt.value {
					t.Fatalf("STORE_URL %q: %v", tt.value, err)
				}
			} else if err == nil || !strings.Contains(err.Error(), "STORE_URL") || !strings.Contains(err.Error(), tt.wantErr) {
				t.Fatalf("error = %v, want STORE_URL named and %q", err, tt.wantErr)
			}
			if err != nil && strings.Contains(err.Error(), "s3cret") {
				t.Errorf("the message shows the password: %v", err)
			}
			if shown := RedactStoreURL(tt.value); strings.Contains(shown, "s3cret") {
				t.Errorf("RedactStoreURL(%q) = %s", tt.value, shown)
			}
		})
	}
}
