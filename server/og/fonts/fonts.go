// Package fonts holds the fonts of the Open Graph images: the Go fonts for Latin, Greek and Cyrillic, and, for
// every other script and for emoji, Noto fonts cut from Debian's packages by subset.py (make og-fonts), compressed
// with brotli and embedded. A fallback font is unpacked and parsed the first time a title needs it, so a site whose
// titles are all Latin never unpacks one; the licences of the Noto fonts are in LICENSES beside them.
package fonts

import (
	"bytes"
	"embed"
	"io"
	"sync"

	"github.com/andybalholm/brotli"
	"github.com/go-text/typesetting/font"
	"github.com/go-text/typesetting/language"
	"golang.org/x/image/font/gofont/gobold"
	"golang.org/x/image/font/gofont/goregular"
)

//go:embed *.br
var packed embed.FS

// A Font is one font file, parsed on first use and then shared (a *font.Font is safe for concurrent use; make a
// font.Face per goroutine).
type Font struct {
	Name string
	// Regular is set on a regular font that also stands in for the bold weight (the CJK and script fonts): bold
	// text in it is emboldened when drawn.
	Regular bool

	load func() ([]byte, error)
	once sync.Once
	font *font.Font
}

// Get returns the parsed font, or nil when it cannot be read (a broken embed is a build defect that the tests
// catch; the images then draw boxes rather than fail).
func (f *Font) Get() *font.Font {
	f.once.Do(func() {
		data, err := f.load()
		if err != nil {
			return
		}
		face, err := font.ParseTTF(bytes.NewReader(data))
		if err != nil {
			return
		}
		f.font = face.Font
		loadedMu.Lock()
		loaded = append(loaded, f.Name)
		loadedMu.Unlock()
	})
	return f.font
}

var (
	loadedMu sync.Mutex
	loaded   []string
)

// Loaded lists the fonts parsed so far, in the order they were first needed.
func Loaded() []string {
	loadedMu.Lock()
	defer loadedMu.Unlock()
	return append([]string(nil), loaded...)
}

func embedded(file string) func() ([]byte, error) {
	return func() ([]byte, error) {
		f, err := packed.Open(file + ".br")
		if err != nil {
			return nil, err
		}
		defer f.Close()
		return io.ReadAll(brotli.NewReader(f))
	}
}

func static(b []byte) func() ([]byte, error) { return func() ([]byte, error) { return b, nil } }

// A Weight is the fonts of one weight, in the order they are tried.
type Weight struct {
	// Go draws Latin, Greek and Cyrillic: the site's look.
	Go *Font
	// Latin is Noto Sans, for a run of Latin, Greek or Cyrillic the Go font lacks letters of (Vietnamese, say),
	// so that one word is not drawn in two fonts.
	Latin *Font
	// Emoji is the colour emoji font (bitmaps).
	Emoji *Font
	// scripts maps a script to its font.
	scripts map[language.Script]*Font
}

// ForScript returns the font of a script other than Latin, Greek and Cyrillic, or nil.
func (w *Weight) ForScript(s language.Script) *Font { return w.scripts[s] }

var scriptFiles = map[language.Script]string{
	language.Arabic: "Arabic", language.Hebrew: "Hebrew", language.Devanagari: "Devanagari",
	language.Bengali: "Bengali", language.Gurmukhi: "Gurmukhi", language.Gujarati: "Gujarati",
	language.Oriya: "Oriya", language.Tamil: "Tamil", language.Telugu: "Telugu", language.Kannada: "Kannada",
	language.Malayalam: "Malayalam", language.Sinhala: "Sinhala", language.Thai: "Thai", language.Lao: "Lao",
	language.Khmer: "Khmer", language.Myanmar: "Myanmar", language.Armenian: "Armenian",
	language.Georgian: "Georgian", language.Ethiopic: "Ethiopic",
}

// Regular and Bold are the two weights the images use.
var Regular, Bold = weights()

func weights() (*Weight, *Weight) {
	cjk := &Font{Name: "NotoSansCJKsc-Regular", Regular: true, load: embedded("NotoSansCJKsc-Regular.otf")}
	emoji := &Font{Name: "NotoColorEmoji", load: embedded("NotoColorEmoji.ttf")}
	scripts := map[language.Script]*Font{}
	for s, name := range scriptFiles {
		scripts[s] = &Font{Name: "NotoSans" + name + "-Regular", Regular: true, load: embedded("NotoSans" + name + "-Regular.ttf")}
	}
	for _, s := range []language.Script{language.Han, language.Hiragana, language.Katakana, language.Hangul, language.Bopomofo} {
		scripts[s] = cjk
	}
	weight := func(w string, goTTF []byte) *Weight {
		return &Weight{
			Go:      &Font{Name: "Go-" + w, load: static(goTTF)},
			Latin:   &Font{Name: "NotoSans-" + w, load: embedded("NotoSans-" + w + ".ttf")},
			Emoji:   emoji,
			scripts: scripts,
		}
	}
	return weight("Regular", goregular.TTF), weight("Bold", gobold.TTF)
}

// All lists every font of both weights once, for tests.
func All() []*Font {
	seen := map[*Font]bool{}
	var out []*Font
	for _, w := range []*Weight{Regular, Bold} {
		for _, f := range append([]*Font{w.Go, w.Latin, w.Emoji}, values(w.scripts)...) {
			if !seen[f] {
				seen[f] = true
				out = append(out, f)
			}
		}
	}
	return out
}

func values(m map[language.Script]*Font) []*Font {
	var out []*Font
	for _, f := range m {
		out = append(out, f)
	}
	return out
}
