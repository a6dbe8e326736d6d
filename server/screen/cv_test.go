package screen

import (
	"flag"
	"fmt"
	"slices"
	"strings"
	"testing"
)

var cvFlag = flag.Bool("cv", false, "cross-validate the classifier on train.tsv alone and print what it would catch")

// pads are friendly sentences put before and after a harmful note, as a stranger pads one to dilute it. They are
// in no corpus file, so the padded figure measures what training never saw.
var pads = []string{
	"PR merged, CI is green, thanks for the review.",
	"Release notes for v2.3: faster startup, fewer allocations, and the flame graphs are on the wiki.",
	"Lovely weather in Lisbon today; the mirrors load fast and the challenge was easy. Have a good weekend, everyone!",
}

// TestCrossValidate measures choices about the classifier (its features, its training, its training set) without
// reading heldout.tsv: five-fold cross-validation on train.tsv, each fold's model trained as make screen-model
// trains (trainingSet, fit), the rules as they are. It prints the recall of rules and model together where their
// false rejections reach 1%, 1.5% and 2%, and at the 1% point the recall on harmful notes padded with friendly
// sentences. Decisions recorded in the code were made on these figures:
//
//   - 2^19 hash buckets: 2^16 lost six points of recall at 1% to collisions; 2^20 gained half a point more.
//   - signed hashing (a bit of each feature's hash is its sign, so features that share a bucket cancel out on
//     average): 85.3% to 85.6% at 1%, 88.7% to 89.5% at 1.5%, padded notes 46.8% to 47.1% (session 8).
//   - AdaGrad rate 0.2 rather than 0.4: a point more at 1.5% and 2%.
//   - a benign note's loss weighted as a harmful one's, not 1.5 times (session 10, with the thresholds counting
//     mild swearing as the model's): 83.9% to 84.1% at 1%, 88.0% to 88.1% at 1.5%, 89.8% to 90.0% at 2%, padded
//     notes 46.3% to 46.8%.
//   - the padded copies of harmful notes in trainingSet: 76% to 80% at 1%, and padded notes 33% to 40%.
//   - Tried and dropped: word trigrams, character 2- and 6-grams, n-grams of the letter-joined reading (a point or
//     two worse); refusing on the least benign sentence or ten-word window of a note (seven points worse at 1%:
//     short stretches of benign notes look harmful too often), and (session 9) its sentences read as well as the
//     whole note, with a share of the budget each (at 1%, notes of ten words or more: 84.4% to 84.1%, while notes
//     of 200 characters or more went 60.5% to 65.9%: the padded notes gained what the others lost); letting a sure model overrule a phrase rule (it
//     freed benign discussion, but a hostile review padded a slur with one friendly sentence and got it published).
func TestCrossValidate(t *testing.T) {
	if !*cvFlag {
		t.Skip("run with -cv (minutes)")
	}
	notes := readCorpus(t, "testdata/train.tsv")
	p := New(nil, false, quiet())
	p.model = nil
	ruled := func(text string) bool { // as thresholds counts them: one mild swear word is the model's to decide
		c := p.Local(text)
		return c != "" && (c != Profanity || !p.mildInterjection(newViews(text)))
	}

	type scored struct {
		benign, ruled bool
		p0            float64
		padded        []float64 // harmful notes: p0 of each padded copy
		paddedRuled   []bool
	}
	out := make([]scored, len(notes))
	models := foldModels(notes)
	for i, n := range notes {
		m := models[i%5]
		p0 := func(text string) float64 { return float64(m.probabilities(featuresOf(newViews(text), nil))[0]) }
		s := scored{benign: n.category == "none", ruled: ruled(n.text), p0: p0(n.text)}
		if !s.benign {
			for _, pad := range pads {
				text := pad + " " + n.text + " " + pad
				s.padded, s.paddedRuled = append(s.padded, p0(text)), append(s.paddedRuled, ruled(text))
			}
		}
		out[i] = s
	}

	var benign, harmful int
	var free []float64 // p0 of the benign notes the rules let through
	for _, s := range out {
		if s.benign {
			benign++
			if !s.ruled {
				free = append(free, s.p0)
			}
		} else {
			harmful++
		}
	}
	slices.Sort(free)
	var report []string
	for _, budget := range []float64{0.01, 0.015, 0.02} {
		// The highest threshold that keeps the rules' and the model's false rejections within the budget.
		k := int(budget*float64(benign)) - (benign - len(free))
		t0 := 0.0
		if k > 0 && k < len(free) {
			t0 = free[k]
		}
		caught, padded, paddedCaught := 0, 0, 0
		for _, s := range out {
			if s.benign {
				continue
			}
			if s.ruled || s.p0 < t0 {
				caught++
			}
			for j := range s.padded {
				padded++
				if s.paddedRuled[j] || s.padded[j] < t0 {
					paddedCaught++
				}
			}
		}
		r := fmt.Sprintf("@%.1f%%: %.1f%%", 100*budget, 100*float64(caught)/float64(harmful))
		if budget == 0.01 {
			r += fmt.Sprintf(" (padded %.1f%%)", 100*float64(paddedCaught)/float64(max(1, padded)))
		}
		report = append(report, r)
	}
	t.Logf("rules and model, recall where false rejections reach: %s", strings.Join(report, "  "))
}
