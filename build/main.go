// Command build renders the site folder into the folder the static host publishes.
//
//	go run ./build -site site -out public [-base-url https://example.com]
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"runtime/debug"
	"runtime/pprof"

	"twofold/build/generate"
)

func main() {
	var opts generate.Options
	flag.StringVar(&opts.SiteDir, "site", "site", "folder with site.yaml, pages/, collusion/, static/ and openapi.json")
	flag.StringVar(&opts.OutDir, "out", "public", "output folder, replaced whole when the build succeeds")
	flag.StringVar(&opts.BaseURL, "base-url", "", "public address of the site (default: baseURL of site.yaml)")
	flag.IntVar(&opts.Workers, "workers", 0, "pages rendered at once (default: two per CPU)")
	quiet := flag.Bool("q", false, "print nothing on success")
	cpuProfile := flag.String("cpuprofile", "", "write a CPU profile to this file")
	flag.Parse()
	if os.Getenv("GOGC") == "" {
		// A build is a short batch job with a small heap: collecting half as often is worth the memory.
		debug.SetGCPercent(200)
	}
	if *cpuProfile != "" {
		f, err := os.Create(*cpuProfile)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		pprof.StartCPUProfile(f)
		defer pprof.StopCPUProfile()
	}

	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	report, err := generate.Build(ctx, opts)
	if err != nil {
		fmt.Fprintln(os.Stderr, "build failed:")
		fmt.Fprintln(os.Stderr, indent(err.Error()))
		pprof.StopCPUProfile()
		os.Exit(1)
	}
	if !*quiet {
		fmt.Printf("built %d pages into %s: %d files, %.1f MB in %s\n",
			report.Pages, opts.OutDir, report.Files, float64(report.Bytes)/1e6, report.Duration.Round(1e6))
	}
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
