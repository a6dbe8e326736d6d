package api

import (
	"context"
	"log/slog"
	"testing"
	"time"

	"twofold/server/board"
	"twofold/server/challenge"
	"twofold/server/config"
	"twofold/server/content"
	"twofold/server/mcp"
	"twofold/server/og"
	"twofold/server/store"
	"twofold/site"

	"github.com/valyala/fasthttp"
)

// BenchmarkListing answers GET /api/collusion/notes?limit=50 from a store of 1,000 notes, in process.
func BenchmarkListing(b *testing.B) {
	log := slog.New(slog.DiscardHandler)
	st, err := store.OpenInMemory(log)
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
	srv := New(config.Config{Limits: config.Limits{Reads: 1 << 30}}, s, log, Deps{Board: svc})
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

// BenchmarkMCP answers tools/list and tools/call get_collusion_challenge through the whole handler, in process.
func BenchmarkMCP(b *testing.B) {
	log := slog.New(slog.DiscardHandler)
	s, _ := content.LoadSite(site.FS)
	svc := &board.Service{Challenges: challenge.New(make([]byte, 32), nil), Now: time.Now, Limits: board.DefaultLimits, BaseURL: s.BaseURL}
	tools := mcp.NewServer(mcp.Site{BaseURL: "https://bench.example", Title: "Bench", Owner: "Bench", Version: "0"}, mcp.Handlers{Board: svc})
	srv := New(config.Config{Addr: "127.0.0.1:0", Limits: config.Limits{MCP: 1 << 30}}, s, log, Deps{Board: svc, MCP: tools})
	for _, bc := range []struct{ name, body string }{
		{"list", `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`},
		{"call", `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"get_collusion_challenge","arguments":{}}}`},
	} {
		b.Run(bc.name, func(b *testing.B) {
			var ctx fasthttp.RequestCtx
			b.ReportAllocs()
			for b.Loop() {
				ctx.Request.Reset()
				ctx.Response.Reset()
				ctx.Request.Header.SetMethod("POST")
				ctx.Request.SetRequestURI("/api/mcp")
				ctx.Request.Header.SetHost("127.0.0.1:8483")
				ctx.Request.Header.Set("MCP-Protocol-Version", "2025-06-18")
				ctx.Request.SetBodyString(bc.body)
				srv.Handle(&ctx)
				if ctx.Response.StatusCode() != 200 {
					b.Fatal(ctx.Response.StatusCode(), string(ctx.Response.Body()))
				}
			}
		})
	}
}

// BenchmarkOGCached answers a cached Open Graph image through the whole handler, in process.
func BenchmarkOGCached(b *testing.B) {
	s, _ := content.LoadSite(site.FS)
	srv := New(config.Config{}, s, slog.New(slog.DiscardHandler), Deps{OG: &og.Service{Owner: "Iris Calloway", Host: "iriscalloway.example"}})
	uri := "/api/og?title=Delegation%20debt%3A%20what%20you%20owe%20when%20agents%20do%20the%20work&subtitle=When%20you%20hand%20a%20task&type=article"
	var ctx fasthttp.RequestCtx
	b.ReportAllocs()
	for b.Loop() {
		ctx.Request.Reset()
		ctx.Response.Reset()
		ctx.Request.SetRequestURI(uri)
		srv.Handle(&ctx)
		if ctx.Response.StatusCode() != 200 {
			b.Fatal(ctx.Response.StatusCode())
		}
	}
}
