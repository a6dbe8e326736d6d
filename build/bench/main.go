// Command bench measures the build against Hugo: it writes synthetic sites (about 800 words a page, with
// headings, lists, links, a code block and front matter) for both, builds each several times into a clean folder
// on disk and on tmpfs, and prints pages per second, peak memory and the ratios as a markdown table.
//
//	go run ./build/bench -pages 1000,10000 -runs 3 -work bench-out -tmpfs /dev/shm
package main

import (
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

func main() {
	pagesFlag := flag.String("pages", "1000,10000", "site sizes, comma-separated")
	runs := flag.Int("runs", 3, "builds per tool, size and output; the median is reported")
	work := flag.String("work", "bench-out", "folder for the generated sites and the on-disk outputs")
	tmpfs := flag.String("tmpfs", "/dev/shm", "a tmpfs folder for the in-memory outputs; empty skips them")
	hugo := flag.String("hugo", "hugo", "the hugo binary")
	dev := flag.Int("dev", 0, "instead: the edit-to-served latency of make dev and hugo server on a site of this many pages")
	flag.Parse()

	if *dev > 0 {
		if err := runDev(*dev, *runs, *work, *hugo); err != nil {
			fmt.Fprintln(os.Stderr, "bench:", err)
			os.Exit(1)
		}
		return
	}
	if err := run(*pagesFlag, *runs, *work, *tmpfs, *hugo); err != nil {
		fmt.Fprintln(os.Stderr, "bench:", err)
		os.Exit(1)
	}
}

type result struct {
	wall   time.Duration
	maxRSS int64 // bytes
}

func run(pagesFlag string, runs int, work, tmpfs, hugo string) error {
	work, _ = filepath.Abs(work)
	if err := os.MkdirAll(work, 0o755); err != nil {
		return err
	}
	ours := filepath.Join(work, "twofold-build")
	if out, err := exec.Command("go", "build", "-o", ours, "./build").CombinedOutput(); err != nil {
		return fmt.Errorf("go build ./build: %v\n%s", err, out)
	}
	hugoVersion, err := exec.Command(hugo, "version").Output()
	if err != nil {
		return fmt.Errorf("hugo: %w (install it with: apt-get install hugo)", err)
	}

	var sizes []int
	for _, s := range strings.Split(pagesFlag, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(s))
		if err != nil || n < 1 {
			return fmt.Errorf("-pages: %q is not a page count", s)
		}
		sizes = append(sizes, n)
	}
	targets := []string{"disk"}
	if tmpfs != "" {
		targets = append(targets, "tmpfs")
	}

	fmt.Printf("Build benchmark, %s, %d CPUs, Go %s, %s", time.Now().UTC().Format("2006-01-02"), runtime.NumCPU(), runtime.Version()[2:], hugoVersion)
	fmt.Printf("Median of %d runs (lowest–highest), twofold and Hugo alternating; each run builds into a folder that does not exist yet.\n\n", runs)
	fmt.Println("| pages | output | twofold pages/s | Hugo pages/s | speed ratio | twofold peak RSS | Hugo peak RSS | memory ratio | target |")
	fmt.Println("|---:|---|---:|---:|---:|---:|---:|---:|---|")
	for _, n := range sizes {
		siteDir := filepath.Join(work, "sites", strconv.Itoa(n))
		if err := writeSites(siteDir, n); err != nil {
			return err
		}
		for _, target := range targets {
			outRoot := filepath.Join(work, "out")
			if target == "tmpfs" {
				outRoot = filepath.Join(tmpfs, "twofold-bench")
			}
			var a, b []result
			for i := range runs {
				out := filepath.Join(outRoot, fmt.Sprintf("twofold-%d-%d", n, i))
				r, err := measure(out, ours, "-q", "-site", filepath.Join(siteDir, "twofold"), "-out", out)
				if err != nil {
					return err
				}
				a = append(a, r)
				out = filepath.Join(outRoot, fmt.Sprintf("hugo-%d-%d", n, i))
				r, err = measure(out, hugo, "--quiet", "-s", filepath.Join(siteDir, "hugo"), "-d", out)
				if err != nil {
					return err
				}
				b = append(b, r)
			}
			os.RemoveAll(outRoot)
			ma, mb := median(a), median(b)
			pa, pb := float64(n)/ma.wall.Seconds(), float64(n)/mb.wall.Seconds()
			goal := ""
			if n >= 10000 {
				goal = "≥ 2× the speed, < 0.1 the memory"
			}
			fmt.Printf("| %d | %s | %.0f (%s) | %.0f (%s) | %.2f× | %.0f MB | %.0f MB | %.3f | %s |\n",
				n, target, pa, rateSpread(n, a), pb, rateSpread(n, b), pa/pb, mb0(ma.maxRSS), mb0(mb.maxRSS), float64(ma.maxRSS)/float64(mb.maxRSS), goal)
			fmt.Fprintf(os.Stderr, "  %d pages, %s: twofold %s, Hugo %s\n", n, target, walls(a), walls(b))
		}
	}
	return nil
}

func mb0(b int64) float64 { return float64(b) / 1e6 }

// rateSpread is the lowest and the highest pages/s of a set of runs.
func rateSpread(pages int, rs []result) string {
	lo, hi := rs[0].wall, rs[0].wall
	for _, r := range rs {
		lo, hi = min(lo, r.wall), max(hi, r.wall)
	}
	return fmt.Sprintf("%.0f–%.0f", float64(pages)/hi.Seconds(), float64(pages)/lo.Seconds())
}

// measure runs one build into out, a folder that does not exist yet, and returns its wall time and peak memory.
// Outputs are removed only after all runs of a size: deleting a tree makes the file system busy for a while
// afterwards, which would land on whichever build came next. The page cache is flushed before each run, so no
// build pays for the previous one's writeback.
func measure(out, bin string, args ...string) (result, error) {
	if err := os.MkdirAll(filepath.Dir(out), 0o755); err != nil {
		return result{}, err
	}
	syscall.Sync()
	time.Sleep(time.Second)
	cmd := exec.Command(bin, args...)
	cmd.Stderr = os.Stderr
	start := time.Now()
	if err := cmd.Run(); err != nil {
		return result{}, fmt.Errorf("%s: %w", bin, err)
	}
	wall := time.Since(start)
	ru, _ := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	var rss int64
	if ru != nil {
		rss = ru.Maxrss * 1024 // kilobytes on Linux
	}
	return result{wall: wall, maxRSS: rss}, nil
}

func walls(rs []result) string {
	var s []string
	for _, r := range rs {
		s = append(s, r.wall.Round(10*time.Millisecond).String())
	}
	return strings.Join(s, " ")
}

func median(rs []result) result {
	walls := make([]time.Duration, len(rs))
	rss := make([]int64, len(rs))
	for i, r := range rs {
		walls[i], rss[i] = r.wall, r.maxRSS
	}
	slices.Sort(walls)
	slices.Sort(rss)
	return result{wall: walls[len(walls)/2], maxRSS: rss[len(rss)/2]}
}

// writeSites writes the same n pages as a twofold site and as a Hugo site with a minimal layout.
func writeSites(dir string, n int) error {
	if err := os.RemoveAll(dir); err != nil {
		return err
	}
	tw, hg := filepath.Join(dir, "twofold"), filepath.Join(dir, "hugo")
	ids := make([]string, n)
	for i := range ids {
		ids[i] = fmt.Sprintf("p%05d", i+1)
	}
	ids[0] = "index"

	var yaml strings.Builder
	yaml.WriteString("title: Synthetic\nbaseURL: https://bench.example\nowner:\n  name: Bench Owner\n  tagline: A synthetic site.\n  bio: Generated for the build benchmark.\npages:\n")
	for _, id := range ids {
		yaml.WriteString("  - " + id + "\n")
	}
	yaml.WriteString("nav:\n  - {title: Home, page: index}\n  - {title: First, page: p00002}\n")
	files := map[string]string{
		"twofold/site.yaml":                 yaml.String(),
		"twofold/openapi.json":              `{"openapi":"3.1.0","info":{"title":"bench","version":"1.1.0"},"paths":{}}`,
		"twofold/static/style.css":          "body { font: 16px/1.5 serif; }\n",
		"twofold/static/favicon.svg":        `<svg xmlns="http://www.w3.org/2000/svg"/>`,
		"twofold/collusion/SKILL.md":        "---\nname: bench\ndescription: none\n---\n",
		"hugo/config.toml":                  "baseURL = 'https://bench.example/'\ntitle = 'Synthetic'\ndisableKinds = ['taxonomy', 'term', 'RSS']\n",
		"hugo/layouts/_default/baseof.html": hugoBase,
		"hugo/layouts/_default/single.html": `{{ define "main" }}<article><h1>{{ .Title }}</h1>{{ .Content }}</article>{{ end }}`,
		"hugo/layouts/_default/list.html":   `{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}`,
		"hugo/layouts/index.html":           `{{ define "main" }}<h1>{{ .Title }}</h1>{{ .Content }}{{ end }}`,
	}
	for name, data := range files {
		if err := writeFile(filepath.Join(dir, name), []byte(data)); err != nil {
			return err
		}
	}
	for i, id := range ids {
		page := synthPage(i, ids)
		if err := writeFile(filepath.Join(tw, "pages", id+".md"), page); err != nil {
			return err
		}
		hugoName := id + ".md"
		if id == "index" {
			hugoName = "_index.md"
		}
		if err := writeFile(filepath.Join(hg, "content", hugoName), page); err != nil {
			return err
		}
	}
	return nil
}

const hugoBase = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>{{ .Title }}</title>
<meta name="description" content="{{ .Description }}"><link rel="canonical" href="{{ .Permalink }}"></head>
<body><header><nav><a href="/">Home</a></nav></header><main>{{ block "main" . }}{{ end }}</main><footer>Synthetic</footer></body></html>
`

func writeFile(p string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		return err
	}
	return os.WriteFile(p, data, 0o644)
}

var words = strings.Fields(`the a of and to in is that it for on with as was by this be are from at or an have not
but which they their one all were we when there been can more if will would what about so no out up into them some
could time only other new these than then now its also two first any may after most over such where through back
years much before good should very because each well those people same way even state page site agent build note
board model render static markdown mirror server request answer challenge limit thread reply handle essay project`)

// synthPage writes a page of about 800 words: front matter, headings, paragraphs, a list, links and a code block.
func synthPage(i int, ids []string) []byte {
	r := rand.New(rand.NewPCG(uint64(i), 42))
	sentence := func(n int) string {
		w := make([]string, n)
		for j := range w {
			w[j] = words[r.IntN(len(words))]
		}
		s := strings.Join(w, " ")
		return strings.ToUpper(s[:1]) + s[1:] + "."
	}
	link := func() string {
		if r.IntN(3) == 0 {
			return fmt.Sprintf("[an outside source](https://example.org/%d)", r.IntN(1000))
		}
		id := ids[r.IntN(len(ids))]
		if id == "index" {
			return "[the home page](/)"
		}
		return fmt.Sprintf("[%s](/%s/)", id, id)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "---\ntitle: %q\ndescription: %q\nlastModified: 2026-%02d-%02dT10:00:00Z\n---\n\n",
		"Page "+ids[i]+": "+strings.TrimSuffix(sentence(4), "."), sentence(14), 1+i%12, 1+i%28)
	for section := range 5 {
		fmt.Fprintf(&b, "## %s\n\n", strings.TrimSuffix(sentence(3+section%3), "."))
		for range 2 {
			for range 5 {
				b.WriteString(sentence(10+r.IntN(6)) + " ")
			}
			b.WriteString("See " + link() + ".\n\n")
		}
		switch section {
		case 1:
			for k := range 5 {
				fmt.Fprintf(&b, "- %s %s\n", sentence(6), map[bool]string{true: link(), false: ""}[k%2 == 0])
			}
			b.WriteString("\n")
		case 3:
			b.WriteString("```go\nfunc handle(w http.ResponseWriter, r *http.Request) {\n\tfmt.Fprintln(w, \"hello\")\n}\n```\n\n")
		case 4:
			fmt.Fprintf(&b, "### %s\n\n1. %s\n2. %s\n3. %s\n\n", strings.TrimSuffix(sentence(2), "."), sentence(8), sentence(8), sentence(8))
		}
	}
	return []byte(b.String())
}
