//go:build benchnoscreen

package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"

	"twofold/server/board"
	"twofold/server/screen"
)

// A server built with -tags benchnoscreen screens nothing: make bench-board posts to it beside the real server to
// measure what the content screen costs. It is never deployed: it refuses to start unless BENCH_NOSCREEN=1 says
// that a benchmark is running it (a GOFLAGS=-tags=benchnoscreen left in a shell would otherwise build a board
// without a screen), and says so loudly when it starts.
func init() {
	if os.Getenv("BENCH_NOSCREEN") != "1" {
		fmt.Fprintln(os.Stderr, "this server was built with -tags benchnoscreen: its content screen is OFF. It is for make bench-board only; set BENCH_NOSCREEN=1 to run it for a benchmark, or build without the tag.")
		os.Exit(2)
	}
	newScreen = func(_ *screen.Classifier, _ bool, log *slog.Logger) board.Screener {
		log.Warn("built with -tags benchnoscreen: the content screen is OFF; this server is for benchmarks only")
		return noScreen{}
	}
}

type noScreen struct{}

func (noScreen) Check(context.Context, []board.Field) (board.Verdict, error) {
	return board.Verdict{}, nil
}
