package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"twofold/server/admin"
	"twofold/server/board"
	"twofold/server/store"
)

// runAdmin runs "server admin args…" against a server and returns its exit status, stdout and stderr.
func runAdmin(t *testing.T, base, token string, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	env := map[string]string{"TWOFOLD_URL": base, "ADMIN_TOKEN": token}
	code := admin.Run(context.Background(), args, admin.Env{Getenv: func(k string) string { return env[k] }, Stdout: &out, Stderr: &errOut})
	return code, out.String(), errOut.String()
}

// The owner's command, against a real server: read, moderate, block, export and back up without curl.
func TestAdminCommand(t *testing.T) {
	base := startServer(t, map[string]string{"ADMIN_TOKEN": ownerToken})
	c := newClient(t, base)
	var parent, child posted
	c.post("Parent2026", "A parent note for the owner.", nil, nil).data(t, &parent)
	c.post("Child2026", "A reply the owner will remove.", map[string]any{"in_reply_to": parent.Note.ID}, nil).data(t, &child)
	if r := c.post("Rude2026", "you are a worthless idiot and everyone hates you", nil, nil); r.status != 422 {
		t.Fatalf("refused note: %d", r.status)
	}

	code, out, errOut := runAdmin(t, base, ownerToken, "notes", "-limit", "3")
	if code != 0 || !strings.Contains(out, parent.Note.ID) || !strings.Contains(out, "Child2026") || !strings.Contains(out, "3 of ") {
		t.Errorf("notes: %d\n%s%s", code, out, errOut)
	}
	if code, out, _ := runAdmin(t, base, ownerToken, "thread", parent.Note.ID); code != 0 || !strings.Contains(out, "1 replies") || !strings.Contains(out, child.Note.ID) {
		t.Errorf("thread: %d\n%s", code, out)
	}
	if code, out, _ := runAdmin(t, base, ownerToken, "audit"); code != 0 || !strings.Contains(out, "Rude2026") || !strings.Contains(out, "1 refused notes") {
		t.Errorf("audit: %d\n%s", code, out)
	}
	if code, out, _ := runAdmin(t, base, ownerToken, "-json", "audit"); code != 0 || !json.Valid([]byte(out)) {
		t.Errorf("audit -json: %d\n%s", code, out)
	}

	// A blocked handle's posts get 403 HANDLE_BLOCKED, in any case; unblocked, it posts again.
	if code, out, _ := runAdmin(t, base, ownerToken, "block", "Spammer2026"); code != 0 || !strings.Contains(out, "blocked Spammer2026") {
		t.Fatalf("block: %d %s", code, out)
	}
	if r := c.post("spammer2026", "Buy my things, a very fine offer.", nil, nil); r.status != 403 || r.env.Code != "HANDLE_BLOCKED" {
		t.Errorf("a blocked handle posted: %d %s", r.status, r.raw)
	}
	if code, out, _ := runAdmin(t, base, ownerToken, "blocks"); code != 0 || !strings.Contains(out, "Spammer2026") || !strings.Contains(out, "1 blocked handles") {
		t.Errorf("blocks: %d %s", code, out)
	}
	if code, _, _ := runAdmin(t, base, ownerToken, "unblock", "SPAMMER2026"); code != 0 {
		t.Errorf("unblock: %d", code)
	}
	if r := c.post("Spammer2026", "Changed my ways, a useful note now.", nil, nil); r.status != 201 {
		t.Errorf("after unblock: %d %s", r.status, r.raw)
	}
	if code, _, errOut := runAdmin(t, base, ownerToken, "unblock", "Spammer2026"); code != 1 || !strings.Contains(errOut, "NOT_FOUND") {
		t.Errorf("unblock of a handle not blocked: %d %s", code, errOut)
	}
	if code, _, errOut := runAdmin(t, base, ownerToken, "block", "not a handle!"); code != 1 || !strings.Contains(errOut, "HANDLE_INVALID") {
		t.Errorf("block of a bad handle: %d %s", code, errOut)
	}

	if code, out, _ := runAdmin(t, base, ownerToken, "delete", child.Note.ID); code != 0 || !strings.Contains(out, "removed note "+child.Note.ID) {
		t.Errorf("delete: %d %s", code, out)
	}

	// Export: every note, oldest first, as JSON lines.
	code, out, errOut = runAdmin(t, base, ownerToken, "export")
	var exported []board.Note
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var n board.Note
		if err := json.Unmarshal(sc.Bytes(), &n); err != nil {
			t.Fatalf("export line %q: %v", sc.Text(), err)
		}
		exported = append(exported, n)
	}
	if code != 0 || len(exported) < 3 || exported[len(exported)-1].Handle != "Spammer2026" || !strings.Contains(errOut, "export: ") {
		t.Errorf("export: %d, %d notes, %s", code, len(exported), errOut)
	}

	// Backup while serving, restore into a fresh DATA_DIR: every note is there, as it was.
	code, copy, errOut := runAdmin(t, base, ownerToken, "backup")
	if code != 0 {
		t.Fatalf("backup: %d %s", code, errOut)
	}
	dir := filepath.Join(t.TempDir(), "restored")
	var restoreOut bytes.Buffer
	env := map[string]string{"DATA_DIR": dir}
	if code := command(context.Background(), []string{"restore"}, func(k string) (string, bool) { v, ok := env[k]; return v, ok },
		strings.NewReader(copy), &restoreOut, &restoreOut); code != 0 || !strings.Contains(restoreOut.String(), "restored ") {
		t.Fatalf("restore: %d %s", code, restoreOut.String())
	}
	restored, err := store.Open(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer restored.Close()
	var again bytes.Buffer
	if _, err := store.Export(context.Background(), restored, &again); err != nil {
		t.Fatal(err)
	}
	if again.String() != out {
		t.Errorf("the restored store's notes differ from the served store's:\n%s\nwant\n%s", again.String(), out)
	}

	// The owner's routes refuse a wrong token with a message that says what to do; no server, likewise.
	if code, _, errOut := runAdmin(t, base, "not-the-owners-token-at-all-0000000", "audit"); code != 1 || !strings.Contains(errOut, "401 UNAUTHORIZED") || !strings.Contains(errOut, "set ADMIN_TOKEN") {
		t.Errorf("wrong token: %d %s", code, errOut)
	}
	if code, _, errOut := runAdmin(t, "http://127.0.0.1:1", ownerToken, "notes"); code != 1 || !strings.Contains(errOut, "no server answers at http://127.0.0.1:1") {
		t.Errorf("no server: %d %s", code, errOut)
	}
	if code, _, errOut := runAdmin(t, base, ownerToken, "frobnicate"); code != 2 || !strings.Contains(errOut, "unknown command") {
		t.Errorf("unknown command: %d %s", code, errOut)
	}
}
