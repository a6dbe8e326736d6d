package store

import (
	"archive/tar"
	"cmp"
	"compress/gzip"
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/cockroachdb/pebble/v2"
	"github.com/cockroachdb/pebble/v2/vfs"
)

// Backup writes a consistent copy of the store, taken while it serves, as a gzipped tar of a Pebble checkpoint:
// every note, record, audit entry and block as of one moment (the checkpoint's files are hard links where the file
// system allows, so taking it costs little). Restore puts such a copy into an empty DATA_DIR.
func (s *Store) Backup(ctx context.Context, w io.Writer) error {
	var suffix [6]byte
	rand.Read(suffix[:])
	// Inside the store's folder: the same file system (so hard links), and a folder the server may write.
	dest := s.fs.PathJoin(cmp.Or(s.dir, "/"), backupPrefix+hex.EncodeToString(suffix[:]))
	if err := s.db.Checkpoint(dest, pebble.WithFlushedWAL()); err != nil {
		return unavailable("backup", err)
	}
	defer removeAllIn(s.fs, dest)
	zw := gzip.NewWriter(w)
	tw := tar.NewWriter(zw)
	names, err := s.fs.List(dest)
	if err != nil {
		return unavailable("backup", err)
	}
	now := time.Now()
	for _, name := range names {
		if err := ctx.Err(); err != nil {
			return err
		}
		if err := addFile(s, tw, s.fs.PathJoin(dest, name), name, now); err != nil {
			return err
		}
	}
	return errors.Join(tw.Close(), zw.Close())
}

func addFile(s *Store, tw *tar.Writer, path, name string, at time.Time) error {
	f, err := s.fs.Open(path)
	if err != nil {
		return unavailable("backup", err)
	}
	defer f.Close()
	info, err := f.Stat()
	if err != nil {
		return unavailable("backup", err)
	}
	if err := tw.WriteHeader(&tar.Header{Name: name, Mode: 0o644, Size: info.Size(), ModTime: at, Typeflag: tar.TypeReg}); err != nil {
		return err // the writer's: the client went away
	}
	_, err = io.Copy(tw, f)
	return err
}

// backupPrefix names the folders Backup makes in the store's folder while it copies; Open removes any left by a
// crash.
const backupPrefix = ".twofold-backup-"

// removeAllIn removes a checkpoint's folder (it holds files only).
func removeAllIn(fs vfs.FS, dir string) {
	if names, err := fs.List(dir); err == nil {
		for _, n := range names {
			fs.Remove(fs.PathJoin(dir, n))
		}
	}
	fs.Remove(dir)
}

// Restore unpacks a copy written by Backup into dir, which must be empty or absent, and checks that it opens as a
// store; it returns the number of notes the copy holds. The copy is unpacked beside dir and moved into place only
// when all of it arrived, checksum included, and opens: a damaged or cut copy leaves nothing behind. Restore runs
// with no server on dir.
func Restore(r io.Reader, dir string) (int, error) {
	dir = filepath.Clean(dir)
	entries, err := os.ReadDir(dir)
	if err == nil && len(entries) > 0 {
		return 0, fmt.Errorf("restore: %s is not empty: restore into a new folder, then point DATA_DIR at it", dir)
	}
	if err == nil {
		// An empty folder that exists (a container's volume, a mount point) is unpacked into as it is, and emptied
		// again when the copy is bad: it may not be renamed, and its parent may not be writable.
		n, err := unpack(r, dir)
		if err != nil {
			entries, _ := os.ReadDir(dir)
			for _, e := range entries {
				os.RemoveAll(filepath.Join(dir, e.Name()))
			}
		}
		return n, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return 0, fmt.Errorf("restore: %w", err)
	}
	partial, err := os.MkdirTemp(filepath.Dir(dir), filepath.Base(dir)+".restoring-")
	if err != nil {
		return 0, fmt.Errorf("restore: %w", err)
	}
	n, err := unpack(r, partial)
	if err == nil {
		err = os.Rename(partial, dir)
	}
	if err != nil {
		os.RemoveAll(partial)
		return 0, err
	}
	return n, nil
}

// restoreLimit bounds what a copy may unpack to: a damaged or hostile archive does not fill the disk.
const restoreLimit = 64 << 30

func unpack(r io.Reader, dir string) (int, error) {
	zr, err := gzip.NewReader(r)
	if err != nil {
		return 0, fmt.Errorf("restore: not a backup (gzip): %w", err)
	}
	tr := tar.NewReader(zr)
	var total int64
	has := map[string]bool{}
	for {
		h, err := tr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return 0, fmt.Errorf("restore: the backup is damaged: %w", err)
		}
		name := filepath.Base(h.Name)
		if h.Typeflag != tar.TypeReg || name != h.Name || strings.HasPrefix(name, ".") {
			return 0, fmt.Errorf("restore: unexpected entry %q in the backup", h.Name)
		}
		if total += h.Size; total > restoreLimit {
			return 0, fmt.Errorf("restore: the backup unpacks to more than %d GiB", restoreLimit>>30)
		}
		f, err := os.OpenFile(filepath.Join(dir, name), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
		if err != nil {
			return 0, fmt.Errorf("restore: %w", err)
		}
		_, err = io.Copy(f, tr)
		if err = errors.Join(err, f.Sync(), f.Close()); err != nil {
			return 0, fmt.Errorf("restore: %s: %w", name, err)
		}
		has[name] = true
		if strings.HasPrefix(name, "MANIFEST-") {
			has["MANIFEST"] = true
		}
	}
	// The end of the tar is not the end of the gzip stream: read to its end, where its checksum is checked.
	if _, err := io.Copy(io.Discard, zr); err != nil {
		return 0, fmt.Errorf("restore: the backup is damaged: %w", err)
	}
	if !has["MANIFEST"] {
		return 0, errors.New("restore: the archive holds no store (no MANIFEST): is it a backup of this server?")
	}
	s, err := Open(dir, slog.New(slog.DiscardHandler))
	if err != nil {
		return 0, fmt.Errorf("restore: the copy does not open as a store: %w", err)
	}
	defer s.Close()
	s.idx.RLock()
	defer s.idx.RUnlock()
	return int(s.total), nil
}
