// Package admin is the owner's command line: "server admin …" talks to a running server over its API with
// ADMIN_TOKEN, so the owner reads, moderates and backs up the board without writing curl by hand. It uses only the
// public routes and the owner's routes of openapi.json; it never opens the store itself.
package admin

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"
	"unicode"
	"unicode/utf8"

	"twofold/server/board"
	"twofold/server/errcode"
	"twofold/server/paths"
)

// Usage is the command's help.
const Usage = `usage: server admin [-url URL] [-json] COMMAND

Talks to a running server (TWOFOLD_URL, default http://localhost:8080) as its owner (ADMIN_TOKEN).

  notes [-limit N] [-before ID]   the newest notes (public)
  thread ID                       a note with its parent and replies (public)
  delete ID                       remove a note
  audit [-limit N]                the notes the content screen refused, newest first
  blocks                          the blocked handles
  block HANDLE                    keep a handle from posting (403 HANDLE_BLOCKED)
  unblock HANDLE                  let it post again
  export > board.jsonl            every note, oldest first, as JSON lines ("server import" reads them)
  backup > backup.tar.gz          a consistent copy of the store, taken while it serves ("server restore" reads it)

-json prints the server's data as JSON instead of a table.`

// Env is what the command reads from its environment.
type Env struct {
	Getenv func(string) string
	Stdout io.Writer
	Stderr io.Writer
	Client *http.Client // nil: a client with a minute's timeout
	// Terminal reports whether stdout is a terminal, where a binary copy is not written.
	Terminal bool
}

// Run runs one admin command and returns the exit status: 0 done, 1 the server refused or failed, 2 bad usage.
func Run(ctx context.Context, args []string, env Env) int {
	flags := flag.NewFlagSet("server admin", flag.ContinueOnError)
	flags.SetOutput(env.Stderr)
	flags.Usage = func() { fmt.Fprintln(env.Stderr, Usage) }
	base := flags.String("url", cmpOr(env.Getenv("TWOFOLD_URL"), "http://localhost:8080"), "the server's address")
	asJSON := flags.Bool("json", false, "print JSON")
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() == 0 {
		flags.Usage()
		return 2
	}
	c := &client{base: strings.TrimRight(*base, "/"), token: env.Getenv("ADMIN_TOKEN"), http: env.Client, json: *asJSON, out: env.Stdout}
	if c.http == nil {
		// No overall timeout: a backup of a large store takes minutes to arrive; a server that does not answer at
		// all is given a minute.
		c.http = &http.Client{Transport: &http.Transport{ResponseHeaderTimeout: time.Minute, Proxy: http.ProxyFromEnvironment}}
	}
	// A redirect is reported, never followed with the token.
	c.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	if u, err := url.Parse(c.base); err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return usage(env, fmt.Sprintf("-url %q is not an http(s) address", c.base))
	} else if u.Scheme == "http" && c.token != "" && !loopbackHost(u.Hostname()) {
		fmt.Fprintf(env.Stderr, "server admin: %s is not https: ADMIN_TOKEN would cross the network in the clear; use https\n", c.base)
		return 2
	}
	cmd, rest := flags.Arg(0), flags.Args()[1:]
	var err error
	switch cmd {
	case "notes":
		sub := flag.NewFlagSet("notes", flag.ContinueOnError)
		sub.SetOutput(env.Stderr)
		limit := sub.Int("limit", 20, "how many")
		before := sub.String("before", "", "older than this note id")
		if sub.Parse(rest) != nil || sub.NArg() > 0 {
			return usage(env, "notes takes -limit and -before")
		}
		q := url.Values{"limit": {strconv.Itoa(*limit)}}
		if *before != "" {
			q.Set("before", *before)
		}
		err = c.notes(ctx, q)
	case "thread":
		if len(rest) != 1 {
			return usage(env, "thread takes a note id")
		}
		err = c.thread(ctx, rest[0])
	case "delete":
		if len(rest) != 1 {
			return usage(env, "delete takes a note id")
		}
		err = c.simple(ctx, http.MethodDelete, paths.Notes+"?id="+url.QueryEscape(rest[0]), "removed note "+rest[0])
	case "audit":
		sub := flag.NewFlagSet("audit", flag.ContinueOnError)
		sub.SetOutput(env.Stderr)
		limit := sub.Int("limit", 20, "how many")
		if sub.Parse(rest) != nil || sub.NArg() > 0 {
			return usage(env, "audit takes -limit")
		}
		err = c.audit(ctx, *limit)
	case "blocks":
		if len(rest) != 0 {
			return usage(env, "blocks takes nothing")
		}
		err = c.blocks(ctx)
	case "block", "unblock":
		if len(rest) != 1 {
			return usage(env, cmd+" takes a handle")
		}
		method, done := http.MethodPut, "blocked "+rest[0]+": its posts get 403 HANDLE_BLOCKED"
		if cmd == "unblock" {
			method, done = http.MethodDelete, "unblocked "+rest[0]
		}
		err = c.simple(ctx, method, paths.Block+url.PathEscape(rest[0]), done)
	case "export", "backup":
		if len(rest) != 0 {
			return usage(env, cmd+" takes nothing; redirect its output to a file")
		}
		if cmd == "backup" && env.Terminal {
			return usage(env, "backup writes a gzipped tar: redirect it to a file (server admin backup > backup.tar.gz)")
		}
		path := map[string]string{"export": paths.Export, "backup": paths.Backup}[cmd]
		var n int64
		n, err = c.download(ctx, path)
		if err == nil {
			fmt.Fprintf(env.Stderr, "%s: %d bytes\n", cmd, n)
		}
	default:
		return usage(env, fmt.Sprintf("unknown command %q", cmd))
	}
	if err != nil {
		fmt.Fprintln(env.Stderr, "server admin "+cmd+":", err)
		return 1
	}
	return 0
}

func usage(env Env, problem string) int {
	fmt.Fprintln(env.Stderr, "server admin: "+problem)
	fmt.Fprintln(env.Stderr, Usage)
	return 2
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// client is the owner's side of the API.
type client struct {
	base, token string
	http        *http.Client
	json        bool
	out         io.Writer
}

// serverError is the server's error envelope, told as a person reads it.
type serverError struct {
	status int
	env    errcode.Envelope
}

func (e *serverError) Error() string {
	msg := fmt.Sprintf("%d %s: %s", e.status, e.env.Code, e.env.Error)
	if e.env.Hint != "" {
		msg += " (" + e.env.Hint + ")"
	}
	if e.env.Code == errcode.Unauthorized {
		msg += "; set ADMIN_TOKEN to the server's"
	}
	return msg
}

// do sends a request and returns the answer's body when it succeeded; the server's error envelope otherwise.
func (c *client) do(ctx context.Context, method, path string) (*http.Response, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.base+path, nil)
	if err != nil {
		return nil, err
	}
	if c.token != "" {
		req.Header.Set("Authorization", "Bearer "+c.token)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		if errors.Is(err, syscall.ECONNREFUSED) {
			return nil, fmt.Errorf("no server answers at %s (start one with make run, or set TWOFOLD_URL): %w", c.base, err)
		}
		return nil, err
	}
	if resp.StatusCode >= 300 {
		defer resp.Body.Close()
		body, _ := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
		e := &serverError{status: resp.StatusCode}
		if json.Unmarshal(body, &e.env) != nil || e.env.Code == "" {
			return nil, fmt.Errorf("%s %s: %s", method, path, resp.Status)
		}
		return nil, e
	}
	return resp, nil
}

// data decodes the data of a success envelope into v, or prints it as it is with -json.
func (c *client) data(ctx context.Context, method, path string, v any) (printed bool, err error) {
	resp, err := c.do(ctx, method, path)
	if err != nil {
		return false, err
	}
	defer resp.Body.Close()
	var env struct {
		Data json.RawMessage `json:"data"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&env); err != nil {
		return false, fmt.Errorf("%s %s: not the API's JSON: %w", method, path, err)
	}
	if c.json {
		var b bytes.Buffer
		json.Indent(&b, env.Data, "", "  ")
		fmt.Fprintln(c.out, b.String())
		return true, nil
	}
	return false, json.Unmarshal(env.Data, v)
}

func (c *client) simple(ctx context.Context, method, path, done string) error {
	var v any
	printed, err := c.data(ctx, method, path, &v)
	if err == nil && !printed {
		fmt.Fprintln(c.out, done)
	}
	return err
}

func (c *client) notes(ctx context.Context, q url.Values) error {
	var l board.Listing
	if printed, err := c.data(ctx, http.MethodGet, paths.Notes+"?"+q.Encode(), &l); err != nil || printed {
		return err
	}
	c.table(l.Notes)
	next := ""
	if l.NextCursor != nil {
		next = "; older: -before " + *l.NextCursor
	}
	fmt.Fprintf(c.out, "%d of %d notes%s\n", len(l.Notes), l.Total, next)
	return nil
}

func (c *client) thread(ctx context.Context, id string) error {
	var t board.Thread
	if printed, err := c.data(ctx, http.MethodGet, paths.Thread+url.PathEscape(id), &t); err != nil || printed {
		return err
	}
	if t.Parent != nil {
		fmt.Fprintln(c.out, "in reply to:")
		c.table([]board.Note{*t.Parent})
	}
	fmt.Fprintln(c.out, "note:")
	c.table([]board.Note{t.Note})
	fmt.Fprintln(c.out, printable(t.Note.Body))
	fmt.Fprintf(c.out, "%d replies:\n", len(t.Replies))
	c.table(t.Replies)
	return nil
}

func (c *client) audit(ctx context.Context, limit int) error {
	var a board.Audit
	if printed, err := c.data(ctx, http.MethodGet, paths.Audit+"?limit="+strconv.Itoa(limit), &a); err != nil || printed {
		return err
	}
	w := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "AT\tHANDLE\tCATEGORY\tFIELD\tVIA\tCLIENT\tBODY")
	for _, r := range a.Rejections {
		fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%s\t%s\t%s\n", r.At.Format(time.DateTime), line(r.Handle, 32), line(r.Category, 20), line(r.Field, 8), line(string(r.Via), 12), line(r.Client, 40), line(r.Body, 60))
	}
	w.Flush()
	fmt.Fprintf(c.out, "%d refused notes\n", len(a.Rejections))
	return nil
}

func (c *client) blocks(ctx context.Context) error {
	var b struct {
		Blocks []board.Block `json:"blocks"`
	}
	if printed, err := c.data(ctx, http.MethodGet, paths.Blocks, &b); err != nil || printed {
		return err
	}
	w := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "HANDLE\tBLOCKED AT")
	for _, x := range b.Blocks {
		fmt.Fprintf(w, "%s\t%s\n", line(x.Handle, 32), x.At.Format(time.DateTime))
	}
	w.Flush()
	fmt.Fprintf(c.out, "%d blocked handles\n", len(b.Blocks))
	return nil
}

// download copies a file answer (export, backup) to stdout whole, or fails: a cut answer is an error.
func (c *client) download(ctx context.Context, path string) (int64, error) {
	resp, err := c.do(ctx, http.MethodGet, path)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	n, err := io.Copy(c.out, resp.Body)
	if err == nil && resp.ContentLength >= 0 && n != resp.ContentLength {
		err = fmt.Errorf("the answer was cut at %d of %d bytes", n, resp.ContentLength)
	}
	return n, err
}

func (c *client) table(notes []board.Note) {
	w := tabwriter.NewWriter(c.out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "#\tID\tAT\tHANDLE\tVIA\tREPLIES\tBODY")
	for _, n := range notes {
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\t%s\t%d\t%s\n", n.Position, line(n.ID, 26), n.CreatedAt.Format(time.DateTime), line(n.Handle, 32), line(string(n.Via), 12), n.Replies, line(n.Body, 60))
	}
	w.Flush()
}

// loopbackHost reports a name or address of this machine.
func loopbackHost(h string) bool {
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// printable writes a stranger's text for a terminal: control characters (escape sequences) as \u escapes.
func printable(s string) string {
	return strings.Map(func(r rune) rune {
		if r == '\n' || r == '\t' || !unicode.IsControl(r) && !unicode.Is(unicode.Cf, r) {
			return r
		}
		return '\uFFFD'
	}, s)
}

// line is text on one line of at most n characters, printable on a terminal.
func line(s string, n int) string {
	s = strings.Join(strings.Fields(printable(s)), " ")
	if utf8.RuneCountInString(s) > n {
		return string([]rune(s)[:n-1]) + "…"
	}
	return s
}
