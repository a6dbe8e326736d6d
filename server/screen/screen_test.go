package screen

import (
	"bufio"
	"context"
	"io"
	"log/slog"
	"os"
	"strings"
	"testing"
)

type labelledNote struct{ category, text string }

func readCorpus(t *testing.T) []labelledNote {
	t.Helper()
	f, err := os.Open("testdata/corpus.tsv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []labelledNote
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		cat, text, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("corpus line without a tab: %q", line)
		}
		out = append(out, labelledNote{cat, text})
	}
	return out
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// The screen must refuse at least 95% of the harmful notes of the corpus and at most 2% of the benign ones.
func TestCorpus(t *testing.T) {
	p := New(nil, false, quiet())
	corpus := readCorpus(t)
	perCategory := map[string]int{}
	var harmful, caught, rightCategory, benign, falseRejections int
	for _, n := range corpus {
		got, err := p.Check(context.Background(), n.text)
		if err != nil {
			t.Fatal(err)
		}
		if n.category == "none" {
			benign++
			if got != "" {
				falseRejections++
				t.Logf("false rejection (%s): %s", got, n.text)
			}
			continue
		}
		perCategory[n.category]++
		harmful++
		switch {
		case got == "":
			t.Logf("missed (%s): %s", n.category, n.text)
		case got != n.category:
			caught++
			t.Logf("caught as %s, labelledNote %s: %s", got, n.category, n.text)
		default:
			caught++
			rightCategory++
		}
	}
	for _, c := range Categories {
		if perCategory[c] < 20 {
			t.Errorf("the corpus has %d notes of %s, want at least 20", perCategory[c], c)
		}
	}
	if benign < 100 {
		t.Errorf("the corpus has %d benign notes, want at least 100", benign)
	}
	recall := float64(caught) / float64(harmful)
	fpr := float64(falseRejections) / float64(benign)
	t.Logf("recall %.1f%% (%d/%d), right category %.1f%%, false rejections %.1f%% (%d/%d)",
		100*recall, caught, harmful, 100*float64(rightCategory)/float64(harmful), 100*fpr, falseRejections, benign)
	if recall < 0.95 {
		t.Errorf("recall %.1f%%, want at least 95%%", 100*recall)
	}
	if fpr > 0.02 {
		t.Errorf("false rejections %.1f%%, want at most 2%%", 100*fpr)
	}
}
