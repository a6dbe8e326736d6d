// Command build renders the site folder into the folder the static host publishes.
//
//	go run ./build -site site -out public [-base-url https://example.com]
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

	"twofold/build/generate"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run is the whole program: it parses args, builds, reports, and returns the exit status.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	var opts generate.Options
	flags := flag.NewFlagSet("build", flag.ContinueOnError)
	flags.SetOutput(stderr)
	flags.StringVar(&opts.SiteDir, "site", "site", "folder with site.yaml, pages/, collusion/, static/ and openapi.json")
	flags.StringVar(&opts.OutDir, "out", "public", "output folder, replaced whole when the build succeeds")
	flags.StringVar(&opts.BaseURL, "base-url", "", "public address of the site (default: baseURL of site.yaml)")
	flags.IntVar(&opts.Workers, "workers", 0, "pages rendered at once (default: two per CPU)")
	quiet := flags.Bool("q", false, "print nothing on success")
	cpuProfile := flags.String("cpuprofile", "", "write a CPU profile to this file")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if os.Getenv("GOGC") == "" {
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
		fmt.Fprintf(stdout, "built %d pages into %s: %d files, %.1f MB in %s\n",
			report.Pages, opts.OutDir, report.Files, float64(report.Bytes)/1e6, report.Duration.Round(1e6))
	}
	return 0
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
