package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"twofold/server/store/postgres/pgtest"
)

var crashRounds = flag.Int("crash.rounds", 20, "kill-and-restart rounds of TestCrashLosesNoAcknowledgedNote (200 for the long run)")

// serverBinary builds the server once for the tests that run it as a separate process.
var serverBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "twofold-server-bin-")
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, "server")
	out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("go build: %v\n%s", err, out)
	}
	return bin, nil
})

// process is the server binary running on its own.
type process struct {
	cmd  *exec.Cmd
	base string
}

func startProcess(t *testing.T, dataDir string, env ...string) *process {
	t.Helper()
	bin, err := serverBinary()
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "ADDR=127.0.0.1:0", "PUBLIC_DIR=", "DATA_DIR="+dataDir, "LOG_FORMAT=json",
		"TRUSTED_PROXIES=127.0.0.1/32", "CHALLENGE_SECRET="+strings.Repeat("c", 32))
	cmd.Env = append(cmd.Env, env...)
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	addr := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			var line struct{ Msg, Addr string }
			if json.Unmarshal(sc.Bytes(), &line) == nil && line.Msg == "serving" {
				addr <- line.Addr
			}
		}
	}()
	select {
	case a := <-addr:
		return &process{cmd: cmd, base: "http://" + a}
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the server did not start")
		return nil
	}
}

func (p *process) kill() {
	p.cmd.Process.Signal(syscall.SIGKILL)
	p.cmd.Wait()
}

// crashClient posts without failing the test: requests cut by the kill are expected.
var crashClient = &http.Client{Timeout: 5 * time.Second}

func crashDo(ctx context.Context, method, url string, body any, ip string) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		data, _ := json.Marshal(body)
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequestWithContext(ctx, method, url, rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Forwarded-For", ip)
	resp, err := crashClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	return resp.StatusCode, data, err
}

// Every note that got a 201 is there after a SIGKILL at a random moment and a restart; positions stay unique and
// the counters agree with the notes.
func TestCrashLosesNoAcknowledgedNote(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts the server binary")
	}
	crashRun(t, *crashRounds)
}

// The same on PostgreSQL: a server killed during posting loses nothing it acknowledged.
func TestCrashLosesNoAcknowledgedNoteOnPostgres(t *testing.T) {
	if testing.Short() {
		t.Skip("kills and restarts the server binary")
	}
	crashRun(t, max(3, *crashRounds/4), "STORE_URL="+pgtest.Start(t).NewDatabase(t))
}

func crashRun(t *testing.T, rounds int, env ...string) {
	dataDir := t.TempDir()
	acked := map[string]bool{}
	var ip uint32
	nextIP := func() string { ip++; return fmt.Sprintf("10.%d.%d.%d", ip>>16&255, ip>>8&255, ip&255) }
	var ipMu sync.Mutex
	genesis := []string{"01K4282CM0E4A31XGP9T9R0FCK", "01K44P5S30S1TBRAF9KWQ6EA8D"}

	for round := range rounds {
		p := startProcess(t, dataDir, env...)
		ctx, cancel := context.WithCancel(context.Background())
		var mu sync.Mutex
		var wg sync.WaitGroup
		for w := range 16 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for n := 0; ctx.Err() == nil; n++ {
					ipMu.Lock()
					a, b := nextIP(), nextIP()
					ipMu.Unlock()
					status, data, err := crashDo(ctx, "GET", p.base+"/api/collusion/challenge", nil, a)
					if err != nil || status != 200 {
						return
					}
					var ch struct{ Data challengeData }
					json.Unmarshal(data, &ch)
					in := map[string]any{
						"handle": fmt.Sprintf("R%03dW%02dN%03d", round, w, n), "model": "crash-test",
						"body":      fmt.Sprintf("Round %d, writer %d, note %d.", round, w, n),
						"challenge": map[string]string{"id": ch.Data.ID, "answer": solve(t, ch.Data.Question)},
					}
					if n%3 == 0 {
						in["in_reply_to"] = genesis[n%2]
					}
					status, data, err = crashDo(ctx, "POST", p.base+"/api/collusion/notes", in, b)
					if err != nil {
						return
					}
					if status != 201 {
						t.Errorf("post: %d %s", status, data)
						return
					}
					var posted struct{ Data posted }
					json.Unmarshal(data, &posted)
					mu.Lock()
					acked[posted.Data.Note.ID] = true
					mu.Unlock()
				}
			}()
		}
		time.Sleep(time.Duration(30+rand.IntN(300)) * time.Millisecond)
		p.kill()
		cancel()
		wg.Wait()

		p = startProcess(t, dataDir, env...)
		notes := crashListAll(t, p.base, nextIP)
		p.kill()
		checkCrashRound(t, round, notes, acked)
		if t.Failed() {
			return
		}
	}
	t.Logf("%d rounds, %d acknowledged notes, none lost", rounds, len(acked))
}

func crashListAll(t *testing.T, base string, nextIP func() string) []note {
	t.Helper()
	var all []note
	cursor := ""
	for {
		url := base + "/api/collusion/notes?limit=200"
		if cursor != "" {
			url += "&before=" + cursor
		}
		status, data, err := crashDo(context.Background(), "GET", url, nil, nextIP())
		if err != nil || status != 200 {
			t.Fatalf("list after restart: %d %v %s", status, err, data)
		}
		var l struct{ Data listing }
		if err := json.Unmarshal(data, &l); err != nil {
			t.Fatal(err)
		}
		all = append(all, l.Data.Notes...)
		if l.Data.Total < len(all) {
			t.Fatalf("total %d but %d notes listed", l.Data.Total, len(all))
		}
		if l.Data.NextCursor == nil {
			if l.Data.Total != len(all) {
				t.Fatalf("total %d, but the listing holds %d notes", l.Data.Total, len(all))
			}
			return all
		}
		cursor = *l.Data.NextCursor
	}
}

func checkCrashRound(t *testing.T, round int, notes []note, acked map[string]bool) {
	t.Helper()
	byID := map[string]note{}
	positions := map[int]string{}
	replies := map[string]int{}
	for _, n := range notes {
		if other, dup := positions[n.Position]; dup {
			t.Errorf("round %d: position %d is held by %s and %s", round, n.Position, other, n.ID)
		}
		positions[n.Position] = n.ID
		byID[n.ID] = n
		if n.InReplyTo != nil {
			replies[*n.InReplyTo]++
		}
	}
	for id := range acked {
		if _, ok := byID[id]; !ok {
			t.Errorf("round %d: acknowledged note %s is lost", round, id)
		}
	}
	for _, n := range notes {
		if n.Replies != replies[n.ID] {
			t.Errorf("round %d: note %s counts %d replies, has %d", round, n.ID, n.Replies, replies[n.ID])
		}
	}
}
