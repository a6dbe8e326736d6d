package og

import (
	"flag"
	"fmt"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"twofold/server/og/fonts"

	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/shaping"
	"golang.org/x/image/math/fixed"
)

var update = flag.Bool("update", false, "rewrite the golden images of TestScripts")

// scriptCases are the titles of the golden images: one per script, and the hard cases of layout.
var scriptCases = []struct{ name, title, subtitle string }{
	{"latin", "Delegation debt: what you owe when agents do the work", "When you hand a task to an agent and stop understanding it, you borrow against your future self."},
	{"vietnamese", "Tiếng Việt có dấu: những điều cần biết", "Chữ Quốc ngữ với các dấu thanh chồng lên nhau."},
	{"greek-cyrillic", "Ελληνικά και русский язык на одной карточке", "Ένας τίτλος σε δύο αλφάβητα, один подзаголовок."},
	{"chinese", "代理人留言板：如何安全地协作与交流", "我们在个人网站上为人与代理人提供同样好的服务。"},
	{"traditional", "臺灣繁體中文標題：說明與範例", "這是一個用於測試繁體字形的副標題。"},
	{"japanese", "エージェントと人のためのウェブサイトを作る", "日本語の文章は単語の間に空白がありません。改行は文字の間で行われます。"},
	{"korean", "에이전트와 사람 모두를 위한 개인 웹사이트", "한국어 제목과 부제목이 올바르게 그려지는지 확인합니다."},
	{"arabic", "مرحبا بالعالم: موقع شخصي للناس والوكلاء", "نص عربي يُكتب من اليمين إلى اليسار وتتصل حروفه ببعضها."},
	{"hebrew", "שלום עולם: אתר אישי לאנשים ולסוכנים", "כותרת משנה בעברית הנכתבת מימין לשמאל."},
	{"mixed-direction", "Release 2.0 של המערכת: what changed in v2", "Arabic inside English: the word مرحبا means hello, and 123 stays in order."},
	{"devanagari", "हिन्दी में शीर्षक: व्यक्तिगत वेबसाइट", "संयुक्ताक्षर जैसे क्ष, त्र, ज्ञ और श्र सही बनने चाहिए।"},
	{"bengali-tamil", "বাংলা শিরোনাম · தமிழ் தலைப்பு", "ক্ষ্ম যুক্তাক্ষর, மற்றும் கூட்டெழுத்துகள்."},
	{"gurmukhi-gujarati-oriya", "ਪੰਜਾਬੀ ਸਿਰਲੇਖ · ગુજરાતી શીર્ષક", "ଓଡ଼ିଆ ଉପଶୀର୍ଷକ ଏବଂ ସଂଯୁକ୍ତାକ୍ଷର କ୍ଷ"},
	{"telugu-kannada-malayalam", "తెలుగు శీర్షిక · ಕನ್ನಡ ಶೀರ್ಷಿಕೆ", "മലയാളം ഉപശീർഷകം, കൂട്ടക്ഷരങ്ങൾ"},
	{"sinhala-khmer-myanmar", "සිංහල මාතෘකාව · ភាសាខ្មែរ", "မြန်မာဘာသာ ခေါင်းစဉ်ခွဲ"},
	{"armenian-georgian-ethiopic-lao", "Հայերեն վերնագիր · ქართული სათაური", "የአማርኛ ንዑስ ርዕስ · ພາສາລາວ"},
	{"thai", "ภาษาไทยไม่มีช่องว่างระหว่างคำในประโยคยาวๆแบบนี้", "สระและวรรณยุกต์ต้องวางซ้อนกันได้อย่างถูกต้อง"},
	{"emoji", "Shipping day 🚀🎉 with flags 🇯🇵🇧🇷 and keycaps 1️⃣", "Hearts ❤️ and faces 😀👍🏽 in the subtitle too."},
	{"no-font", "Glyphs no font has: \U000F0000 \U0001D11E \u2C00 end", "Private use and rare scripts draw boxes, never a crash."},
	{"long-cjk", "日本語のタイトルはとても長いです。日本語のタイトルはとても長いです。日本語のタイトルはとても長いです。日本語のタイトルはとても長いです。", "長い副題も省略記号で終わります。"},
}

func renderCase(t *testing.T, title, subtitle string) image.Image {
	t.Helper()
	s := &Service{Owner: "Iris Calloway", Host: "iriscalloway.example"}
	p, err := Parse(title, subtitle, "article")
	if err != nil {
		t.Fatal(err)
	}
	b, err := s.Render(p)
	if err != nil {
		t.Fatal(err)
	}
	return decode(t, b)
}

// TestScripts draws a title in each script and compares it with its golden image, allowing small differences
// (antialiasing and scaling can move by a level between library versions): at most 0.5% of the pixels may differ
// by more than a little. go test ./server/og -run TestScripts -update rewrites the golden images after a change
// that is meant to show; look at them (OG_CONTACT_SHEET=file.png writes all of them on one sheet) before
// committing.
func TestScripts(t *testing.T) {
	var sheet []image.Image
	for _, tc := range scriptCases {
		t.Run(tc.name, func(t *testing.T) {
			img := renderCase(t, tc.title, tc.subtitle)
			sheet = append(sheet, img)
			path := filepath.Join("testdata", "golden", tc.name+".png")
			if *update {
				writePNG(t, path, img)
				return
			}
			f, err := os.Open(path)
			if err != nil {
				t.Fatalf("%v (go test ./server/og -run TestScripts -update writes it)", err)
			}
			defer f.Close()
			want, err := png.Decode(f)
			if err != nil {
				t.Fatal(err)
			}
			if n, total := differing(img, want, 48); n*200 > total {
				t.Errorf("%d of %d pixels differ from %s", n, total, path)
				writePNG(t, filepath.Join(t.TempDir(), tc.name+".png"), img)
			}
		})
	}
	if out := os.Getenv("OG_CONTACT_SHEET"); out != "" {
		writePNG(t, out, contactSheet(sheet, 3))
		t.Logf("contact sheet: %s", out)
	}
}

// TestLocaleIndependent: an image depends on its title alone, never on the server's locale. Shaping in the
// locale's language gave Chinese titles Japanese or Korean glyph forms on a server started under ja_JP or ko_KR.
func TestLocaleIndependent(t *testing.T) {
	for _, name := range []string{"chinese", "traditional", "japanese", "korean"} {
		i := slices.IndexFunc(scriptCases, func(c struct{ name, title, subtitle string }) bool { return c.name == name })
		tc := scriptCases[i]
		t.Setenv("LC_ALL", "C.UTF-8")
		want := renderCase(t, tc.title, tc.subtitle)
		for _, locale := range []string{"ja_JP.UTF-8", "ko_KR.UTF-8", "zh_TW.UTF-8"} {
			t.Setenv("LC_ALL", locale)
			if n, total := differing(renderCase(t, tc.title, tc.subtitle), want, 0); n > 0 {
				t.Errorf("%s under LC_ALL=%s: %d of %d pixels differ from the image under C.UTF-8", name, locale, n, total)
			}
		}
	}
}

func writePNG(t *testing.T, path string, img image.Image) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Fatal(err)
	}
}

// differing counts the pixels whose channels differ by more than tol (0-255).
func differing(a, b image.Image, tol int) (n, total int) {
	r := a.Bounds()
	if r != b.Bounds() {
		return r.Dx() * r.Dy(), r.Dx() * r.Dy()
	}
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			c1, c2 := color.RGBAModel.Convert(a.At(x, y)).(color.RGBA), color.RGBAModel.Convert(b.At(x, y)).(color.RGBA)
			d := max(absDiff(c1.R, c2.R), absDiff(c1.G, c2.G), absDiff(c1.B, c2.B))
			if d > tol {
				n++
			}
		}
	}
	return n, r.Dx() * r.Dy()
}

func absDiff(a, b uint8) int {
	if a > b {
		return int(a - b)
	}
	return int(b - a)
}

// contactSheet puts images at half size in a grid of cols columns.
func contactSheet(imgs []image.Image, cols int) image.Image {
	w, h := Width/2, Height/2
	rows := (len(imgs) + cols - 1) / cols
	sheet := image.NewRGBA(image.Rect(0, 0, cols*w, rows*h))
	draw.Draw(sheet, sheet.Rect, image.NewUniform(color.Gray{0x80}), image.Point{}, draw.Src)
	for i, img := range imgs {
		at := image.Pt(i%cols*w, i/cols*h)
		for y := range h {
			for x := range w {
				sheet.Set(at.X+x, at.Y+y, img.At(x*2, y*2))
			}
		}
	}
	return sheet
}

// A Latin-only image unpacks no fallback font: a site whose titles are all Latin pays nothing for the others. It
// runs in a fresh process of the test binary, since other tests load fonts.
func TestLatinLoadsNoFallbackFont(t *testing.T) {
	if os.Getenv("OG_FRESH_PROCESS") == "" {
		cmd := exec.Command(os.Args[0], "-test.run=^TestLatinLoadsNoFallbackFont$", "-test.count=1")
		cmd.Env = append(os.Environ(), "OG_FRESH_PROCESS=1")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return
	}
	if got := fonts.Loaded(); len(got) != 0 {
		t.Fatalf("fonts loaded before any image: %v", got)
	}
	renderCase(t, "Plain Latin title, with Ünïcödé and — dashes", "Straße, Ελλάδα and Россия stay in the Go fonts.")
	for _, name := range fonts.Loaded() {
		if name != "Go-Regular" && name != "Go-Bold" {
			t.Errorf("a Latin, Greek and Cyrillic title loaded %s", name)
		}
	}
	renderCase(t, "日本語", "")
	if !slices.Contains(fonts.Loaded(), "NotoSansCJKsc-Regular") {
		t.Errorf("a Japanese title did not load the CJK font: %v", fonts.Loaded())
	}
}

// BenchmarkRenderCJK draws a Japanese title and subtitle uncached, with the fonts already unpacked (the first
// image of a process pays that once: BenchmarkUnpackCJK).
func BenchmarkRenderCJK(b *testing.B) {
	s := service()
	p, _ := Parse("エージェントと人のためのウェブサイトを作る：日本語のタイトル", "日本語の文章は単語の間に空白がありません。改行は文字の間で行われます。", "article")
	if _, err := s.Render(p); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if _, err := s.Render(p); err != nil {
			b.Fatal(err)
		}
	}
}

// lineTexts lays a paragraph out at width and returns each line's text in logical order.
func lineTexts(t *testing.T, text string, bold bool, size, width int) ([]string, para) {
	t.Helper()
	sh := shapers.Get().(*shaper)
	defer shapers.Put(sh)
	p := sh.shape(text, bold, size)
	var out []string
	for _, l := range sh.lines(p, width, 0) {
		lo, hi := len(p.text), 0
		for _, r := range l {
			lo, hi = min(lo, r.Runes.Offset), max(hi, r.Runes.Offset+r.Runes.Count)
		}
		s := strings.Map(func(r rune) rune {
			if r == 0x200B || r == 0x2060 {
				return -1
			}
			return r
		}, string(p.text[lo:hi]))
		out = append(out, strings.TrimSpace(s))
	}
	return out, p
}

// Scripts written without spaces wrap at legal break points: Chinese and Japanese between characters but never
// before closing punctuation or small kana, Thai between syllables (never after a vowel written before its
// consonant, never before a vowel or mark that follows one), Korean between words.
func TestWrapsAtLegalBreaks(t *testing.T) {
	noLineStart := "。、，．：；！？」』）】ぁぃぅぇぉっゃゅょァィゥェォッャュョー"
	thaiLeading := "เแโใไ"
	thaiFollowing := "ะาำัิีึืุูั็่้๊๋์ๆ"
	cases := []struct {
		name, text string
		check      func(prev, next string) string
	}{
		{"japanese", "日本語の文章は単語の間に空白がありません。改行は文字の間で行われますが、句読点「。」や小さい「っ」で行が始まってはいけません。", func(_, next string) string {
			if r := []rune(next)[0]; strings.ContainsRune(noLineStart, r) {
				return fmt.Sprintf("line starts with %q", r)
			}
			return ""
		}},
		{"chinese", "我们在个人网站上为人与代理人提供同样好的服务，并且保证每一个标题都能在图片中正确地换行。这是第二句话，它也很长。", func(_, next string) string {
			if r := []rune(next)[0]; strings.ContainsRune(noLineStart, r) {
				return fmt.Sprintf("line starts with %q", r)
			}
			return ""
		}},
		{"thai", "ภาษาไทยไม่มีช่องว่างระหว่างคำในประโยคยาวๆแบบนี้และเราต้องตัดบรรทัดให้ถูกต้องเสมอไม่ว่าประโยคจะยาวแค่ไหนก็ตาม", func(prev, next string) string {
			p, n := []rune(prev), []rune(next)
			if strings.ContainsRune(thaiLeading, p[len(p)-1]) {
				return fmt.Sprintf("line ends with leading vowel %q", p[len(p)-1])
			}
			if strings.ContainsRune(thaiFollowing, n[0]) {
				return fmt.Sprintf("line starts with %q", n[0])
			}
			return ""
		}},
		{"korean", "에이전트와 사람 모두를 위한 개인 웹사이트를 만드는 방법에 대하여 이야기합니다 그리고 한국어 제목을 단어 사이에서 나눕니다", func(prev, next string) string {
			return "" // checked below: every line is made of whole words
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			lines, _ := lineTexts(t, tc.text, true, 56, 700)
			if len(lines) < 3 {
				t.Fatalf("want several lines at 700 px, got %q", lines)
			}
			if got := strings.Join(lines, ""); strings.ReplaceAll(got, " ", "") != strings.ReplaceAll(tc.text, " ", "") {
				t.Fatalf("lines %q do not add up to the text", lines)
			}
			for i := 1; i < len(lines); i++ {
				if msg := tc.check(lines[i-1], lines[i]); msg != "" {
					t.Errorf("break %d (%q | %q): %s", i, lines[i-1], lines[i], msg)
				}
			}
			if tc.name == "korean" {
				words := strings.Fields(tc.text)
				for _, l := range lines {
					for _, w := range strings.Fields(l) {
						if !slices.Contains(words, w) {
							t.Errorf("line %q has %q, not a whole word", l, w)
						}
					}
				}
			}
		})
	}
}

// A right-to-left title is set from the right edge, wraps with its first words on the first line, and keeps a
// left-to-right number in order; a left-to-right title with a right-to-left phrase keeps its own direction.
func TestRightToLeft(t *testing.T) {
	lines, p := lineTexts(t, "مرحبا بالعالم هذا عنوان طويل جدا لموقع شخصي يخدم الناس والوكلاء على حد سواء في 2026", true, 76, Width-2*margin)
	if p.dir != di.DirectionRTL || len(lines) < 2 {
		t.Fatalf("direction %v, lines %q", p.dir, lines)
	}
	if !strings.HasPrefix(lines[0], "مرحبا بالعالم") || !strings.HasSuffix(lines[len(lines)-1], "2026") {
		t.Errorf("logical order of lines: %q", lines)
	}
	img := renderCase(t, "عنوان قصير", "")
	bg := looks["article"].bg
	if _, found := ink(img, image.Rect(textRight-60, textTop, textRight, textTop+lineHeight(76)), bg); !found {
		t.Error("a short right-to-left title does not reach the right edge")
	}
	if p, found := ink(img, image.Rect(textLeft, textTop, textLeft+300, textTop+lineHeight(76)), bg); found {
		t.Errorf("a short right-to-left title has ink at %v, near the left edge", p)
	}

	// Drawn from the right: the first word of a right-to-left line is its rightmost run, with a number and an
	// emoji in between keeping their places.
	sh := shapers.Get().(*shaper)
	defer shapers.Put(sh)
	for _, text := range []string{"عام 2026 جديد", "مرحبا 👋 بالعالم", "שלום עולם: אתר 2.0 אישי"} {
		rp := sh.shape(text, true, 56)
		ls := sh.lines(rp, 2000, 0)
		if len(ls) != 1 || len(ls[0]) < 2 {
			t.Fatalf("%q: %d lines", text, len(ls))
		}
		v := visual(ls[0])
		if last := v[len(v)-1]; last.Runes.Offset != 0 {
			t.Errorf("%q: the rightmost run starts at rune %d, want the first word (0)", text, last.Runes.Offset)
		}
		if first := v[0]; first.Runes.Offset+first.Runes.Count != len(rp.text) {
			t.Errorf("%q: the leftmost run ends at rune %d, want the last word (%d)", text, first.Runes.Offset+first.Runes.Count, len(rp.text))
		}
	}

	// Nested: a number inside a right-to-left phrase of a left-to-right title stays inside the phrase, whose words
	// are drawn right to left around it (rule L2): Release | המערכת | 2.0 | של | now.
	np := sh.shape("Release של 2.0 המערכת now", true, 56)
	nl := sh.lines(np, 4000, 0)
	if len(nl) != 1 {
		t.Fatalf("nested: %d lines", len(nl))
	}
	at := func(rune int) int { // the visual place of the run holding a rune
		for i, r := range visual(nl[0]) {
			if rune >= r.Runes.Offset && rune < r.Runes.Offset+r.Runes.Count {
				return i
			}
		}
		return -1
	}
	if !(at(0) < at(15) && at(15) < at(11) && at(11) < at(8) && at(8) < at(22)) {
		t.Errorf("nested: visual places of Release %d, המערכת %d, 2.0 %d, של %d, now %d", at(0), at(15), at(11), at(8), at(22))
	}

	// A right-to-left line cut short ends in "…" at its left, where the reader gets to.
	cut := sh.shape(strings.Repeat("مرحبا بالعالم ", 20), true, 56)
	cl := sh.lines(cut, 600, 1)
	if len(cl) != 1 {
		t.Fatalf("cut: %d lines", len(cl))
	}
	if v := visual(cl[0]); &v[0].Glyphs[0] != &cut.ellipsis.Glyphs[0] {
		t.Errorf("the ellipsis of a right-to-left line is not its leftmost run")
	}

	// Mixed: in a left-to-right paragraph the Hebrew phrase is one run, drawn right to left, between the Latin.
	mp := sh.shape("Release של המערכת now", true, 56)
	ls := sh.lines(mp, 2000, 0)
	if mp.dir != di.DirectionLTR || len(ls) != 1 {
		t.Fatalf("mixed: direction %v, %d lines", mp.dir, len(ls))
	}
	var dirs []di.Direction
	for _, r := range ls[0] {
		if len(dirs) == 0 || dirs[len(dirs)-1] != r.Direction {
			dirs = append(dirs, r.Direction)
		}
	}
	if !slices.Equal(dirs, []di.Direction{di.DirectionLTR, di.DirectionRTL, di.DirectionLTR}) {
		t.Errorf("mixed line's runs in visual order: %v", dirs)
	}
}

// Characters no font has are boxes in their own room, and never stop the image: every code point class at once.
func TestUnknownCharactersDrawBoxes(t *testing.T) {
	for _, title := range []string{"\U000F0000\U000F0001 private use", "\u2C00\u2C01 Glagolitic", "\U0001D11E music", "\uFFFD\uFFFF\U0010FFFD", strings.Repeat("\U000E0100", 5) + "variation selectors"} {
		img := renderCase(t, title, title)
		if _, found := ink(img, image.Rect(textLeft, textTop, textRight, textBot), looks["article"].bg); !found {
			t.Errorf("%q: nothing drawn", title)
		}
	}
}

// Hostile titles draw an image and stay inside the right and bottom margins: stacked combining marks, long runs of
// emoji and flags, direction flipping at every character, Arabic with a mark on every letter.
func TestHostileTitles(t *testing.T) {
	titles := []string{
		"Z" + strings.Repeat("\u0301\u0316\u0327\u0489", 29),
		strings.Repeat("🚀", MaxTitle),
		strings.Repeat("🇯🇵", MaxTitle/2),
		strings.Repeat("aب", MaxTitle/2),
		strings.Repeat("بَ", MaxTitle/2),
		strings.Repeat("क्", MaxTitle/2),
		strings.Repeat("ไ", MaxTitle),
		strings.Repeat("1️⃣", MaxTitle/3),
		"Z" + strings.Repeat("\u0316", 116), // marks stacked below one letter
		"Z" + strings.Repeat("\u0301", 116), // and above it
		"ب" + strings.Repeat("\u0670\u0654", 56),
		"ก" + strings.Repeat("\u0E48\u0E34", 56),
		"a" + strings.Repeat("\u0903", 110), // one cluster wider than the image
	}
	bg := looks["article"].bg
	for _, title := range titles {
		img := renderCase(t, title, title)
		if p, found := ink(img, image.Rect(Width-margin/2, textTop, Width, Height), bg); found {
			t.Errorf("%.12q: ink at %v near the right edge", title, p)
		}
		if p, found := ink(img, image.Rect(16, Height-margin/2, Width, Height), bg); found {
			t.Errorf("%.12q: ink at %v near the bottom edge", title, p)
		}
		if p, found := ink(img, image.Rect(300, 0, Width, textTop-28), bg); found { // right of the label's pill
			t.Errorf("%.12q: ink at %v above the title's band", title, p)
		}
		if p, found := ink(img, image.Rect(16, textBot+14, Width, 528), bg); found { // above the footer's letters
			t.Errorf("%.12q: ink at %v below the subtitle's band", title, p)
		}
	}
}

// A paragraph wrapped twice (at each size the title tries, then with its ellipsis) keeps its word spaces: the
// wrapper zeroes the space that ends a line in the glyphs it is given, and would glue those words on the next wrap.
func TestWrappingTwiceKeepsSpaces(t *testing.T) {
	sh := shapers.Get().(*shaper)
	defer shapers.Put(sh)
	text := "amet mm task understanding stop of amet the understanding W understanding sit future work future build"
	p := sh.shape(text, true, 48)
	if n := len(sh.lines(p, 300, 0)); n < 4 {
		t.Fatalf("%d lines at 300 px", n)
	}
	again := sh.lines(p, 5000, 0)
	fresh := sh.lines(sh.shape(text, true, 48), 5000, 0)
	drawn := func(l shaping.Line) (w fixed.Int26_6) { // what drawLine advances by
		for _, r := range l {
			for _, g := range r.Glyphs {
				w += g.Advance
			}
		}
		return w
	}
	if len(again) != 1 || len(fresh) != 1 || drawn(again[0]) != drawn(fresh[0]) {
		t.Fatalf("wrapped again: %d lines, %v wide; shaped afresh: %d lines, %v wide", len(again), drawn(again[0]), len(fresh), drawn(fresh[0]))
	}
}
