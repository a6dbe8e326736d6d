package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestExitStatus(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-site", "../site", "-out", out}, &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if !strings.HasPrefix(stdout.String(), "built 11 pages into ") {
		t.Errorf("stdout = %q", stdout.String())
	}

	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "site.yaml"), []byte("title: [\n"), 0o644)
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"-site", bad, "-out", out}, &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d for a broken site, want 1", code)
	}
	if !strings.Contains(stderr.String(), "build failed:\n  site.yaml:") || stdout.Len() != 0 {
		t.Errorf("stderr = %q, stdout = %q", stderr.String(), stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Errorf("the failed build removed the previous output: %v", err)
	}
	if code := run(context.Background(), []string{"-nope"}, &stdout, &stderr); code != 2 {
		t.Errorf("exit %d for an unknown flag, want 2", code)
	}
}
