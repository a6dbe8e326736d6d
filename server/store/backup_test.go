package store

import (
	"archive/tar"
	"bytes"
	"compress/gzip"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"twofold/server/board"
)

// A backup taken while notes are being posted restores into a fresh folder as a store holding every note stored
// before it began, each exactly as it was, and the blocks; it never holds half a note.
func TestBackupWhileServingRestores(t *testing.T) {
	dir := t.TempDir()
	s, err := Open(filepath.Join(dir, "data"), quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 11, 24, 8, 0, 0, 0, time.UTC)
	var before []board.Note
	for i := range 40 {
		before = append(before, create(t, s, fmt.Sprintf("Agent%02d", i%8), fmt.Sprint("note ", i), at.Add(time.Duration(i)*time.Minute), nil))
	}
	if err := s.Block(ctx, board.Block{Handle: "Spammer", At: at}); err != nil {
		t.Fatal(err)
	}
	// Posting goes on during the backup.
	var wg sync.WaitGroup
	wg.Go(func() {
		for i := range 40 {
			create(t, s, fmt.Sprintf("Later%02d", i%8), fmt.Sprint("later note ", i), at.Add(time.Hour+time.Duration(i)*time.Minute), nil)
		}
	})
	var copy bytes.Buffer
	if err := s.Backup(ctx, &copy); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	if leftovers, _ := filepath.Glob(filepath.Join(dir, "data", backupPrefix+"*")); len(leftovers) > 0 {
		t.Errorf("the backup left its checkpoint behind: %v", leftovers)
	}

	restored := filepath.Join(dir, "restored")
	n, err := Restore(bytes.NewReader(copy.Bytes()), restored)
	if err != nil {
		t.Fatal(err)
	}
	r, err := Open(restored, quiet())
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var all []board.Note
	for before := ""; ; {
		page, more, _, err := r.List(ctx, before, board.MaxPageSize)
		if err != nil {
			t.Fatal(err)
		}
		all = append(all, page...)
		if !more {
			break
		}
		before = page[len(page)-1].ID
	}
	if len(all) != n || n < len(before) || n > len(before)+40 {
		t.Fatalf("restored %d notes (Restore says %d), want %d to %d", len(all), n, len(before), len(before)+40)
	}
	got := map[string]board.Note{}
	for _, note := range all {
		got[note.ID] = note
	}
	for _, want := range before {
		g, ok := got[want.ID]
		if !ok || g.Body != want.Body || g.Handle != want.Handle || g.Position != want.Position || !g.CreatedAt.Equal(want.CreatedAt) {
			t.Errorf("note %s: restored %+v, want %+v", want.ID, g, want)
		}
	}
	for i, note := range all { // positions of what was copied are whole: no note is half there
		if note.Position != len(all)-i {
			t.Fatalf("restored positions have a gap at %d: %d", i, note.Position)
		}
	}
	if ok, _ := r.Blocked(ctx, "spammer"); !ok {
		t.Error("the block was not restored")
	}

	// Restore refuses a folder in use and anything that is not a backup.
	if _, err := Restore(bytes.NewReader(copy.Bytes()), restored); err == nil || !strings.Contains(err.Error(), "not empty") {
		t.Errorf("restore over a store: %v", err)
	}
	if _, err := Restore(strings.NewReader("not a backup"), filepath.Join(dir, "other")); err == nil || !strings.Contains(err.Error(), "not a backup") {
		t.Errorf("restore of garbage: %v", err)
	}
	cut := copy.Bytes()[:copy.Len()/2]
	if _, err := Restore(bytes.NewReader(cut), filepath.Join(dir, "cut")); err == nil {
		t.Error("a backup cut in half restored")
	}
	// A flipped byte of the gzip checksum, after the tar's end: damaged, not restored.
	flipped := bytes.Clone(copy.Bytes())
	flipped[len(flipped)-5] ^= 0xff
	if _, err := Restore(bytes.NewReader(flipped), filepath.Join(dir, "flipped")); err == nil || !strings.Contains(err.Error(), "damaged") {
		t.Errorf("a backup with a wrong checksum: %v", err)
	}
	// An archive with no store in it.
	var empty bytes.Buffer
	zw := gzip.NewWriter(&empty)
	tar.NewWriter(zw).Close()
	zw.Close()
	if _, err := Restore(&empty, filepath.Join(dir, "empty")); err == nil || !strings.Contains(err.Error(), "no store") {
		t.Errorf("an empty archive: %v", err)
	}
	// A failed restore leaves nothing behind: the same folder takes a good copy next.
	for _, name := range []string{"cut", "flipped", "empty"} {
		if entries, _ := os.ReadDir(filepath.Join(dir, name)); len(entries) > 0 {
			t.Errorf("a failed restore left %d files in %s", len(entries), name)
		}
	}
	if leftovers, _ := filepath.Glob(filepath.Join(dir, "*.restoring-*")); len(leftovers) > 0 {
		t.Errorf("a failed restore left %v", leftovers)
	}
	if _, err := Restore(bytes.NewReader(copy.Bytes()), filepath.Join(dir, "cut")); err != nil {
		t.Errorf("a good copy after a failed one: %v", err)
	}
	// A folder that exists and is empty (a container's volume) is restored into where it is, and emptied again
	// by a bad copy.
	volume := filepath.Join(dir, "volume")
	os.Mkdir(volume, 0o700)
	if _, err := Restore(bytes.NewReader(flipped), volume); err == nil {
		t.Error("a damaged copy restored into an empty folder")
	}
	if entries, _ := os.ReadDir(volume); len(entries) > 0 {
		t.Errorf("a failed restore left %d files in the volume", len(entries))
	}
	if n, err := Restore(bytes.NewReader(copy.Bytes()), volume); err != nil || n == 0 {
		t.Errorf("a good copy into an empty folder: %d %v", n, err)
	}
}
