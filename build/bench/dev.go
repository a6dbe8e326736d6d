package main

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// runDev measures what an editor waits for: from the save of one page to its new HTML being served, with make
// dev's program and with hugo server, on the same synthetic site, in the same run.
func runDev(n, runs int, work, hugo string) error {
	work, _ = filepath.Abs(work)
	bin := filepath.Join(work, "bin")
	if out, err := exec.Command("go", "build", "-o", bin+"/", "./build", "./server", "./dev").CombinedOutput(); err != nil {
		return fmt.Errorf("go build: %v\n%s", err, out)
	}
	hugoVersion, err := exec.Command(hugo, "version").Output()
	if err != nil {
		return fmt.Errorf("hugo: %w (install it with: apt-get install hugo)", err)
	}
	siteDir := filepath.Join(work, "sites", fmt.Sprint(n))
	if err := writeSites(siteDir, n); err != nil {
		return err
	}
	page := "p00500"
	if n < 500 {
		page = "p00002"
	}
	ours, err := editLatency(runs, filepath.Join(siteDir, "twofold", "pages", page+".md"), "/"+page+"/", func(addr string) *exec.Cmd {
		cmd := exec.Command(filepath.Join(bin, "dev"), "-site", filepath.Join(siteDir, "twofold"), "-out", filepath.Join(work, "dev-public"), "-addr", addr, "-templates", "")
		cmd.Env = append(os.Environ(), "DATA_DIR="+filepath.Join(work, "dev-data"), "LOG_REQUESTS=off")
		return cmd
	})
	if err != nil {
		return fmt.Errorf("make dev: %w", err)
	}
	theirs, err := editLatency(runs, filepath.Join(siteDir, "hugo", "content", page+".md"), "/"+page+"/", func(addr string) *exec.Cmd {
		_, port, _ := net.SplitHostPort(addr)
		return exec.Command(hugo, "server", "-s", filepath.Join(siteDir, "hugo"), "--bind", "127.0.0.1", "--port", port, "--quiet")
	})
	if err != nil {
		return fmt.Errorf("hugo server: %w", err)
	}
	fmt.Printf("Edit to served HTML, %s, %d pages, %s", time.Now().UTC().Format("2006-01-02"), n, hugoVersion)
	fmt.Printf("Median of %d edits of one page (lowest–highest): from the save to the first answer holding the edit, polled every millisecond.\n\n", runs)
	fmt.Println("| pages | make dev | hugo server | ratio | target |")
	fmt.Println("|---:|---:|---:|---:|---|")
	mo, mh := medianDuration(ours), medianDuration(theirs)
	fmt.Printf("| %d | %s (%s–%s) | %s (%s–%s) | %.3f | ≤ 0.2 of Hugo's, < 100 ms |\n", n, ms(mo), ms(slices.Min(ours)), ms(slices.Max(ours)),
		ms(mh), ms(slices.Min(theirs)), ms(slices.Max(theirs)), mo.Seconds()/mh.Seconds())
	return nil
}

// editLatency starts a server on a free port, waits for it, then edits file runs times and measures each time
// until path serves the edit.
func editLatency(runs int, file, path string, start func(addr string) *exec.Cmd) ([]time.Duration, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	addr := l.Addr().String()
	l.Close()
	cmd := start(addr)
	cmd.Stdout, cmd.Stderr = io.Discard, os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	defer func() {
		cmd.Process.Signal(os.Interrupt)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case <-done:
		case <-time.After(10 * time.Second):
			cmd.Process.Kill()
		}
	}()
	url := "http://" + addr + path
	client := &http.Client{Timeout: 5 * time.Second}
	body := func() string {
		resp, err := client.Get(url)
		if err != nil {
			return ""
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return string(b)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	for body() == "" {
		if ctx.Err() != nil {
			return nil, fmt.Errorf("%s did not serve within 10 minutes", path)
		}
		time.Sleep(50 * time.Millisecond)
	}
	orig, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	defer os.WriteFile(file, orig, 0o644)
	var out []time.Duration
	for i := range runs + 1 { // the first edit warms caches up and is not counted
		marker := fmt.Sprintf("edited%dmarker%d", time.Now().UnixNano(), i)
		t0 := time.Now()
		if err := os.WriteFile(file, append(slices.Clone(orig), []byte("\n"+marker+"\n")...), 0o644); err != nil {
			return nil, err
		}
		for !strings.Contains(body(), marker) {
			if time.Since(t0) > time.Minute {
				return nil, fmt.Errorf("the edit was not served within a minute")
			}
			time.Sleep(time.Millisecond)
		}
		if i > 0 {
			out = append(out, time.Since(t0))
		}
		time.Sleep(time.Second) // let the rest of the rebuild settle
	}
	return out, nil
}

func medianDuration(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) string { return fmt.Sprintf("%.0f ms", float64(d.Microseconds())/1000) }
