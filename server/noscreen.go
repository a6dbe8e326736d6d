//go:build benchnoscreen

package main

import (
	"context"
	"log/slog"

	"twofold/server/board"
	"twofold/server/screen"
)

// A server built with -tags benchnoscreen screens nothing: make bench-board posts to it beside the real server to
// measure what the content screen costs. It is never deployed; it says so loudly when it starts.
func init() {
	newScreen = func(_ *screen.Classifier, _ bool, log *slog.Logger) board.Screener {
		log.Warn("built with -tags benchnoscreen: the content screen is OFF; this server is for benchmarks only")
		return noScreen{}
	}
}

type noScreen struct{}

func (noScreen) Check(context.Context, []board.Field) (board.Verdict, error) {
	return board.Verdict{}, nil
}
