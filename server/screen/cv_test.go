package screen

import (
	"flag"
	"fmt"
	"math"
	"math/rand/v2"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"
)

var cvFlag = flag.String("cv", "", "cross-validate classifier variants on train.tsv alone (comma-separated names, or all)")

// featureOpts are the feature families of an experimental classifier.
type featureOpts struct {
	bits             int
	charMin, charMax int
	wordTri          bool
	joinedChars      bool
	nativeTri        bool
	wordsPlain       bool // words of the squeezed (non-leet) reading too
}

func expFeatures(v views, o featureOpts) []uint32 {
	fs := make([]uint32, 0, 512)
	mask := uint32(1)<<o.bits - 1
	add := func(kind byte, parts ...string) {
		h := uint32(2166136261)
		h = (h ^ uint32(kind)) * 16777619
		for i, p := range parts {
			if i > 0 {
				h = (h ^ ' ') * 16777619
			}
			for j := 0; j < len(p); j++ {
				h = (h ^ uint32(p[j])) * 16777619
			}
		}
		fs = append(fs, h&mask)
	}
	for i, w := range v.leet {
		add('w', w)
		if i > 0 {
			add('b', v.leet[i-1], w)
		}
		if o.wordTri && i > 1 {
			add('t', v.leet[i-2], v.leet[i-1], w)
		}
	}
	if o.wordsPlain {
		for _, w := range v.words {
			add('W', w)
		}
	}
	for _, w := range v.joined {
		add('j', w)
	}
	line := " " + strings.Join(v.leet, " ") + " "
	for n := o.charMin; n <= o.charMax; n++ {
		for i := 0; i+n <= len(line); i++ {
			add(byte('0'+n), line[i:i+n])
		}
	}
	if o.joinedChars {
		jl := " " + strings.Join(v.joined, " ") + " "
		if jl != line {
			for n := 4; n <= 5; n++ {
				for i := 0; i+n <= len(jl); i++ {
					add(byte('A'+n), jl[i:i+n])
				}
			}
		}
	}
	var prev, prev2 rune
	for _, r := range v.native {
		if r >= 0x370 && unicode.IsLetter(r) {
			add('u', string(r))
			if prev != 0 {
				add('p', string(prev), string(r))
				if o.nativeTri && prev2 != 0 {
					add('q', string(prev2), string(prev), string(r))
				}
			}
			prev2, prev = prev, r
		} else {
			prev, prev2 = 0, 0
		}
	}
	slices.Sort(fs)
	return slices.Compact(fs)
}

// fitN is fitWith over n feature buckets, in float32.
func fitN(data []example, n int, cfg training) ([][]float32, []float64) {
	k := len(classes)
	w := make([][]float32, n)
	g2 := make([][]float32, n)
	for f := range w {
		w[f] = make([]float32, k)
		g2[f] = make([]float32, k)
	}
	bias := make([]float64, k)
	for _, ex := range data {
		bias[ex.class]++
	}
	for c := range bias {
		bias[c] = math.Log((bias[c] + 1) / float64(len(data)+k))
	}
	order := make([]int, len(data))
	for i := range order {
		order[i] = i
	}
	rng := rand.New(rand.NewPCG(2026, 11))
	z := make([]float64, k)
	for range cfg.epochs {
		rng.Shuffle(len(order), func(i, j int) { order[i], order[j] = order[j], order[i] })
		for _, i := range order {
			ex := data[i]
			norm := 1 / math.Sqrt(float64(max(1, len(ex.features))))
			copy(z, bias)
			for _, f := range ex.features {
				for c := range k {
					z[c] += float64(w[f][c]) * norm
				}
			}
			p := softmax64(z)
			weight := 1.0
			if ex.class == 0 {
				weight = cfg.benign
			}
			for c := range k {
				grad := p[c]
				if c == ex.class {
					grad -= 1
				}
				grad *= weight
				if math.Abs(grad) < 1e-5 {
					continue
				}
				for _, f := range ex.features {
					gf := grad*norm + cfg.l2*float64(w[f][c])
					g2[f][c] += float32(gf * gf)
					w[f][c] -= float32(cfg.rate * gf / (math.Sqrt(float64(g2[f][c])) + 1e-8))
				}
			}
		}
	}
	return w, bias
}

func predictN(w [][]float32, bias []float64, fs []uint32) []float64 {
	z := slices.Clone(bias)
	norm := 1 / math.Sqrt(float64(max(1, len(fs))))
	for _, f := range fs {
		for c := range z {
			z[c] += float64(w[f][c]) * norm
		}
	}
	return softmax64(z)
}

type cvVariant struct {
	name string
	opts featureOpts
	cfg  training
}

var baseOpts = featureOpts{bits: 16, charMin: 3, charMax: 5}

var cvVariants = []cvVariant{
	{"base", baseOpts, defaultTraining},
	{"bits18", featureOpts{bits: 18, charMin: 3, charMax: 5}, defaultTraining},
	{"bits20", featureOpts{bits: 20, charMin: 3, charMax: 5}, defaultTraining},
	{"bits18-c2-6", featureOpts{bits: 18, charMin: 2, charMax: 6}, defaultTraining},
	{"bits18-tri-joined", featureOpts{bits: 18, charMin: 3, charMax: 5, wordTri: true, joinedChars: true, nativeTri: true}, defaultTraining},
	{"bits18-e50", featureOpts{bits: 18, charMin: 3, charMax: 5}, training{epochs: 50, rate: 0.4, l2: 1e-6, benign: 1.5}},
	{"bits18-l2e7", featureOpts{bits: 18, charMin: 3, charMax: 5}, training{epochs: 30, rate: 0.4, l2: 1e-7, benign: 1.5}},
	{"bits18-b1", featureOpts{bits: 18, charMin: 3, charMax: 5}, training{epochs: 30, rate: 0.4, l2: 1e-6, benign: 1}},
	{"bits18-r02", featureOpts{bits: 18, charMin: 3, charMax: 5}, training{epochs: 30, rate: 0.2, l2: 1e-6, benign: 1.5}},
	{"bits19-r02", featureOpts{bits: 19, charMin: 3, charMax: 5}, training{epochs: 30, rate: 0.2, l2: 1e-6, benign: 1.5}},
	{"bits20-r02", featureOpts{bits: 20, charMin: 3, charMax: 5}, training{epochs: 30, rate: 0.2, l2: 1e-6, benign: 1.5}},
	{"bits20-r02-e20", featureOpts{bits: 20, charMin: 3, charMax: 5}, training{epochs: 20, rate: 0.2, l2: 1e-6, benign: 1.5}},
}

// Tried and dropped: scoring each sentence of a note as well and refusing on the least benign (against harm buried
// in a friendly note) lost seven points of recall at 1% false rejections: short sentences look harmful too often.

// TestCrossValidate compares classifier variants by five-fold cross-validation on train.tsv alone (heldout.tsv is
// never read): for each, the recall of rules and model together at a budget of false rejections.
func TestCrossValidate(t *testing.T) {
	if *cvFlag == "" {
		t.Skip("run with -cv=all or -cv=name,name")
	}
	notes := readCorpus(t, "testdata/train.tsv")
	p := New(nil, false, quiet())
	p.model = nil
	ruled := make([]bool, len(notes))
	ruledCat := make([]string, len(notes))
	vs := make([]views, len(notes))
	classOfNote := make([]int, len(notes))
	for i, n := range notes {
		ruledCat[i] = p.Local(n.text)
		ruled[i] = ruledCat[i] != ""
		vs[i] = newViews(n.text)
		classOfNote[i] = slices.Index(classes, classOf(n.category))
	}
	rb, rh := 0, 0
	for i := range notes {
		if ruled[i] {
			if classOfNote[i] == 0 {
				rb++
			} else {
				rh++
			}
		}
	}
	t.Logf("rules alone on train: %d benign refused, %d harmful caught", rb, rh)
	for _, vr := range cvVariants {
		if *cvFlag != "all" && !slices.Contains(strings.Split(*cvFlag, ","), vr.name) {
			continue
		}
		data := make([]example, len(notes))
		for i := range notes {
			data[i] = example{expFeatures(vs[i], vr.opts), classOfNote[i], len(vs[i].words) <= shortWords}
		}
		p0 := make([]float64, len(notes))
		var wg sync.WaitGroup
		sem := make(chan struct{}, 2)
		for fold := range 5 {
			wg.Add(1)
			go func() {
				defer wg.Done()
				sem <- struct{}{}
				defer func() { <-sem }()
				var in []example
				for i, ex := range data {
					if i%5 != fold {
						in = append(in, ex)
					}
				}
				w, b := fitN(in, 1<<vr.opts.bits, vr.cfg)
				for i := range data {
					if i%5 == fold {
						p0[i] = predictN(w, b, data[i].features)[0]
					}
				}
			}()
		}
		wg.Wait()
		t.Logf("%-20s %s", vr.name, cvReport(p0, ruled, classOfNote))
		if os.Getenv("CV_VETO") != "" {
			for _, tv := range []float64{0.5, 0.7, 0.8, 0.9, 0.95, 0.98, 0.99} {
				vb, vh := map[string]int{}, map[string]int{}
				for i := range notes {
					if ruled[i] && p0[i] > tv {
						if classOfNote[i] == 0 {
							vb[ruledCat[i]]++
						} else {
							vh[ruledCat[i]]++
						}
					}
				}
				t.Logf("  veto p0>%.2f: benign freed %v; harmful lost %v", tv, vb, vh)
			}
		}
	}
}

// cvReport gives the recall of rules and model together where their false rejections reach 1%, 1.5% and 2%, and
// of the model alone at 1%.
func cvReport(p0 []float64, ruled []bool, class []int) string {
	type pt struct {
		p      float64
		benign bool
	}
	var benign, harmful int
	var pts []pt
	rb, rh := 0, 0
	for i := range p0 {
		if class[i] == 0 {
			benign++
		} else {
			harmful++
		}
		if ruled[i] {
			if class[i] == 0 {
				rb++
			} else {
				rh++
			}
			continue
		}
		pts = append(pts, pt{p0[i], class[i] == 0})
	}
	slices.SortFunc(pts, func(a, b pt) int {
		if a.p < b.p {
			return -1
		}
		if a.p > b.p {
			return 1
		}
		return 0
	})
	var out []string
	for _, budget := range []float64{0.01, 0.015, 0.02} {
		fb, fh := rb, rh
		for _, x := range pts {
			if x.benign {
				if float64(fb+1) > budget*float64(benign) {
					break
				}
				fb++
			} else {
				fh++
			}
		}
		out = append(out, fmt.Sprintf("@%.1f%%: %.1f%%", 100*budget, 100*float64(fh)/float64(harmful)))
	}
	// model alone
	var all []pt
	for i := range p0 {
		all = append(all, pt{p0[i], class[i] == 0})
	}
	slices.SortFunc(all, func(a, b pt) int {
		if a.p < b.p {
			return -1
		}
		if a.p > b.p {
			return 1
		}
		return 0
	})
	fb, fh := 0, 0
	for _, x := range all {
		if x.benign {
			if float64(fb+1) > 0.01*float64(benign) {
				break
			}
			fb++
		} else {
			fh++
		}
	}
	out = append(out, fmt.Sprintf("model alone @1%%: %.1f%%", 100*float64(fh)/float64(harmful)))
	return strings.Join(out, "  ")
}
