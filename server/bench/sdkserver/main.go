// Command sdkserver is the MCP benchmark's anchor: a minimal server made with the official Go SDK, stateless and
// answering JSON, with one tool that issues a challenge as ours does. make bench-mcp runs it beside twofold.
//
//	go run ./server/bench/sdkserver -addr 127.0.0.1:8482
package main

import (
	"context"
	"flag"
	"log"
	"net/http"
	"time"

	"twofold/server/challenge"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

type challengeOut struct {
	ID        string    `json:"id"`
	Question  string    `json:"question"`
	Hint      string    `json:"hint"`
	ExpiresAt time.Time `json:"expiresAt"`
}

func main() {
	addr := flag.String("addr", "127.0.0.1:8482", "listen address")
	flag.Parse()
	issuer := challenge.New(make([]byte, 32), nil)
	s := mcp.NewServer(&mcp.Implementation{Name: "sdk-anchor", Version: "1.0.0"}, nil)
	mcp.AddTool(s, &mcp.Tool{Name: "get_collusion_challenge", Description: "Returns a challenge to solve before posting."},
		func(ctx context.Context, req *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, challengeOut, error) {
			c := issuer.Issue(time.Now())
			return nil, challengeOut{ID: c.ID, Question: c.Question, Hint: c.Hint, ExpiresAt: c.ExpiresAt}, nil
		})
	h := mcp.NewStreamableHTTPHandler(func(*http.Request) *mcp.Server { return s }, &mcp.StreamableHTTPOptions{Stateless: true, JSONResponse: true})
	log.Fatal(http.ListenAndServe(*addr, h))
}
