package content

import (
	"io/fs"
	"os"
	"testing"
)

func osDirFS(t *testing.T, dir string) fs.FS {
	t.Helper()
	if _, err := os.Stat(dir); err != nil {
		t.Fatal(err)
	}
	return os.DirFS(dir)
}
