package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// env is an environment for run: the variables of vars, and nothing else.
func env(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func TestExitStatus(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-site", "../site", "-out", out}, env(nil), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := "built 11 pages into " + out + " for https://iriscalloway.example (from site.yaml): "; !strings.HasPrefix(stdout.String(), want) {
		t.Errorf("stdout = %q, want it to start with %q", stdout.String(), want)
	}

	bad := t.TempDir()
	os.WriteFile(filepath.Join(bad, "site.yaml"), []byte("title: [\n"), 0o644)
	stdout.Reset()
	stderr.Reset()
	if code := run(context.Background(), []string{"-site", bad, "-out", out}, env(nil), &stdout, &stderr); code != 1 {
		t.Fatalf("exit %d for a broken site, want 1", code)
	}
	if !strings.Contains(stderr.String(), "build failed:\n  site.yaml:") || stdout.Len() != 0 {
		t.Errorf("stderr = %q, stdout = %q", stderr.String(), stdout.String())
	}
	if _, err := os.Stat(filepath.Join(out, "index.html")); err != nil {
		t.Errorf("the failed build removed the previous output: %v", err)
	}
	if code := run(context.Background(), []string{"-nope"}, env(nil), &stdout, &stderr); code != 2 {
		t.Errorf("exit %d for an unknown flag, want 2", code)
	}
}

func TestChooseBaseURL(t *testing.T) {
	netlify := func(context string) map[string]string {
		return map[string]string{
			"NETLIFY": "true", "CONTEXT": context, "URL": "https://site.netlify.app",
			"DEPLOY_PRIME_URL": "https://" + context + "--site.netlify.app", "DEPLOY_URL": "https://64f0c1--site.netlify.app",
		}
	}
	tests := []struct {
		name     string
		flag     string
		env      map[string]string
		want     string
		wantFrom string
	}{
		{"nothing set", "", nil, "", "site.yaml"},
		{"flag", "https://flag.example", nil, "https://flag.example", "-base-url"},
		{"flag wins over Netlify", "https://flag.example", netlify("deploy-preview"), "https://flag.example", "-base-url"},
		{"Netlify deploy preview", "", netlify("deploy-preview"), "https://deploy-preview--site.netlify.app", "DEPLOY_PRIME_URL"},
		{"Netlify branch deploy", "", netlify("branch-deploy"), "https://branch-deploy--site.netlify.app", "DEPLOY_PRIME_URL"},
		{"Netlify dev", "", netlify("dev"), "https://dev--site.netlify.app", "DEPLOY_PRIME_URL"},
		{"Netlify production", "", netlify("production"), "https://site.netlify.app", "URL"},
		{"Netlify production without URL", "", map[string]string{"NETLIFY": "true", "CONTEXT": "production", "DEPLOY_PRIME_URL": "https://main--site.netlify.app"}, "", "site.yaml"},
		{"Netlify's variables outside Netlify", "", map[string]string{"CONTEXT": "production", "URL": "https://elsewhere.example", "DEPLOY_PRIME_URL": "https://x.example"}, "", "site.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, from := chooseBaseURL(tt.flag, env(tt.env))
			if got != tt.want || from != tt.wantFrom {
				t.Errorf("chooseBaseURL = %q from %s, want %q from %s", got, from, tt.want, tt.wantFrom)
			}
		})
	}
}

// A deploy preview on Netlify is built for its own address, and says so.
func TestNetlifyPreviewBuild(t *testing.T) {
	out := filepath.Join(t.TempDir(), "public")
	vars := map[string]string{"NETLIFY": "true", "CONTEXT": "deploy-preview", "URL": "https://iriscalloway.example", "DEPLOY_PRIME_URL": "https://deploy-preview-7--iris.netlify.app"}
	var stdout, stderr bytes.Buffer
	if code := run(context.Background(), []string{"-site", "../site", "-out", out}, env(vars), &stdout, &stderr); code != 0 {
		t.Fatalf("exit %d: %s", code, stderr.String())
	}
	if want := " for https://deploy-preview-7--iris.netlify.app (from DEPLOY_PRIME_URL): "; !strings.Contains(stdout.String(), want) {
		t.Errorf("stdout = %q, want it to contain %q", stdout.String(), want)
	}
	manifest, err := os.ReadFile(filepath.Join(out, ".well-known", "mcp.json"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(manifest), `"url": "https://deploy-preview-7--iris.netlify.app/api/mcp"`) {
		t.Errorf("mcp.json is not for the preview:\n%s", manifest)
	}
}
