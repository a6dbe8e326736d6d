// Command build renders the site folder into the folder the static host publishes.
//
//	go run ./build -site site -out public [-base-url https://example.com]
//
// Without -base-url, a build on Netlify is for the address of its deploy (see chooseBaseURL), and any other
// build for site.yaml's baseURL.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"
	"strings"

	"twofold/build/generate"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program: it parses args, reads the environment through getenv, builds, reports, and
// returns the exit status.
func run(ctx context.Context, args []string, getenv func(string) string, stdout, stderr io.Writer) int {
	var opts generate.Options
	flags := flag.NewFlagSet("build", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.StringVar(&opts.SiteDir, "site", "site", "folder with site.yaml, pages/, collusion/, static/ and openapi.json")
	flags.StringVar(&opts.OutDir, "out", "public", "output folder, replaced whole when the build succeeds")
	flags.StringVar(&opts.BaseURL, "base-url", "", "public address of the site (default: the deploy's on Netlify, else baseURL of site.yaml)")
	flags.IntVar(&opts.Workers, "workers", 0, "pages rendered at once (default: two per CPU)")
	quiet := flags.Bool("q", false, "print nothing on success")
	cpuProfile := flags.String("cpuprofile", "", "write a CPU profile to this file")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	var baseFrom string
	opts.BaseURL, baseFrom = chooseBaseURL(opts.BaseURL, getenv)
	if getenv("GOGC") == "" {
		// A build is a short batch job with a small heap: collecting half as often is worth the memory.
		debug.SetGCPercent(200)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(stderr, err)
			return 1
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	report, err := generate.Build(ctx, opts)
	if err != nil {
		fmt.Fprintln(stderr, "build failed:")
		fmt.Fprintln(stderr, indent(err.Error()))
		return 1
	}
	if !*quiet {
		fmt.Fprintf(stdout, "built %d pages into %s for %s (from %s): %d files, %.1f MB in %s\n",
			report.Pages, opts.OutDir, report.BaseURL, baseFrom, report.Files, float64(report.Bytes)/1e6, report.Duration.Round(1e6))
		if len(report.Drafts) > 0 {
			fmt.Fprintf(stdout, "left out %d draft pages (draft: true): %s\n", len(report.Drafts), strings.Join(report.Drafts, ", "))
		}
	}
	return 0
}

// chooseBaseURL picks the address the site is built for and says where it came from: the -base-url flag when
// given; else, in a Netlify build (NETLIFY=true, which Netlify always sets), the address of the deploy being
// built; else "", site.yaml's baseURL. Netlify's URL is the site's main address, right only for the production
// context; DEPLOY_PRIME_URL is the address of a deploy or group of deploys
// (https://deploy-preview-42--site.netlify.app, https://branch--site.netlify.app) and is taken in every other
// context (deploy-preview, branch-deploy, dev), so that nothing but a production deploy names production, and a
// fork's production deploy names the fork. NETLIFY is required because URL is too common a name to trust on its
// own. An empty variable falls back to site.yaml; the build prints the address it used.
func chooseBaseURL(flagValue string, getenv func(string) string) (base, from string) {
	if flagValue != "" {
		return flagValue, "-base-url"
	}
	if getenv("NETLIFY") == "true" {
		name := "DEPLOY_PRIME_URL"
		if getenv("CONTEXT") == "production" {
			name = "URL"
		}
		if v := getenv(name); v != "" {
			return v, name
		}
	}
	return "", "site.yaml"
}

func indent(s string) string {
	out := "  "
	for _, r := range s {
		out += string(r)
		if r == '\n' {
			out += "  "
		}
	}
	return out
}
