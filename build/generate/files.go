package generate

import (
	"bufio"
	"bytes"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"twofold/server/content"
)

// writer writes the output files under root, creating folders as needed; it is safe for concurrent use.
type writer struct {
	root    string
	inPlace bool // writing into a folder being served (Session.Update): each file is replaced whole, by a rename
	dirs    sync.Map
	files   atomic.Int64
	bytes   atomic.Int64
}

// write stores data at the site path p ("/about/index.html").
func (w *writer) write(p string, data []byte) error {
	full := filepath.Join(w.root, filepath.FromSlash(p))
	if err := w.mkdir(filepath.Dir(full)); err != nil {
		return err
	}
	if w.inPlace {
		if err := replaceFile(full, data); err != nil {
			return err
		}
	} else if err := os.WriteFile(full, data, 0o644); err != nil {
		return err
	}
	w.files.Add(1)
	w.bytes.Add(int64(len(data)))
	return nil
}

// replaceFile writes data beside name and renames it over name: a reader sees the old file or the new one.
func replaceFile(name string, data []byte) error {
	f, err := os.CreateTemp(filepath.Dir(name), ".tmp-"+filepath.Base(name)+"-*")
	if err != nil {
		return err
	}
	_, err = f.Write(data)
	if err = errors.Join(err, f.Chmod(0o644), f.Close()); err == nil {
		err = os.Rename(f.Name(), name)
	}
	if err != nil {
		os.Remove(f.Name())
	}
	return err
}

// create opens the site path p for writing; the caller closes it and reports its size with wrote.
func (w *writer) create(p string) (*os.File, error) {
	full := filepath.Join(w.root, filepath.FromSlash(p))
	if err := w.mkdir(filepath.Dir(full)); err != nil {
		return nil, err
	}
	w.files.Add(1)
	return os.Create(full)
}

func (w *writer) wrote(n int64) { w.bytes.Add(n) }

func (w *writer) mkdir(dir string) error {
	if _, ok := w.dirs.Load(dir); ok {
		return nil
	}
	// Mkdir alone is one system call where MkdirAll is two; most folders' parents exist already.
	if err := os.Mkdir(dir, 0o755); err != nil && !errors.Is(err, fs.ErrExist) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
	}
	w.dirs.Store(dir, true)
	return nil
}

// modTimes answers when a source file last changed, for pages whose front matter does not say: its last git
// commit, else its modification time. Git is asked once, for the whole site folder, on first need.
type modTimes struct {
	dir  string
	fsys fs.FS
	once sync.Once
	git  map[string]time.Time
}

func (m *modTimes) of(file string) (time.Time, error) {
	m.once.Do(m.loadGit)
	if t, ok := m.git[file]; ok {
		return t, nil
	}
	fi, err := fs.Stat(m.fsys, file)
	if err != nil {
		return time.Time{}, &content.Error{File: file, Msg: "cannot stat: " + err.Error()}
	}
	return fi.ModTime().UTC().Truncate(time.Second), nil
}

// loadGit reads the newest commit time of every file under the site folder from one git log. Outside a git
// checkout, or without git, the map stays empty and modification times are used.
func (m *modTimes) loadGit() {
	m.git = map[string]time.Time{}
	cmd := exec.Command("git", "-C", m.dir, "log", "--format=%x00%cI", "--name-only", "--relative", "--", ".")
	out, err := cmd.Output()
	if err != nil {
		return
	}
	var current time.Time
	sc := bufio.NewScanner(bytes.NewReader(out))
	for sc.Scan() {
		line := sc.Text()
		if stamp, ok := strings.CutPrefix(line, "\x00"); ok {
			current, _ = time.Parse(time.RFC3339, stamp)
			continue
		}
		if line == "" || current.IsZero() {
			continue
		}
		if _, seen := m.git[line]; !seen { // newest first: the first mention is the last change
			m.git[line] = current.UTC()
		}
	}
}
