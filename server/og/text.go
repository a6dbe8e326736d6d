package og

import (
	"bytes"
	"image"
	"image/draw"
	"image/png"
	"math"
	"slices"
	"sync"
	"unicode"

	"twofold/server/og/fonts"

	"github.com/go-text/typesetting/bidi"
	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/language"
	"github.com/go-text/typesetting/segmenter"
	"github.com/go-text/typesetting/shaping"
	"golang.org/x/image/math/fixed"
	"golang.org/x/image/vector"
	xbidi "golang.org/x/text/unicode/bidi"
)

// Text is laid out in four steps, the way a browser does it: the paragraph is split into runs of one direction
// (Unicode's bidi algorithm) and one script; each run's grapheme clusters get a font from the fallback chain
// (fonts.Weight: the Go font, the script's Noto font, Noto Sans, colour emoji); each piece is shaped by HarfBuzz's
// Go port (ligatures, Arabic joining, Indic reordering, kerning); and the shaped runs are wrapped at Unicode's line
// break opportunities (UAX #14: between CJK characters, at Thai word boundaries as far as the rules know them,
// never inside a cluster), reordered for display per line, and ellipsised when they do not fit.

// shaper holds the state of one render: shaping and wrapping state is not safe to share, fonts are.
type shaper struct {
	seg    shaping.Segmenter
	hb     shaping.HarfbuzzShaper
	wrap   shaping.LineWrapper
	graph  segmenter.Segmenter
	faces  map[*fonts.Font]*font.Face
	fontOf map[*font.Face]*fonts.Font
	rast   vector.Rasterizer
	mask   *image.Alpha
}

var shapers = sync.Pool{New: func() any {
	return &shaper{faces: map[*fonts.Font]*font.Face{}, fontOf: map[*font.Face]*fonts.Font{}}
}}

// face returns this render's face of a font, or nil when the font cannot be read.
func (s *shaper) face(f *fonts.Font) *font.Face {
	if f == nil {
		return nil
	}
	if fc, ok := s.faces[f]; ok {
		return fc
	}
	var fc *font.Face
	if ft := f.Get(); ft != nil {
		fc = font.NewFace(ft)
		s.fontOf[fc] = f
	}
	s.faces[f] = fc
	return fc
}

// para is a paragraph shaped in one weight and size.
type para struct {
	text     []rune
	levels   []bidi.Level // each rune's embedding level (the bidi algorithm's rules up to I2)
	runs     []shaping.Output
	dir      di.Direction
	ellipsis shaping.Output
	bold     bool
}

// direction is the paragraph's direction by its first strong character (rules P2 and P3 of the bidi algorithm).
func direction(text []rune) di.Direction {
	for _, r := range text {
		p, _ := xbidi.LookupRune(r)
		switch p.Class() {
		case xbidi.L:
			return di.DirectionLTR
		case xbidi.R, xbidi.AL:
			return di.DirectionRTL
		}
	}
	return di.DirectionLTR
}

// stripToneModifiers drops emoji skin-tone modifiers: the emoji font is cut without the toned variants, and the
// untoned emoji is a better drawing than the emoji followed by a colour swatch.
func stripToneModifiers(s string) []rune {
	out := make([]rune, 0, len(s))
	for _, r := range s {
		if r >= 0x1F3FB && r <= 0x1F3FF {
			continue
		}
		out = append(out, r)
	}
	return out
}

// syllableBreaks marks where a line may break inside Thai and Lao words, which are written without spaces: Unicode's
// line breaking rules leave those breaks to a dictionary, which the images do without. A zero-width space (a
// break opportunity that draws nothing) goes at the syllable boundaries that spelling alone shows: before a vowel
// written ahead of its consonant (เ แ โ ใ ไ, and Lao's ເ ແ ໂ ໃ ໄ), and after a syllable's closing sign
// (ะ ำ ๆ ์ and Lao's ະ ໆ ໌) when a consonant or such a vowel follows. So a line never breaks inside a syllable,
// though it may break between two syllables of one word. Korean is written with spaces between words, and
// Korean typesetting breaks there (CSS's word-break: keep-all): a word joiner (no break, draws nothing) goes
// between two Hangul syllables. A word wider than the line still breaks where it must.
func breakHints(text []rune) []rune {
	leading := func(r rune) bool { return r >= 0x0E40 && r <= 0x0E44 || r >= 0x0EC0 && r <= 0x0EC4 }
	consonant := func(r rune) bool { return r >= 0x0E01 && r <= 0x0E2E || r >= 0x0E81 && r <= 0x0EAE }
	closing := func(r rune) bool {
		return r == 0x0E30 || r == 0x0E33 || r == 0x0E46 || r == 0x0E4C || r == 0x0EB0 || r == 0x0EC6 || r == 0x0ECC
	}
	thai := func(r rune) bool { return r >= 0x0E01 && r <= 0x0EFF }
	hangul := func(r rune) bool { return r >= 0xAC00 && r <= 0xD7A3 }
	if !slices.ContainsFunc(text, func(r rune) bool { return thai(r) || hangul(r) }) {
		return text
	}
	out := make([]rune, 0, len(text)+len(text)/3)
	for i, r := range text {
		if i > 0 {
			prev := text[i-1]
			if thai(prev) && !leading(prev) && (leading(r) || closing(prev) && consonant(r)) {
				out = append(out, 0x200B)
			}
			if hangul(prev) && hangul(r) {
				out = append(out, 0x2060)
			}
		}
		out = append(out, r)
	}
	return out
}

// shape shapes text in a weight and size.
func (s *shaper) shape(text string, bold bool, size int) para {
	w := fonts.Regular
	if bold {
		w = fonts.Bold
	}
	p := para{text: breakHints(stripToneModifiers(text)), bold: bold}
	p.dir = direction(p.text)
	p.levels = levelsOf(p.text, p.dir)
	primary := s.face(w.Go)
	sz := fixed.I(size)
	p.ellipsis = s.hb.Shape(shaping.Input{Text: []rune{'…'}, RunEnd: 1, Direction: di.DirectionLTR, Face: primary, Size: sz, Script: language.Latin})
	if len(p.text) == 0 {
		return p
	}
	in := shaping.Input{Text: p.text, RunEnd: len(p.text), Direction: p.dir, Face: primary, Size: sz, Language: textLanguage(p.text)}
	var pieces []shaping.Input
	for _, run := range s.seg.Split(in, oneFace{primary}) {
		pieces = s.assignFaces(run, w, pieces)
	}
	for _, piece := range pieces {
		if fc := piece.Face; fc != nil {
			if f := s.fontOf[fc]; f == w.Emoji {
				fc.SetPpem(uint16(size), uint16(size))
			}
		}
		p.runs = append(p.runs, s.hb.Shape(piece))
	}
	return p
}

type oneFace struct{ f *font.Face }

func (o oneFace) ResolveFace(rune) *font.Face { return o.f }

// isEmojiCluster reports whether a grapheme cluster asks for an emoji picture: a pictograph from the emoji planes,
// a keycap, a flag, or any character followed by the emoji variation selector.
func isEmojiCluster(c []rune) bool {
	for _, r := range c {
		switch {
		case r == 0xFE0F, r == 0x20E3, r >= 0x1F1E6 && r <= 0x1F1FF, r >= 0x1F300 && r <= 0x1FAFF:
			return true
		}
	}
	return false
}

// significant reports whether a character must be in a font for the cluster to be drawn by it: not spaces, not
// joiners and variation selectors.
func significant(r rune) bool {
	return !unicode.IsSpace(r) && !unicode.Is(unicode.Cf, r) && !(r >= 0xFE00 && r <= 0xFE0F)
}

func covers(fc *font.Face, c []rune) bool {
	if fc == nil {
		return false
	}
	for _, r := range c {
		if significant(r) {
			if _, ok := fc.NominalGlyph(r); !ok {
				return false
			}
		}
	}
	return true
}

func blank(c []rune) bool { return !slices.ContainsFunc(c, significant) }

// assignFaces splits a run of one direction and script into pieces of one font and appends them to out. A
// cluster takes, in order: the emoji font when it asks for a picture; the first of the Go font, the run's script
// font, the cluster's own script font and Noto Sans that has every character of it; then the first that has its
// first character; else the Go font, which draws a box. A Latin, Greek or Cyrillic run the Go font cannot draw
// whole goes to Noto Sans whole, so a word is never drawn in two fonts; blank clusters go with their neighbours.
func (s *shaper) assignFaces(run shaping.Input, w *fonts.Weight, out []shaping.Input) []shaping.Input {
	text := run.Text[run.RunStart:run.RunEnd]
	s.graph.Init(text)
	type cluster struct {
		start, end int
		face       *font.Face
	}
	var cs []cluster
	it := s.graph.GraphemeIterator()
	for it.Next() {
		g := it.Grapheme()
		cs = append(cs, cluster{start: g.Offset, end: g.Offset + len(g.Text)})
	}
	goFace := s.face(w.Go)
	runFont := w.ForScript(run.Script)
	latinLike := run.Script == language.Latin || run.Script == language.Greek || run.Script == language.Cyrillic || run.Script == language.Common
	var wholeNoto bool
	if latinLike {
		missing := false
		for _, c := range cs {
			t := text[c.start:c.end]
			if !isEmojiCluster(t) && !covers(goFace, t) {
				missing = true
				break
			}
		}
		if missing {
			noto := s.face(w.Latin)
			wholeNoto = true
			for _, c := range cs {
				t := text[c.start:c.end]
				if !isEmojiCluster(t) && !covers(noto, t) {
					wholeNoto = false
					break
				}
			}
		}
	}
	for i := range cs {
		t := text[cs[i].start:cs[i].end]
		if blank(t) {
			continue
		}
		if isEmojiCluster(t) {
			if e := s.face(w.Emoji); e != nil {
				if _, ok := e.NominalGlyph(t[0]); ok {
					cs[i].face = e
					continue
				}
			}
		}
		if wholeNoto {
			cs[i].face = s.face(w.Latin)
			continue
		}
		chain := []*fonts.Font{w.Go, runFont, w.ForScript(language.LookupScript(t[0])), w.Latin}
		for _, f := range chain {
			if f != nil && covers(s.face(f), t) {
				cs[i].face = s.face(f)
				break
			}
		}
		if cs[i].face == nil {
			for _, f := range chain {
				if fc := s.face(f); fc != nil {
					if _, ok := fc.NominalGlyph(t[0]); ok {
						cs[i].face = fc
						break
					}
				}
			}
		}
		if cs[i].face == nil {
			cs[i].face = goFace
		}
	}
	// Blank clusters (spaces) take the face before them, or after them, when it has the space: a word space in
	// the emoji font is as wide as an emoji. Otherwise the Go font's.
	fits := func(fc *font.Face, t []rune) bool {
		if fc == nil || s.fontOf[fc] == w.Emoji {
			return false
		}
		for _, r := range t {
			if _, ok := fc.NominalGlyph(r); !ok && !unicode.Is(unicode.Cf, r) {
				return false
			}
		}
		return true
	}
	for i := range cs {
		if cs[i].face != nil {
			continue
		}
		t := text[cs[i].start:cs[i].end]
		switch {
		case i > 0 && fits(cs[i-1].face, t):
			cs[i].face = cs[i-1].face
		case i+1 < len(cs) && cs[i+1].face != nil && fits(cs[i+1].face, t):
			cs[i].face = cs[i+1].face
		default:
			cs[i].face = goFace
		}
	}
	for i := 0; i < len(cs); {
		j := i + 1
		for j < len(cs) && cs[j].face == cs[i].face {
			j++
		}
		piece := run
		piece.RunStart, piece.RunEnd = run.RunStart+cs[i].start, run.RunStart+cs[j-1].end
		piece.Face = cs[i].face
		if piece.Face == nil {
			piece.Face = goFace
		}
		out = append(out, piece)
		i = j
	}
	return out
}

// lines wraps a paragraph to width; maxLines > 0 keeps at most that many, the last ending in "…" when text was
// left out.
func (s *shaper) lines(p para, width, maxLines int) []shaping.Line {
	if len(p.runs) == 0 || maxLines < 0 {
		return nil
	}
	cfg := shaping.WrapConfig{Direction: p.dir, TruncateAfterLines: maxLines, Truncator: p.ellipsis, BreakPolicy: shaping.WhenNecessary}
	// The wrapper zeroes the advance of the space that ends a line in the glyphs it is given: a paragraph wrapped
	// again (at the next size, or with an ellipsis) would glue those words together. It gets a copy.
	runs := make([]shaping.Output, len(p.runs))
	for i, r := range p.runs {
		runs[i] = r
		runs[i].Glyphs = slices.Clone(r.Glyphs)
	}
	ls, _ := s.wrap.WrapParagraph(cfg, width, p.text, shaping.NewSliceIterator(runs))
	out := make([]shaping.Line, len(ls)) // the wrapper reuses its buffers on the next call
	for i, l := range ls {
		out[i] = slices.Clone(l)
		p.order(out[i])
	}
	return out
}

// levelsOf resolves each rune's embedding level in a paragraph of a direction.
func levelsOf(text []rune, dir di.Direction) []bidi.Level {
	levels := make([]bidi.Level, len(text))
	def := bidi.LeftToRight
	if dir == di.DirectionRTL {
		def = bidi.RightToLeft
	}
	var bp bidi.Paragraph
	runs := bp.Segment(text, def)
	start := 0
	for i := range runs.NumRuns() {
		r := runs.Run(i)
		for j := start; j < r.End && j < len(levels); j++ {
			levels[j] = r.Level
		}
		start = r.End
	}
	return levels
}

// order sets the visual index of a line's runs by rule L2 of the bidi algorithm: from the highest level down to the
// lowest odd one, every stretch of runs at that level or higher is reversed. (The wrapper only reverses runs whose
// direction differs from the paragraph's, which misplaces a number inside a right-to-left phrase of a left-to-right
// title.) The ellipsis of a cut line goes where the line ends in reading order.
func (p para) order(l shaping.Line) {
	var runs []int // the line's runs of text, in logical order
	ellipsis := -1
	for i, r := range l {
		if len(r.Glyphs) > 0 && len(p.ellipsis.Glyphs) > 0 && &r.Glyphs[0] == &p.ellipsis.Glyphs[0] {
			ellipsis = i
			continue
		}
		runs = append(runs, i)
	}
	slices.SortStableFunc(runs, func(a, b int) int { return l[a].Runes.Offset - l[b].Runes.Offset })
	level := func(i int) int {
		if o := l[i].Runes.Offset; o >= 0 && o < len(p.levels) {
			return int(p.levels[o])
		}
		return 0
	}
	top, lowestOdd := 0, 1<<30
	for _, i := range runs {
		top = max(top, level(i))
		if level(i)%2 == 1 {
			lowestOdd = min(lowestOdd, level(i))
		}
	}
	for lev := top; lev >= lowestOdd && lev > 0; lev-- {
		for a := 0; a < len(runs); {
			if level(runs[a]) < lev {
				a++
				continue
			}
			b := a
			for b < len(runs) && level(runs[b]) >= lev {
				b++
			}
			slices.Reverse(runs[a:b])
			a = b
		}
	}
	if ellipsis >= 0 {
		if p.dir == di.DirectionRTL {
			runs = append([]int{ellipsis}, runs...)
		} else {
			runs = append(runs, ellipsis)
		}
	}
	for v, i := range runs {
		l[i].VisualIndex = int32(v)
	}
}

// visual returns a line's runs from left to right. The wrapper keeps them in logical order and numbers their
// places from the left: a right-to-left run, a number in it, an emoji or a change of font is drawn where it is read.
func visual(l shaping.Line) shaping.Line {
	l = slices.Clone(l)
	slices.SortStableFunc(l, func(a, b shaping.Output) int { return int(a.VisualIndex) - int(b.VisualIndex) })
	return l
}

func lineWidth(l shaping.Line) fixed.Int26_6 {
	var w fixed.Int26_6
	for _, r := range l {
		w += r.Advance
	}
	return w
}

// usesBitmaps reports whether any run of the lines is drawn from the colour emoji font.
func (s *shaper) usesBitmaps(lines ...[]shaping.Line) bool {
	for _, ls := range lines {
		for _, l := range ls {
			for _, r := range l {
				if s.fontOf[r.Face] == fonts.Regular.Emoji {
					return true
				}
			}
		}
	}
	return false
}

// drawLine draws a line with its left end at x and its baseline at y.
func (s *shaper) drawLine(c *canvas, l shaping.Line, x, y int, col uint8, bold bool) {
	dot := fixed.I(x)
	base := fixed.I(y)
	for _, run := range visual(l) {
		f := s.fontOf[run.Face]
		embolden := bold && f != nil && f.Regular
		for _, g := range run.Glyphs {
			s.drawGlyph(c, run, g, dot+g.XOffset, base-g.YOffset, col, embolden)
			dot += g.Advance
		}
	}
}

func (s *shaper) drawGlyph(c *canvas, run shaping.Output, g shaping.Glyph, x, y fixed.Int26_6, col uint8, embolden bool) {
	if run.Face == nil {
		return
	}
	if g.GlyphID == 0 {
		s.box(c, run, g, x, y, col)
		return
	}
	switch d := run.Face.GlyphData(g.GlyphID).(type) {
	case font.GlyphOutline:
		s.outline(c, run, d, x, y, col, embolden)
	case font.GlyphBitmap:
		if !s.bitmap(c, d, g, x, y) {
			s.box(c, run, g, x, y, col)
		}
	}
}

// box draws an outlined box in the room of a character no font has: it shows where something could not be drawn,
// and the text around it keeps its place.
func (s *shaper) box(c *canvas, run shaping.Output, g shaping.Glyph, x, y fixed.Int26_6, col uint8) {
	size := run.Size.Round()
	adv := g.Advance
	if adv <= 0 {
		return
	}
	x0, x1 := (x + adv/8).Round(), (x + adv*7/8).Round()
	y1 := y.Round()
	y0 := y1 - size*7/10
	stroke := max(2, size/24)
	for _, r := range []image.Rectangle{image.Rect(x0, y0, x1, y0+stroke), image.Rect(x0, y1-stroke, x1, y1), image.Rect(x0, y0, x0+stroke, y1), image.Rect(x1-stroke, y0, x1, y1)} {
		c.rect(r.Intersect(c.clip), col)
	}
}

// outline fills a glyph's outline, antialiased. embolden widens the strokes, as browsers do for a bold weight a
// font does not have.
func (s *shaper) outline(c *canvas, run shaping.Output, o font.GlyphOutline, x, y fixed.Int26_6, col uint8, embolden bool) {
	if len(o.Segments) == 0 {
		return
	}
	scale := float32(run.Size) / 64 / float32(run.Face.Upem())
	minX, minY, maxX, maxY := float32(math.MaxFloat32), float32(math.MaxFloat32), float32(-math.MaxFloat32), float32(-math.MaxFloat32)
	for _, seg := range o.Segments {
		for _, p := range seg.ArgsSlice() {
			minX, maxX = min(minX, p.X), max(maxX, p.X)
			minY, maxY = min(minY, p.Y), max(maxY, p.Y)
		}
	}
	ox, oy := float32(x)/64, float32(y)/64
	left, top := int(math.Floor(float64(ox+minX*scale))), int(math.Floor(float64(oy-maxY*scale)))
	right, bottom := int(math.Ceil(float64(ox+maxX*scale))), int(math.Ceil(float64(oy-minY*scale)))
	w, h := right-left+1, bottom-top+1
	if w <= 0 || h <= 0 || w > 4*Width || h > 4*Height {
		return
	}
	s.rast.Reset(w, h)
	fx, fy := ox-float32(left), oy-float32(top)
	pt := func(p ot.SegmentPoint) (float32, float32) { return fx + p.X*scale, fy - p.Y*scale }
	started := false
	for _, seg := range o.Segments {
		switch seg.Op {
		case ot.SegmentOpMoveTo:
			if started {
				s.rast.ClosePath()
			}
			s.rast.MoveTo(pt(seg.Args[0]))
			started = true
		case ot.SegmentOpLineTo:
			s.rast.LineTo(pt(seg.Args[0]))
		case ot.SegmentOpQuadTo:
			ax, ay := pt(seg.Args[0])
			bx, by := pt(seg.Args[1])
			s.rast.QuadTo(ax, ay, bx, by)
		case ot.SegmentOpCubeTo:
			ax, ay := pt(seg.Args[0])
			bx, by := pt(seg.Args[1])
			cx, cy := pt(seg.Args[2])
			s.rast.CubeTo(ax, ay, bx, by, cx, cy)
		}
	}
	if started {
		s.rast.ClosePath()
	}
	extra := 0
	if embolden {
		extra = max(1, run.Size.Round()/30)
	}
	need := (w + extra) * h
	if s.mask == nil || cap(s.mask.Pix) < need {
		s.mask = &image.Alpha{Pix: make([]uint8, need)}
	}
	m := s.mask
	m.Pix, m.Stride, m.Rect = m.Pix[:need], w+extra, image.Rect(0, 0, w+extra, h)
	clear(m.Pix)
	s.rast.Draw(m, image.Rect(0, 0, w, h), image.Opaque, image.Point{})
	if extra > 0 { // widen each row by extra pixels: the maximum over a window, from the right
		for yy := range h {
			row := m.Pix[yy*m.Stride : yy*m.Stride+w+extra]
			for xx := w + extra - 1; xx >= 0; xx-- {
				v := row[xx]
				for k := 1; k <= extra && xx-k >= 0; k++ {
					v = max(v, row[xx-k])
				}
				row[xx] = v
			}
		}
	}
	c.glyph(image.Rect(left, top, left+w+extra, top+h), m, col)
}

// bitmap draws a colour glyph (an emoji) scaled into the box its extents give; false when it cannot.
func (s *shaper) bitmap(c *canvas, b font.GlyphBitmap, g shaping.Glyph, x, y fixed.Int26_6) bool {
	if b.Format != font.PNG || c.rgba == nil {
		return false
	}
	img := emojiImage(g.GlyphID, b.Data)
	if img == nil {
		return false
	}
	r := image.Rect((x + g.XBearing).Round(), (y - g.YBearing).Round(), (x + g.XBearing + g.Width).Round(), (y - g.YBearing - g.Height).Round())
	if r.Empty() {
		return false
	}
	c.picture(r, img)
	return true
}

// emojiImages keeps emoji decoded into RGBA, by glyph: decoding a PNG on every render made an image of emoji ten
// times the work of a Latin one. At most maxEmojiImages (about 18 KB each) are kept; past that they are decoded
// each time.
var (
	emojiMu     sync.Mutex
	emojiImages = map[font.GID]*image.RGBA{}
)

const maxEmojiImages = 1024

func emojiImage(gid font.GID, data []byte) *image.RGBA {
	emojiMu.Lock()
	img, ok := emojiImages[gid]
	emojiMu.Unlock()
	if ok {
		return img
	}
	src, err := png.Decode(bytes.NewReader(data))
	if err != nil {
		return nil
	}
	img = image.NewRGBA(src.Bounds())
	draw.Draw(img, img.Rect, src, src.Bounds().Min, draw.Src)
	emojiMu.Lock()
	if len(emojiImages) < maxEmojiImages {
		emojiImages[gid] = img
	}
	emojiMu.Unlock()
	return img
}

// textLanguage is the language a title is shaped in, read from the text alone and never from the server's locale
// (the same title must give the same image on every machine): Japanese when it holds kana, so that Han characters
// take their Japanese forms; otherwise none, and the CJK font's default (Simplified Chinese) forms.
func textLanguage(text []rune) language.Language {
	for _, r := range text {
		if unicode.In(r, unicode.Hiragana, unicode.Katakana) {
			return language.NewLanguage("ja")
		}
	}
	return ""
}
