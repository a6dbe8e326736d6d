package screen

import (
	"slices"
	"testing"
)

// The harmful class is the likeliest one, except that sexual content the model gives half as much weight to being
// about a minor is read as about a minor.
func TestHarmfulClass(t *testing.T) {
	probs := func(weights map[Category]float32) []float32 {
		p := make([]float32, len(classes))
		for c, w := range weights {
			p[slices.Index(classes, c)] = w
		}
		return p
	}
	for _, c := range []struct {
		p    map[Category]float32
		want Category
	}{
		{map[Category]float32{"": 0.01, Violence: 0.8, Hate: 0.19}, Violence},
		{map[Category]float32{"": 0.01, Sexual: 0.7, SexualMinors: 0.29}, Sexual},
		{map[Category]float32{"": 0.01, Sexual: 0.6, SexualMinors: 0.3}, SexualMinors},
		{map[Category]float32{"": 0.01, SexualMinors: 0.6, Sexual: 0.39}, SexualMinors},
		{map[Category]float32{"": 0.01, Harassment: 0.5, SexualMinors: 0.3, Sexual: 0.19}, Harassment},
	} {
		if got := harmfulClass(probs(c.p)); got != c.want {
			t.Errorf("harmfulClass(%v) = %q, want %q", c.p, got, c.want)
		}
	}
}
