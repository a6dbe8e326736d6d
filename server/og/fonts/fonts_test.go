package fonts

import (
	"testing"

	"github.com/go-text/typesetting/language"
)

// Every embedded font unpacks, parses and has the characters it is there for.
func TestEveryFontLoads(t *testing.T) {
	probes := map[string]rune{"Go-Regular": 'A', "Go-Bold": 'A', "NotoSans-Regular": 'ệ', "NotoSans-Bold": 'ệ', "NotoColorEmoji": '🚀', "NotoSansCJKsc-Regular": '語'}
	letters := map[language.Script]rune{
		language.Arabic: 'ب', language.Hebrew: 'א', language.Devanagari: 'क', language.Bengali: 'ক', language.Gurmukhi: 'ਕ',
		language.Gujarati: 'ક', language.Oriya: 'କ', language.Tamil: 'க', language.Telugu: 'క', language.Kannada: 'ಕ',
		language.Malayalam: 'ക', language.Sinhala: 'ක', language.Thai: 'ก', language.Lao: 'ກ', language.Khmer: 'ក',
		language.Myanmar: 'က', language.Armenian: 'Ա', language.Georgian: 'ა', language.Ethiopic: 'ሀ',
	}
	for s, name := range scriptFiles {
		probes["NotoSans"+name+"-Regular"] = letters[s]
	}
	for _, f := range All() {
		ft := f.Get()
		if ft == nil {
			t.Errorf("%s does not load", f.Name)
			continue
		}
		r, ok := probes[f.Name]
		if !ok {
			t.Errorf("%s: no probe character", f.Name)
			continue
		}
		if _, has := ft.NominalGlyph(r); !has {
			t.Errorf("%s lacks %q", f.Name, r)
		}
	}
	for _, r := range "鬱體麼한국어ひらがなカタカナ" { // beyond GB 2312 level 1: JIS level 1, Big5, Hangul, kana
		if _, has := Regular.ForScript(language.Han).Get().NominalGlyph(r); !has {
			t.Errorf("the CJK font lacks %q", r)
		}
	}
}

// BenchmarkUnpackCJK is what the first CJK title of a process pays once: unpacking the CJK font (about 90 ms
// here; brotli keeps the binary 0.3 MB smaller than zstd, whose unpacking is faster).
func BenchmarkUnpackCJK(b *testing.B) {
	load := embedded("NotoSansCJKsc-Regular.otf")
	for b.Loop() {
		if _, err := load(); err != nil {
			b.Fatal(err)
		}
	}
}
