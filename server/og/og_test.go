package og

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"strings"
	"sync"
	"testing"
	"time"

	"twofold/server/errcode"
)

func decode(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if r := img.Bounds(); r.Dx() != Width || r.Dy() != Height {
		t.Fatalf("size %v", r)
	}
	return img
}

func service() *Service {
	return &Service{Owner: "Iris Calloway", Host: "iriscalloway.example", Title: "Iris Calloway", Subtitle: "Builds tools for agents"}
}

func render(t *testing.T, s *Service, title, subtitle, typ string) image.Image {
	t.Helper()
	p, err := Parse(title, subtitle, typ)
	if err != nil {
		t.Fatal(err)
	}
	img, err := s.Image(p)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, img.PNG)
}

func TestEachTypeLooksDifferent(t *testing.T) {
	s := service()
	seen := map[string]string{}
	for _, typ := range Types {
		img := render(t, s, "The same title", "The same subtitle", typ)
		var b bytes.Buffer
		png.Encode(&b, img)
		key := b.String()
		if other, ok := seen[key]; ok {
			t.Errorf("%s looks like %s", typ, other)
		}
		seen[key] = typ
	}
}

// ink reports whether any pixel in r differs from the background colour.
func ink(img image.Image, r image.Rectangle, bg color.Color) (image.Point, bool) {
	br, bgG, bb, _ := bg.RGBA()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			cr, cg, cb, _ := img.At(x, y).RGBA()
			if cr != br || cg != bgG || cb != bb {
				return image.Pt(x, y), true
			}
		}
	}
	return image.Point{}, false
}

// Long, unbroken and non-Latin titles stay inside the margins: nothing is drawn near the right and bottom edges
// (the ornaments keep to the top band and the left edge).
func TestLongAndNonLatinTextStaysInside(t *testing.T) {
	s := service()
	titles := []string{
		strings.Repeat("Wide words everywhere ", 6)[:120],
		strings.Repeat("W", 120),
		strings.Repeat("https://example.com/a/very/long/path", 4)[:120],
		strings.Repeat("日本語のタイトルはとても長いです。", 7)[:120*3/3],
		"Ωμέγα Привет мир Ελληνικά العربية עברית हिन्दी 😀🎉 " + strings.Repeat("ё", 40),
		"\u202eRTL override\u0000 and control\tcharacters",
	}
	subtitle := strings.Repeat("A long subtitle that keeps going, ", 6)[:200]
	for _, typ := range Types {
		for _, title := range titles {
			title = string([]rune(title)[:min(len([]rune(title)), MaxTitle)])
			img := render(t, s, title, subtitle, typ)
			bg := looks[typ].bg
			if p, found := ink(img, image.Rect(Width-margin/2, textTop, Width, Height), bg); found {
				t.Errorf("%s, %.20q: ink at %v near the right edge", typ, title, p)
			}
			left := 0
			if typ == "article" {
				left = 16 // the ornament
			}
			if p, found := ink(img, image.Rect(left, Height-margin/2, Width, Height), bg); found {
				t.Errorf("%s, %.20q: ink at %v near the bottom edge", typ, title, p)
			}
			if _, found := ink(img, image.Rect(textLeft, textTop, textRight, textBot), bg); !found {
				t.Errorf("%s, %.20q: no text drawn", typ, title)
			}
		}
	}
}

func TestParse(t *testing.T) {
	for _, c := range []struct {
		title, subtitle, typ string
		code                 errcode.Code
	}{
		{strings.Repeat("x", 121), "", "", errcode.TitleTooLong},
		{strings.Repeat("é", 121), "", "", errcode.TitleTooLong},
		{"", strings.Repeat("y", 201), "", errcode.SubtitleTooLong},
		{"", "", "poster", errcode.TypeInvalid},
		{"", "", "<script>", errcode.TypeInvalid},
	} {
		if _, err := Parse(c.title, c.subtitle, c.typ); !errcode.Is(err, c.code) {
			t.Errorf("Parse(%.10q, %.10q, %q) = %v; want %s", c.title, c.subtitle, c.typ, err, c.code)
		}
	}
	p, err := Parse("  A\ttitle \u200b with\u0007 space  ", "", "ARTICLE")
	if err != nil || p.Title != "A title with space" || p.Type != "article" {
		t.Errorf("%+v %v", p, err)
	}
	// 120 characters, whatever their bytes, are allowed.
	if _, err := Parse(strings.Repeat("日", 120), strings.Repeat("ü", 200), "speaking"); err != nil {
		t.Error(err)
	}
	// Normalised forms share a cache entry: NFD and NFC of the same text are one key.
	a, _ := Parse("Cafe\u0301", "", "")
	b, _ := Parse("Café", "", "")
	if a != b {
		t.Errorf("%q != %q", a.Title, b.Title)
	}
}

func TestCacheAndETag(t *testing.T) {
	p, _ := Parse("One", "", "")
	probe, err := service().Image(p)
	if err != nil {
		t.Fatal(err)
	}
	s := service()
	s.CacheBytes = int64(len(probe.PNG)) * 5 / 2 // room for two images of this size, not three
	a, err := s.Image(p)
	if err != nil || !strings.HasPrefix(a.ETag, `"`) || len(a.ETag) < 10 {
		t.Fatal(a.ETag, err)
	}
	b, _ := s.Image(p)
	if &a.PNG[0] != &b.PNG[0] {
		t.Error("the second request drew again")
	}
	for _, title := range []string{"Two", "Three"} {
		q, _ := Parse(title, "", "")
		s.Image(q)
	}
	if _, ok := s.cached(p); ok {
		t.Error("the cache grew past its bound")
	}
	c, _ := s.Image(p)
	if c.ETag != a.ETag || !bytes.Equal(c.PNG, a.PNG) {
		t.Error("the same parameters drew a different image")
	}
	// Concurrent requests for one new image all get it.
	var wg sync.WaitGroup
	q, _ := Parse("Concurrent", "", "speaking")
	for range 8 {
		wg.Go(func() {
			if img, err := s.Image(q); err != nil || len(img.PNG) == 0 {
				t.Error(err)
			}
		})
	}
	wg.Wait()
}

func TestDefaultsWhenNoTitle(t *testing.T) {
	s := service()
	empty, _ := Parse("", "", "")
	named, _ := Parse(s.Title, s.Subtitle, "")
	a, _ := s.Image(empty)
	b, _ := s.Image(named)
	if a.ETag != b.ETag {
		t.Error("an image without a title is not the owner's default")
	}
}

func BenchmarkRender(b *testing.B) {
	s := service()
	p, _ := Parse("Delegation debt: what you owe when agents do the work", "When you hand a task to an agent and stop understanding it, you borrow against your future self.", "article")
	var size int
	for b.Loop() {
		out, err := s.Render(p)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size), "bytes")
}

func FuzzParseRender(f *testing.F) {
	f.Add("Title", "Subtitle", "article")
	f.Add("日本語", "\u202e", "default")
	for _, tc := range scriptCases { // every script and its fallback fonts
		f.Add(tc.title, tc.subtitle, "article")
	}
	f.Add("Z\u0301\u0316\u0327\u0489\u0301\u0316", "🇯🇵1️⃣👍🏽", "speaking")
	f.Fuzz(func(t *testing.T, title, subtitle, typ string) {
		p, err := Parse(title, subtitle, typ)
		if err != nil {
			return
		}
		out, err := service().Render(p)
		if err != nil {
			t.Fatal(err)
		}
		if c, err := png.DecodeConfig(bytes.NewReader(out)); err != nil || c.Width != Width || c.Height != Height {
			t.Fatalf("%v %v", c, err)
		}
	})
}

func TestByQueryIsBounded(t *testing.T) {
	s := service()
	s.CacheBytes = 80 << 10 // the query index gets an eighth: 10 KB
	p, _ := Parse("Bounded", "", "")
	img, err := s.Image(p)
	if err != nil {
		t.Fatal(err)
	}
	for i := range 2000 {
		s.RememberQuery([]byte(fmt.Sprint("title=Bounded&pad=", strings.Repeat("x", 100), i)), p)
		if b := s.byQuery.Bytes(); b > 10<<10 {
			t.Fatalf("after %d queries the index holds %d bytes", i+1, b)
		}
	}
	last := fmt.Sprint("title=Bounded&pad=", strings.Repeat("x", 100), 1999)
	if got, ok := s.ByQuery([]byte(last)); !ok || got.ETag != img.ETag {
		t.Error("the newest query is not remembered")
	}
	if _, ok := s.ByQuery([]byte(fmt.Sprint("title=Bounded&pad=", strings.Repeat("x", 100), 0))); ok {
		t.Error("an old query survived the bound")
	}
}

// With Recompress, a cached image becomes smaller bytes of the same picture, under a new ETag.
func TestRecompress(t *testing.T) {
	s := service()
	s.Recompress = true
	p, _ := Parse("Recompressed", "Smaller bytes, the same pixels", "portfolio")
	first, err := s.Image(p)
	if err != nil {
		t.Fatal(err)
	}
	s.RememberQuery([]byte("q"), p)
	var later Image
	for range 500 {
		if later, _ = s.Image(p); later.ETag != first.ETag {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if later.ETag == first.ETag || len(later.PNG) >= len(first.PNG) {
		t.Fatalf("not recompressed: %d bytes, then %d", len(first.PNG), len(later.PNG))
	}
	a, b := decode(t, first.PNG), decode(t, later.PNG)
	for y := 0; y < Height; y += 3 {
		for x := 0; x < Width; x += 3 {
			if a.At(x, y) != b.At(x, y) {
				t.Fatalf("pixel %d,%d differs", x, y)
			}
		}
	}
	if q, _ := s.ByQuery([]byte("q")); q.ETag != later.ETag {
		t.Error("the query index still answers the first bytes")
	}
}
