// Command dev is make dev: it builds the site, runs the server behind a small proxy, watches site/ and templates/,
// rebuilds on every change, has the server read the new content (SIGHUP) and reloads the open browser tabs. A
// build that fails is shown in the terminal and over the page, with file and line, while the last good build
// keeps serving. A change to templates/ regenerates the templ code, recompiles the programs and starts again.
//
// The proxy is what dev adds to the site: it injects a script into HTML answers (/__twofold/live.js) and holds
// the browsers' event stream (/__twofold/events). Everything else is the real server's answer.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"path/filepath"
	"syscall"

	"twofold/server/terminal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	restore := terminal.Foreground() // make dev: Ctrl-C is this program's, and make sees it stop cleanly
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	restore()
	stop()
	os.Exit(code)
}

func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("dev", flag.ContinueOnError)
	flags.SetOutput(stderr)
	var o Options
	flags.StringVar(&o.SiteDir, "site", "site", "the site folder to watch and build")
	flags.StringVar(&o.OutDir, "out", "public", "where the site is built")
	flags.StringVar(&o.Addr, "addr", envOr("ADDR", "localhost:8080"), "where to serve")
	flags.StringVar(&o.Templates, "templates", "templates", "the templ components' folder to watch")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "dev:", err)
		return 1
	}
	o.Server = filepath.Join(filepath.Dir(exe), "server")
	o.Restart = func() error { return restart(exe) }
	o.Log = stdout
	d, err := Start(o)
	if err != nil {
		fmt.Fprintln(stderr, "dev:", err)
		return 1
	}
	fmt.Fprintf(stdout, "dev: serving http://%s/ (Ctrl-C stops); watching %s and %s\n", d.Addr(), o.SiteDir, o.Templates)
	err = d.Wait(ctx)
	if err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(stderr, "dev:", err)
		return 1
	}
	return 0
}

func envOr(k, d string) string {
	if v := os.Getenv(k); v != "" {
		return v
	}
	return d
}

// restart compiles the programs again (after a template changed) and replaces this process with the new dev.
func restart(exe string) error {
	if err := runCmd("go", "tool", "templ", "generate", "-path", "templates"); err != nil {
		return fmt.Errorf("templ generate: %w", err)
	}
	if err := runCmd("go", "build", "-o", filepath.Dir(exe)+"/", "./build", "./server", "./dev"); err != nil {
		return fmt.Errorf("go build: %w", err)
	}
	return syscall.Exec(exe, os.Args, os.Environ())
}
