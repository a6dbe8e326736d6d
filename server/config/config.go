// Package config reads the server's configuration from the environment into one validated struct with defaults.
package config

import (
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/netip"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"
)

// Config is everything the server can be told. The zero value is not useful; use Default or FromEnv.
type Config struct {
	Addr                    string         // ADDR
	DataDir                 string         // DATA_DIR
	PublicDir               string         // PUBLIC_DIR; empty: serve only the API
	BaseURL                 string         // BASE_URL
	AdminToken              string         // ADMIN_TOKEN; empty: DELETE always answers 401
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
	RatePosts               int            // RATE_POSTS: notes posted per address per minute
	RateChallenges          int            // RATE_CHALLENGES: challenges per address per minute
	RateReads               int            // RATE_READS: board reads per address per minute
	RateMCP                 int            // RATE_MCP: MCP calls per address per minute
	RateLogos               int            // RATE_LOGOS: logo lookups per address per minute
	RateOG                  int            // RATE_OG: Open Graph images drawn (not cached) per address per minute
	RateOwner               int            // RATE_OWNER: failed owner-token attempts per address per minute
	LogoServices            []string       // LOGO_SERVICES: icon services' address templates, {domain} replaced
	MetricsAddr             string         // METRICS_ADDR: where /metrics listens; empty: off
	Pprof                   bool           // PPROF=1: Go's profiles beside /metrics
	LogLevel                slog.Level     // LOG_LEVEL
	LogFormat               string         // LOG_FORMAT: json or text; empty picks text on a terminal
	ShutdownTimeout         time.Duration  // SHUTDOWN_TIMEOUT
}

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
		RatePosts:       10,
		RateChallenges:  30,
		RateReads:       120,
		RateMCP:         120,
		RateLogos:       60,
		RateOG:          30,
		RateOwner:       10,
		LogoServices:    DefaultLogoServices,
		LogLevel:        slog.LevelInfo,
		ShutdownTimeout: 10 * time.Second,
	}
}

// DefaultLogoServices are the icon services a logo lookup asks last, when the domain's own icons fail.
var DefaultLogoServices = []string{
	"https://icons.duckduckgo.com/ip3/{domain}.ico",
	"https://www.google.com/s2/favicons?domain={domain}&sz=128",
}

// Vars lists every variable FromEnv reads, in the order README documents them.
var Vars = []string{
	"ADDR", "DATA_DIR", "PUBLIC_DIR", "BASE_URL", "ADMIN_TOKEN", "CHALLENGE_SECRET", "CHALLENGE_SECRET_PREVIOUS",
	"TRUSTED_PROXIES", "PROXY", "PROXY_SECRET", "WRITING_FEED_URL", "BOARD_CLOSED", "SCREEN_LLM_URL", "SCREEN_LLM_MODEL",
	"SCREEN_LLM_KEY", "SCREEN_LLM_FAIL", "RATE_POSTS", "RATE_CHALLENGES", "RATE_READS", "RATE_MCP", "RATE_LOGOS", "RATE_OG",
	"RATE_OWNER", "LOGO_SERVICES", "METRICS_ADDR", "PPROF", "LOG_LEVEL", "LOG_FORMAT", "SHUTDOWN_TIMEOUT",
}

// FromEnv reads the configuration through lookup (os.LookupEnv in production) over the defaults, and validates it.
// Every problem is reported, each naming its variable. A variable set to the empty string counts as set: that is
// how PUBLIC_DIR= turns static serving off.
func FromEnv(lookup func(string) (string, bool), d Defaults) (Config, error) {
	c := Default(d)
	var errs []error
	bad := func(name, format string, args ...any) {
		errs = append(errs, fmt.Errorf("%s: "+format, append([]any{name}, args...)...))
	}
	str := func(name string, dst *string) {
		if v, ok := lookup(name); ok {
			*dst = strings.TrimSpace(v)
		}
	}
	str("ADDR", &c.Addr)
	str("DATA_DIR", &c.DataDir)
	str("PUBLIC_DIR", &c.PublicDir)
	str("BASE_URL", &c.BaseURL)
	str("ADMIN_TOKEN", &c.AdminToken)
	str("CHALLENGE_SECRET", &c.ChallengeSecret)
	str("CHALLENGE_SECRET_PREVIOUS", &c.ChallengeSecretPrevious)
	str("WRITING_FEED_URL", &c.WritingFeedURL)
	str("SCREEN_LLM_URL", &c.ScreenLLMURL)
	str("SCREEN_LLM_MODEL", &c.ScreenLLMModel)
	str("SCREEN_LLM_KEY", &c.ScreenLLMKey)
	str("LOG_FORMAT", &c.LogFormat)
	str("METRICS_ADDR", &c.MetricsAddr)
	str("PROXY_SECRET", &c.ProxySecret)

	if _, _, err := net.SplitHostPort(c.Addr); err != nil {
		bad("ADDR", "%q is not host:port (for example :8080 or 127.0.0.1:8080)", c.Addr)
	}
	if c.MetricsAddr != "" {
		if _, _, err := net.SplitHostPort(c.MetricsAddr); err != nil {
			bad("METRICS_ADDR", "%q is not host:port (for example 127.0.0.1:9090)", c.MetricsAddr)
		} else if c.MetricsAddr == c.Addr && !strings.HasSuffix(c.Addr, ":0") {
			bad("METRICS_ADDR", "must differ from ADDR: metrics are never served beside the public API")
		}
	}
	if c.DataDir == "" {
		bad("DATA_DIR", "must name a folder for the store")
	}
	if c.PublicDir != "" {
		if fi, err := os.Stat(c.PublicDir); err != nil || !fi.IsDir() {
			bad("PUBLIC_DIR", "%q is not a folder; run `make build` first, or set PUBLIC_DIR= to serve only the API", c.PublicDir)
		}
	}
	c.BaseURL = strings.TrimRight(c.BaseURL, "/")
	for _, u := range []struct {
		name, value string
		required    bool
	}{{"BASE_URL", c.BaseURL, true}, {"WRITING_FEED_URL", c.WritingFeedURL, false}, {"SCREEN_LLM_URL", c.ScreenLLMURL, false}} {
		if u.required || u.value != "" {
			if err := checkURL(u.value); err != nil {
				bad(u.name, "%v", err)
			}
		}
	}
	if c.ChallengeSecret != "" && len(c.ChallengeSecret) < 32 {
		bad("CHALLENGE_SECRET", "must be at least 32 characters (try: openssl rand -hex 32)")
	}
	if c.AdminToken != "" && utf8.RuneCountInString(c.AdminToken) < 32 {
		bad("ADMIN_TOKEN", "must be at least 32 characters, or unset to turn owner routes off (try: openssl rand -hex 32)")
	}
	if c.ProxySecret != "" && utf8.RuneCountInString(c.ProxySecret) < 32 {
		bad("PROXY_SECRET", "must be at least 32 characters (try: openssl rand -hex 32)")
	}
	if v, ok := lookup("PROXY"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "":
		case "netlify":
			c.ProxyNetlify = true
		default:
			bad("PROXY", "%q is not netlify or empty (any other proxy: X-Forwarded-For)", v)
		}
	}
	if c.ChallengeSecretPrevious != "" && c.ChallengeSecret == "" {
		bad("CHALLENGE_SECRET_PREVIOUS", "is only used beside CHALLENGE_SECRET, during a rotation")
	}
	if v, ok := lookup("LOGO_SERVICES"); ok {
		c.LogoServices = nil
		for _, f := range strings.Split(v, ",") {
			if f = strings.TrimSpace(f); f == "" {
				continue
			}
			if err := checkURL(f); err != nil || !strings.Contains(f, "{domain}") {
				bad("LOGO_SERVICES", "%q is not an http(s) address with {domain} in it", f)
				continue
			}
			c.LogoServices = append(c.LogoServices, f)
		}
	}
	if v, ok := lookup("TRUSTED_PROXIES"); ok && strings.TrimSpace(v) != "" {
		for _, f := range strings.Split(v, ",") {
			f = strings.TrimSpace(f)
			p, err := netip.ParsePrefix(f)
			if err != nil {
				if a, aerr := netip.ParseAddr(f); aerr == nil {
					p = netip.PrefixFrom(a, a.BitLen())
				} else {
					bad("TRUSTED_PROXIES", "%q is not a CIDR such as 10.0.0.0/8 or an address", f)
					continue
				}
			}
			c.TrustedProxies = append(c.TrustedProxies, p.Masked())
		}
	}
	if c.ProxyNetlify && len(c.TrustedProxies) == 0 && c.ProxySecret == "" {
		bad("PROXY", "netlify needs PROXY_SECRET (or TRUSTED_PROXIES) to know a request came through Netlify")
	}
	for _, f := range []struct {
		name string
		dst  *bool
	}{{"BOARD_CLOSED", &c.BoardClosed}, {"PPROF", &c.Pprof}} {
		if v, ok := lookup(f.name); ok {
			switch strings.ToLower(strings.TrimSpace(v)) {
			case "1", "true", "yes":
				*f.dst = true
			case "", "0", "false", "no":
			default:
				bad(f.name, "%q is not 0 or 1", v)
			}
		}
	}
	if v, ok := lookup("SCREEN_LLM_FAIL"); ok {
		switch strings.ToLower(strings.TrimSpace(v)) {
		case "", "open":
		case "closed":
			c.ScreenLLMFailClosed = true
		default:
			bad("SCREEN_LLM_FAIL", "%q is not open or closed", v)
		}
	}
	for _, r := range []struct {
		name string
		dst  *int
	}{{"RATE_POSTS", &c.RatePosts}, {"RATE_CHALLENGES", &c.RateChallenges}, {"RATE_READS", &c.RateReads}, {"RATE_MCP", &c.RateMCP}, {"RATE_LOGOS", &c.RateLogos},
		{"RATE_OG", &c.RateOG}, {"RATE_OWNER", &c.RateOwner}} {
		if v, ok := lookup(r.name); ok && strings.TrimSpace(v) != "" {
			n, err := strconv.Atoi(strings.TrimSpace(v))
			if err != nil || n < 1 {
				bad(r.name, "%q is not a whole number of requests per minute, 1 or more", v)
				continue
			}
			*r.dst = n
		}
	}
	if v, ok := lookup("LOG_LEVEL"); ok && strings.TrimSpace(v) != "" {
		if err := c.LogLevel.UnmarshalText([]byte(strings.TrimSpace(v))); err != nil {
			bad("LOG_LEVEL", "%q is not debug, info, warn or error", v)
		}
	}
	switch c.LogFormat {
	case "", "json", "text":
	default:
		bad("LOG_FORMAT", "%q is not json or text", c.LogFormat)
	}
	if v, ok := lookup("SHUTDOWN_TIMEOUT"); ok && strings.TrimSpace(v) != "" {
		d, err := time.ParseDuration(strings.TrimSpace(v))
		if err != nil || d <= 0 {
			bad("SHUTDOWN_TIMEOUT", "%q is not a positive duration such as 10s", v)
		} else {
			c.ShutdownTimeout = d
		}
	}
	return c, errors.Join(errs...)
}

func checkURL(raw string) error {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return fmt.Errorf("%q is not an absolute http(s) URL", raw)
	}
	return nil
}
