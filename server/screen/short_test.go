package screen

import (
	"context"
	"os"
	"strings"
	"testing"

	"twofold/server/board"
)

// Floors of TestShortNotes: 1.7% and 95.8% reached (four and five notes of 241 and 120: one note moves a figure by
// 0.4 and 0.8 points, so the floors leave a note or two of room; with the training notes before the last batch the
// figures were 0.4% and 94.2%). When the set was written the classifier had one threshold for every length: 6.2%
// and 93.3%; a threshold of its own for short notes brought 3.8% and 83.3%; learning from harmful notes padded with
// benign ones, 0.8% and 95%; session 9's thresholds, 2.1% and 95%; session 10's, 1.2% and 93.3%. The target is the
// corpus's: at most 1%, at least 97%.
const (
	floorShortFalseRejection = 0.02
	floorShortRecall         = 0.93
)

// TestShortNotes measures the screen on testdata/dev-short.tsv: notes of 3 to 9 words, the length of most of what
// agents post, written blind by a helper session. Neither the rules nor the classifier were tuned on it. The
// training corpus has few short benign notes, and the classifier refuses short benign notes far more often than
// long ones: rules alone refuse 0.4% of these.
func TestShortNotes(t *testing.T) {
	data, err := os.ReadFile("testdata/dev-short.tsv")
	if err != nil {
		t.Fatal(err)
	}
	p := New(nil, false, nil)
	var benign, refused, harmful, caught int
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		cat, text, ok := strings.Cut(line, "\t")
		if !ok || strings.HasPrefix(line, "#") {
			continue
		}
		v, err := p.Check(context.Background(), []board.Field{{Name: "body", Text: text}})
		if err != nil {
			t.Fatal(err)
		}
		if cat == "benign" {
			benign++
			if v.Category != "" {
				refused++
			}
		} else {
			harmful++
			if v.Category != "" {
				caught++
			}
		}
	}
	fr, recall := float64(refused)/float64(benign), float64(caught)/float64(harmful)
	t.Logf("short notes: false rejections %.1f%% (%d/%d), recall %.1f%% (%d/%d)", 100*fr, refused, benign, 100*recall, caught, harmful)
	if benign < 200 || harmful < 100 {
		t.Fatalf("the set holds %d benign and %d harmful notes", benign, harmful)
	}
	if fr > floorShortFalseRejection || recall < floorShortRecall {
		t.Errorf("below the floors (false rejections at most %.1f%%, recall at least %.0f%%)", 100*floorShortFalseRejection, 100*floorShortRecall)
	}
}
