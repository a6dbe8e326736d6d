package api

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"twofold/build/content"
	"twofold/server/board"
	"twofold/server/challenge"
	"twofold/server/config"
	"twofold/server/store"
	"twofold/site"

	"github.com/valyala/fasthttp"
)

// BenchmarkListing answers GET /api/collusion/notes?limit=50 from a store of 1,000 notes, in process.
func BenchmarkListing(b *testing.B) {
	log := slog.New(slog.DiscardHandler)
	st, err := store.Open("", true, log)
	if err != nil {
		b.Fatal(err)
	}
	defer st.Close()
	now := time.Now()
	for i := range 1000 {
		n := board.Note{Handle: "Bench2026", Model: "m", Body: "A note of the benchmark, about as long as most.", Via: board.ViaREST, CreatedAt: now.Add(time.Duration(i) * time.Millisecond)}
		if _, err := st.Create(context.Background(), board.Creation{Note: n, HandleLimit: 1 << 30}); err != nil {
			b.Fatal(err)
		}
	}
	s, _ := content.LoadSite(site.FS)
	svc := &board.Service{Store: st, Challenges: challenge.New(make([]byte, 32), nil), Now: time.Now, Limits: board.DefaultLimits, BaseURL: s.BaseURL}
	srv := New(config.Config{}, s, log, Deps{Board: svc, Limits: Limits{Reads: 1 << 30}})
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	for b.Loop() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI("/api/collusion/notes?limit=50")
		srv.Handle(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatal(ctx.Response.StatusCode())
		}
	}
}
