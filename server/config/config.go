// Package config reads the server's configuration from the environment into one validated struct with defaults.
// Every variable is one row of Vars: its name, its default as README gives it, what it is for, and how it is read
// and checked. FromEnv, its error messages and the test that README's table lists exactly these variables all
// read the same rows.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
)

// Config is everything the server can be told. The zero value is not useful; use Default or FromEnv.
type Config struct {
	Addr                    string         // ADDR
	DataDir                 string         // DATA_DIR
	StoreURL                string         // STORE_URL: empty for Pebble in DataDir; postgres://… for PostgreSQL
	PublicDir               string         // PUBLIC_DIR; empty: serve only the API
	BaseURL                 string         // BASE_URL
	AdminToken              string         // ADMIN_TOKEN; empty: owner routes always answer 401
	ChallengeSecret         string         // CHALLENGE_SECRET; empty: generated and kept in the store
	ChallengeSecretPrevious string         // CHALLENGE_SECRET_PREVIOUS
	TrustedProxies          []netip.Prefix // TRUSTED_PROXIES
	ProxyNetlify            bool           // PROXY=netlify: the proxy's X-Nf-Client-Connection-Ip names the client
	ProxySecret             string         // PROXY_SECRET: forwarded headers are believed only with it
	WritingFeedURL          string         // WRITING_FEED_URL
	BoardClosed             bool           // BOARD_CLOSED
	ScreenLLMURL            string         // SCREEN_LLM_URL
	ScreenLLMModel          string         // SCREEN_LLM_MODEL
	ScreenLLMKey            string         // SCREEN_LLM_KEY
	ScreenLLMFailClosed     bool           // SCREEN_LLM_FAIL=closed
	Limits                  Limits         // RATE_*
	LogoServices            []string       // LOGO_SERVICES: icon services' address templates, {domain} replaced
	MetricsAddr             string         // METRICS_ADDR: where /metrics listens; empty: off
	Pprof                   bool           // PPROF=1: Go's profiles beside /metrics
	LogLevel                slog.Level     // LOG_LEVEL
	LogFormat               string         // LOG_FORMAT: json or text; empty picks text on a terminal
	LogRequests             string         // LOG_REQUESTS: off, errors (answers of 400 and more) or all
	SiteDir                 string         // SITE_DIR: read the site from this folder, not the copy built in; reloaded on SIGHUP
	ShutdownTimeout         time.Duration  // SHUTDOWN_TIMEOUT
}

// Limits are the per-address limits, per minute: the board's (posts and challenges, shared by every channel) and
// the routes' (reads, MCP calls, logo lookups, drawn images, wrong owner tokens).
type Limits struct {
	Posts, Challenges, Reads, MCP, Logos, OG, Owner int
}

// DefaultLimits are SPEC.md's and DESIGN.md's: 10 posts, 30 challenges, 120 reads, 120 MCP calls and 60 logo
// lookups a minute per address; and 30 drawn images and 10 wrong owner tokens.
var DefaultLimits = Limits{Posts: 10, Challenges: 30, Reads: 120, MCP: 120, Logos: 60, OG: 30, Owner: 10}

// Defaults are the settings of the site itself, from site.yaml, that the environment may override.
type Defaults struct {
	BaseURL        string
	WritingFeedURL string
}

// Default is the configuration with nothing set in the environment.
func Default(d Defaults) Config {
	return Config{
		Addr:            ":8080",
		DataDir:         "./data",
		PublicDir:       "public",
		BaseURL:         d.BaseURL,
		WritingFeedURL:  d.WritingFeedURL,
		Limits:          DefaultLimits,
		LogoServices:    DefaultLogoServices,
		LogLevel:        slog.LevelInfo,
		LogRequests:     LogRequestErrors,
		ShutdownTimeout: 10 * time.Second,
	}
}

// DefaultLogoServices are the icon services a logo lookup asks last, when the domain's own icons fail.
var DefaultLogoServices = []string{
	"https://icons.duckduckgo.com/ip3/{domain}.ico",
	"https://www.google.com/s2/favicons?domain={domain}&sz=128",
}

// Var is one environment variable: its name, its default as README gives it, what it is for (both also in
// README's configuration table), and how a value is read into a Config. read's error says what is wrong with the
// value; FromEnv puts the variable's name before it.
type Var struct {
	Name    string
	Default string
	Doc     string
	read    func(c *Config, value string) error
}

// Vars are the variables FromEnv reads, in the order README documents them.
var Vars = []Var{
	{"ADDR", ":8080", "listen address", hostPort(func(c *Config) *string { return &c.Addr }, "for example :8080 or 127.0.0.1:8080")},
	{"DATA_DIR", "./data", "the board's Pebble store", nonEmpty(func(c *Config) *string { return &c.DataDir }, "must name a folder for the store")},
	{"STORE_URL", "empty", "postgres://…: the board in PostgreSQL, shared by several servers", storeURL},
	{"PUBLIC_DIR", "public", "the built site served in local mode; empty serves only the API", folder},
	{"BASE_URL", "baseURL of site/site.yaml", "public address in every absolute URL the server writes", text(func(c *Config) *string { return &c.BaseURL })}, // checked in check, default or not
	{"ADMIN_TOKEN", "unset", "the owner's bearer token", secret(func(c *Config) *string { return &c.AdminToken }, "or unset it to turn owner routes off")},
	{"CHALLENGE_SECRET", "generated and stored", "challenge signing key", secret(func(c *Config) *string { return &c.ChallengeSecret }, "")},
	{"CHALLENGE_SECRET_PREVIOUS", "unset", "the previous challenge key, during a rotation", text(func(c *Config) *string { return &c.ChallengeSecretPrevious })},
	{"TRUSTED_PROXIES", "none", "CIDRs or addresses whose forwarded headers are believed", proxies},
	{"PROXY", "empty", "netlify: the proxy is Netlify", proxyKind},
	{"PROXY_SECRET", "unset", "what a request must carry for its forwarded headers to be believed", secret(func(c *Config) *string { return &c.ProxySecret }, "")},
	{"WRITING_FEED_URL", "writingFeedURL of site/site.yaml", "the external blog's feed", optionalURL(func(c *Config) *string { return &c.WritingFeedURL })},
	{"BOARD_CLOSED", "0", "1 refuses new notes", flag(func(c *Config) *bool { return &c.BoardClosed })},
	{"SCREEN_LLM_URL", "unset", "OpenAI-compatible classifier for the content screen", optionalURL(func(c *Config) *string { return &c.ScreenLLMURL })},
	{"SCREEN_LLM_MODEL", "unset", "the classifier's model", text(func(c *Config) *string { return &c.ScreenLLMModel })},
	{"SCREEN_LLM_KEY", "unset", "the classifier's API key", text(func(c *Config) *string { return &c.ScreenLLMKey })},
	{"SCREEN_LLM_FAIL", "open", "closed refuses notes (503) when the classifier fails", failMode},
	{"RATE_POSTS", "10", "notes posted per client address and minute", rate(func(l *Limits) *int { return &l.Posts })},
	{"RATE_CHALLENGES", "30", "challenges per client address and minute", rate(func(l *Limits) *int { return &l.Challenges })},
	{"RATE_READS", "120", "reads per client address and minute", rate(func(l *Limits) *int { return &l.Reads })},
	{"RATE_MCP", "120", "MCP calls per client address and minute", rate(func(l *Limits) *int { return &l.MCP })},
	{"RATE_LOGOS", "60", "logo lookups per client address and minute", rate(func(l *Limits) *int { return &l.Logos })},
	{"RATE_OG", "30", "Open Graph images drawn per client address and minute", rate(func(l *Limits) *int { return &l.OG })},
	{"RATE_OWNER", "10", "wrong owner tokens per client address and minute", rate(func(l *Limits) *int { return &l.Owner })},
	{"LOGO_SERVICES", "DuckDuckGo's and Google's icon services", "icon service addresses with {domain}, tried last", logoServices},
	{"METRICS_ADDR", "unset", "where Prometheus metrics listen", optionalHostPort(func(c *Config) *string { return &c.MetricsAddr })},
	{"PPROF", "0", "1 serves Go's profiles on METRICS_ADDR", flag(func(c *Config) *bool { return &c.Pprof })},
	{"LOG_LEVEL", "info", "debug, info, warn or error", logLevel},
	{"LOG_FORMAT", "text on a terminal, else JSON", "text or json", logFormat},
	{"SITE_DIR", "unset: the site built into the binary", "read site.yaml and the pages from this folder at start and again on SIGHUP (make dev sets it)", siteDir},
	{"LOG_REQUESTS", "errors", "a line per request: off, errors (status 400 and up) or all", logRequests},
	{"SHUTDOWN_TIMEOUT", "10s", "how long requests in flight may finish at shutdown", shutdown},
}

// FromEnv reads the configuration through lookup (os.LookupEnv in production) over the defaults, and validates it.
// Every problem is reported, each naming its variable. A variable set to the empty string counts as set: that is
// how PUBLIC_DIR= turns static serving off.
func FromEnv(lookup func(string) (string, bool), d Defaults) (Config, error) {
	c := Default(d)
	var errs []error
	for _, v := range Vars {
		value, ok := lookup(v.Name)
		if !ok {
			continue
		}
		if err := v.read(&c, strings.TrimSpace(value)); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", v.Name, err))
		}
	}
	errs = append(errs, c.check()...)
	return c, errors.Join(errs...)
}

// check is what no single variable can say: values that must agree, and defaults that must hold.
func (c *Config) check() (errs []error) {
	bad := func(name, format string, args ...any) { errs = append(errs, fmt.Errorf(name+": "+format, args...)) }
	if c.MetricsAddr != "" && c.MetricsAddr == c.Addr && !strings.HasSuffix(c.Addr, ":0") {
		bad("METRICS_ADDR", "must differ from ADDR: metrics are never served beside the public API")
	}
	if c.PublicDir != "" {
		if fi, err := os.Stat(c.PublicDir); err != nil || !fi.IsDir() {
			bad("PUBLIC_DIR", "%q is not a folder; run `make build` first, or set PUBLIC_DIR= to serve only the API", c.PublicDir)
		}
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	if err := checkURL(c.BaseURL); err != nil {
		bad("BASE_URL", "%v", err)
	}
	if c.ChallengeSecretPrevious != "" && c.ChallengeSecret == "" {
		bad("CHALLENGE_SECRET_PREVIOUS", "is only used beside CHALLENGE_SECRET, during a rotation")
	}
	if c.ProxyNetlify && len(c.TrustedProxies) == 0 && c.ProxySecret == "" {
		bad("PROXY", "netlify needs PROXY_SECRET (or TRUSTED_PROXIES) to know a request came through Netlify")
	}
	return errs
}

// The readers of the rows.

func text(field func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error { *field(c) = v; return nil }
}

func nonEmpty(field func(*Config) *string, problem string) func(*Config, string) error {
	return func(c *Config, v string) error {
		if v == "" {
			return errors.New(problem)
		}
		*field(c) = v
		return nil
	}
}

func hostPort(field func(*Config) *string, example string) func(*Config, string) error {
	return func(c *Config, v string) error {
		if _, _, err := net.SplitHostPort(v); err != nil {
			return fmt.Errorf("%q is not host:port (%s)", v, example)
		}
		*field(c) = v
		return nil
	}
}

func optionalHostPort(field func(*Config) *string) func(*Config, string) error {
	required := hostPort(field, "for example 127.0.0.1:9090")
	return func(c *Config, v string) error {
		if v == "" {
			*field(c) = ""
			return nil
		}
		return required(c, v)
	}
}

func folder(c *Config, v string) error { c.PublicDir = v; return nil } // checked once the value is final (check)

func siteDir(c *Config, v string) error {
	if v == "" {
		c.SiteDir = ""
		return nil
	}
	if fi, err := os.Stat(filepath.Join(v, "site.yaml")); err != nil || fi.IsDir() {
		return fmt.Errorf("%q has no site.yaml: name the site folder (site)", v)
	}
	c.SiteDir = v
	return nil
}

func absURL(field func(*Config) *string) func(*Config, string) error {
	return func(c *Config, v string) error {
		if err := checkURL(v); err != nil {
			return err
		}
		*field(c) = v
		return nil
	}
}

func optionalURL(field func(*Config) *string) func(*Config, string) error {
	required := absURL(field)
	return func(c *Config, v string) error {
		if v == "" {
			*field(c) = ""
			return nil
		}
		return required(c, v)
	}
}

// secret reads a token that must be long enough not to be guessed; empty leaves it unset.
func secret(field func(*Config) *string, otherwise string) func(*Config, string) error {
	return func(c *Config, v string) error {
		if v != "" && utf8.RuneCountInString(v) < 32 {
			return fmt.Errorf("must be at least 32 characters %s(try: openssl rand -hex 32)", strings.TrimSpace(otherwise+" "))
		}
		*field(c) = v
		return nil
	}
}

func flag(field func(*Config) *bool) func(*Config, string) error {
	return func(c *Config, v string) error {
		switch strings.ToLower(v) {
		case "1", "true", "yes":
			*field(c) = true
		case "", "0", "false", "no":
			*field(c) = false
		default:
			return fmt.Errorf("%q is not 0 or 1", v)
		}
		return nil
	}
}

func rate(field func(*Limits) *int) func(*Config, string) error {
	return func(c *Config, v string) error {
		if v == "" {
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			return fmt.Errorf("%q is not a whole number of requests per minute, 1 or more", v)
		}
		*field(&c.Limits) = n
		return nil
	}
}

func proxies(c *Config, v string) error {
	c.TrustedProxies = nil
	var bad []string
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		p, err := netip.ParsePrefix(f)
		if err != nil {
			a, aerr := netip.ParseAddr(f)
			if aerr != nil {
				bad = append(bad, fmt.Sprintf("%q is not a CIDR such as 10.0.0.0/8 or an address", f))
				continue
			}
			p = netip.PrefixFrom(a, a.BitLen())
		}
		c.TrustedProxies = append(c.TrustedProxies, p.Masked())
	}
	if len(bad) > 0 {
		return errors.New(strings.Join(bad, "; "))
	}
	return nil
}

func proxyKind(c *Config, v string) error {
	switch strings.ToLower(v) {
	case "":
		c.ProxyNetlify = false
	case "netlify":
		c.ProxyNetlify = true
	default:
		return fmt.Errorf("%q is not netlify or empty (any other proxy: X-Forwarded-For)", v)
	}
	return nil
}

func failMode(c *Config, v string) error {
	switch strings.ToLower(v) {
	case "", "open":
		c.ScreenLLMFailClosed = false
	case "closed":
		c.ScreenLLMFailClosed = true
	default:
		return fmt.Errorf("%q is not open or closed", v)
	}
	return nil
}

func logoServices(c *Config, v string) error {
	c.LogoServices = nil
	for _, f := range strings.Split(v, ",") {
		if f = strings.TrimSpace(f); f == "" {
			continue
		}
		if err := checkURL(f); err != nil || !strings.Contains(f, "{domain}") {
			return fmt.Errorf("%q is not an http(s) address with {domain} in it", f)
		}
		c.LogoServices = append(c.LogoServices, f)
	}
	return nil
}

func logLevel(c *Config, v string) error {
	if v == "" {
		return nil
	}
	if err := c.LogLevel.UnmarshalText([]byte(v)); err != nil {
		return fmt.Errorf("%q is not debug, info, warn or error", v)
	}
	return nil
}

func logFormat(c *Config, v string) error {
	switch v {
	case "", "json", "text":
		c.LogFormat = v
		return nil
	}
	return fmt.Errorf("%q is not json or text", v)
}

// The values of LOG_REQUESTS.
const (
	LogRequestsOff   = "off"
	LogRequestErrors = "errors"
	LogRequestsAll   = "all"
)

func logRequests(c *Config, v string) error {
	switch v {
	case "":
		return nil
	case LogRequestsOff, LogRequestErrors, LogRequestsAll:
		c.LogRequests = v
		return nil
	}
	return fmt.Errorf("%q is not off, errors or all", v)
}

func shutdown(c *Config, v string) error {
	if v == "" {
		return nil
	}
	d, err := time.ParseDuration(v)
	if err != nil || d <= 0 {
		return fmt.Errorf("%q is not a positive duration such as 10s", v)
	}
	c.ShutdownTimeout = d
	return nil
}

// storeURL reads STORE_URL: empty, or a postgres:// URL that pgx accepts (port, sslmode, timeouts and the other
// settings checked now, at start, not at the first connection). A message about it never shows a password.
func storeURL(c *Config, v string) error {
	if v == "" {
		c.StoreURL = ""
		return nil
	}
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "postgres" && u.Scheme != "postgresql") || u.Host == "" {
		return fmt.Errorf("%s is not a PostgreSQL URL such as postgres://user:password@db.example:5432/twofold", RedactStoreURL(v))
	}
	if _, err := pgconn.ParseConfig(v); err != nil {
		msg := err.Error()
		if i := strings.LastIndex(msg, "`: "); i >= 0 {
			msg = msg[i+3:] // pgx's message starts with the connection string, redacted only as well as it can
		}
		return fmt.Errorf("%s cannot be used: %s", RedactStoreURL(v), msg)
	}
	c.StoreURL = v
	return nil
}

// RedactStoreURL is STORE_URL as logs and messages may show it: without the password of its user or of its query
// (password=, sslpassword=); a value that is not a URL at all is not shown.
func RedactStoreURL(v string) string {
	u, err := url.Parse(v)
	if err != nil || u.Scheme == "" {
		return "the value of STORE_URL"
	}
	q := u.Query()
	for k := range q {
		if strings.Contains(strings.ToLower(k), "password") {
			q.Set(k, "xxxxx")
		}
	}
	u.RawQuery = q.Encode()
	return strconv.Quote(u.Redacted())
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	return nil
}
