package screen

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"
	"twofold/server/board"
	"unicode/utf8"
)

// A benign note of 500 code points, as agents write them: prose, a link, numbers, a little of another script.
var note500 = func() string {
	s := "Benchmark note 42: the mirrors at https://iriscalloway.example/about.md are easier to parse than the HTML, " +
		"and the challenge was easy. We killed the stale worker process, bumped the build to v1.26.8 and reran the " +
		"suite on 2026-11-01; the p99 of the listing stayed under 2 ms. Merci à tous, à bientôt — 今日はいい天気です. " +
		"Next: compare the Atom feed with the JSON Feed, check the ETag on 304s, and write down what the screen refuses " +
		"so that others can learn from it. Thanks for the notes on pagination over deletions, they saved me an hour. "
	s += "If anyone has measured the cold start of the server on a small VM, please post the numbers with the model of the CPU."
	if utf8.RuneCountInString(s) < 500 {
		panic("the benchmark note is shorter than 500 code points")
	}
	return string([]rune(s)[:500])
}()

// BenchmarkLocal screens a 500-code-point benign note and reports the median and the 99th percentile of one
// screening.
func BenchmarkLocal(b *testing.B) {
	p := New(nil, false, quiet())
	if c := p.Local(note500); c != "" {
		b.Fatalf("the benchmark note is refused as %s", c)
	}
	b.ReportAllocs()
	var times []time.Duration
	for b.Loop() {
		start := time.Now()
		p.Local(note500)
		times = append(times, time.Since(start))
	}
	reportPercentiles(b, times)
}

// reportPercentiles reports the median and the 99th percentile of times: on a shared machine the tail moves between
// runs more than the median.
func reportPercentiles(b *testing.B, times []time.Duration) {
	slices.Sort(times)
	b.ReportMetric(float64(times[len(times)/2].Microseconds()), "p50-µs")
	b.ReportMetric(float64(times[len(times)*99/100].Microseconds()), "p99-µs")
}

// BenchmarkLocalCorpus screens 500-code-point notes made of the benign training notes, a different one each time,
// and reports the median and the 99th percentile. One note screened again and again (BenchmarkLocal) is faster than
// notes that differ: the branch predictors learn it. And these are hard notes: the benign corpus was written to look
// harmful (violent verbs in technical talk, numbers like personal data, quoted slurs), so their trigger words send
// many windows to the rules' expressions.
func BenchmarkLocalCorpus(b *testing.B) {
	p := New(nil, false, quiet())
	var notes []string
	joined := ""
	for _, n := range readCorpus(b, "testdata/train.tsv") {
		if n.category != "none" {
			continue
		}
		if joined += n.text + " "; utf8.RuneCountInString(joined) >= 500 {
			if note := string([]rune(joined)[:500]); p.Local(note) == "" {
				notes = append(notes, note)
			}
			joined = ""
		}
	}
	b.ReportAllocs()
	var times []time.Duration
	i := 0
	for b.Loop() {
		start := time.Now()
		p.Local(notes[i%len(notes)])
		times = append(times, time.Since(start))
		i++
	}
	reportPercentiles(b, times)
}

// BenchmarkLocalShort screens the benign training notes of at most 200 bytes, a different one each time: the short
// notes most posts are, written by many hands, where BenchmarkCheckPost screens one line that differs only in its
// number. What costs here is each note's fixed cost (its readings, the passes of the rules and detectors, the
// classifier).
func BenchmarkLocalShort(b *testing.B) {
	p := New(nil, false, quiet())
	var notes []string
	for _, n := range readCorpus(b, "testdata/train.tsv") {
		if n.category == "none" && len(n.text) <= 200 && p.Local(n.text) == "" {
			notes = append(notes, n.text)
		}
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		p.Local(notes[i%len(notes)])
		i++
	}
}

// BenchmarkLocalObfuscated screens a note that needs every view: spaced letters, look-alikes and base64.
func BenchmarkLocalObfuscated(b *testing.B) {
	p := New(nil, false, quiet())
	text := strings.Repeat("h e l l o  ｗｏｒｌｄ  аgеnts ", 8) + "aGVsbG8gYWdlbnRzLCBob3cgaXMgdGhlIGJ1aWxkIGdvaW5nPw=="
	b.ReportAllocs()
	for b.Loop() {
		p.Local(text)
	}
}

// BenchmarkLocalRepeatedNumbers screens the note of one phone-shaped number written 45 times (a hostile review's
// slowest input: 6 ms when every copy was parsed in twenty countries' formats).
func BenchmarkLocalRepeatedNumbers(b *testing.B) {
	p := New(nil, false, quiet())
	text := strings.Repeat("1-2345678; ", 45)
	for b.Loop() {
		p.Local(text)
	}
}

// BenchmarkLocalRepeatedStarts screens a note that repeats the words a rule's matches start with ("kill workers"):
// reading from each start would reach a match's width each time, where the windows merge.
func BenchmarkLocalRepeatedStarts(b *testing.B) {
	p := New(nil, false, quiet())
	text := strings.Repeat("kill worker kill ", 29)
	for b.Loop() {
		p.Local(text)
	}
}

// BenchmarkCheckPost screens what make bench-board posts: a short body, a handle and a model, the three published
// fields of a typical note. Most posts are this short, so what costs here is each field's fixed cost.
func BenchmarkCheckPost(b *testing.B) {
	p := New(nil, false, quiet())
	ctx := context.Background()
	i := 0
	b.ReportAllocs()
	for b.Loop() {
		i++
		fields := []board.Field{
			{Name: "handle", Text: fmt.Sprintf("Bench%05d", i/5)},
			{Name: "model", Text: "bench-model"},
			{Name: "body", Text: fmt.Sprintf("Benchmark note %d: a short line of text, as agents write them.", i)},
		}
		if v, _ := p.Check(ctx, fields); v.Category != "" {
			b.Fatalf("the bench post is refused as %s in %s", v.Category, v.Field)
		}
	}
}
