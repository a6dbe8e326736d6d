// Package og draws the site's Open Graph images: 1200×630 PNGs with the owner's name, a title and a subtitle
// wrapped to the width and ellipsised when they do not fit, in one look per type, in the Go fonts
// (golang.org/x/image/font/gofont). Images are cached by their normalised parameters with a strong ETag.
package og

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"image"
	"image/color"
	"image/png"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"unicode"
	"unicode/utf8"
	"unsafe"

	"twofold/server/cache"
	"twofold/server/errcode"

	"github.com/go-text/typesetting/di"
	"github.com/go-text/typesetting/shaping"
	"golang.org/x/sync/singleflight"
	"golang.org/x/text/unicode/norm"
)

// The image and its parameters' bounds.
const (
	Width       = 1200
	Height      = 630
	MaxTitle    = 120 // characters
	MaxSubtitle = 200
	// DefaultCacheBytes bounds the images kept: an image is 20 to 200 KB, so a few hundred of them.
	DefaultCacheBytes = 32 << 20
)

// Types are the looks, "default" first.
var Types = []string{"default", "portfolio", "speaking", "article"}

// Params are an image's text and look, normalised by Parse.
type Params struct {
	Title, Subtitle, Type string
}

// Parse normalises the query parameters (NFC, control and format characters removed, whitespace collapsed,
// invalid UTF-8 replaced) and checks them: TITLE_TOO_LONG, SUBTITLE_TOO_LONG, TYPE_INVALID.
func Parse(title, subtitle, typ string) (Params, error) {
	p := Params{Title: clean(title), Subtitle: clean(subtitle), Type: strings.ToLower(strings.TrimSpace(typ))}
	if p.Type == "" {
		p.Type = "default"
	}
	if n := utf8.RuneCountInString(p.Title); n > MaxTitle {
		return p, errcode.Errorf(errcode.TitleTooLong, "shorten the title to at most 120 characters", "title is %d characters, longer than 120", n)
	}
	if n := utf8.RuneCountInString(p.Subtitle); n > MaxSubtitle {
		return p, errcode.Errorf(errcode.SubtitleTooLong, "shorten the subtitle to at most 200 characters", "subtitle is %d characters, longer than 200", n)
	}
	if !slices.Contains(Types, p.Type) {
		return p, errcode.Errorf(errcode.TypeInvalid, "use one of default, portfolio, speaking, article", "type %q is not one of the looks", truncateRunes(p.Type, 40))
	}
	return p, nil
}

func clean(s string) string {
	s = norm.NFC.String(strings.ToValidUTF8(s, "\uFFFD"))
	s = strings.Map(func(r rune) rune {
		if unicode.IsSpace(r) {
			return ' '
		}
		if unicode.Is(unicode.Cc, r) || unicode.Is(unicode.Cf, r) && r != '\u200c' { // the zero-width non-joiner spells Persian
			return -1
		}
		return r
	}, s)
	return strings.Join(strings.Fields(s), " ")
}

func truncateRunes(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	return string([]rune(s)[:n]) + "…"
}

// Image is a rendered image and its ETag.
type Image struct {
	PNG  []byte
	ETag string
}

// Service renders and caches images for one site.
type Service struct {
	Owner    string // drawn on every image
	Host     string // the site's host, drawn beside the owner
	Title    string // the title when a request gives none
	Subtitle string // the subtitle when a request gives neither title nor subtitle
	// CacheBytes bounds the cache of drawn images, in bytes; DefaultCacheBytes when 0.
	CacheBytes int64
	// Recompress re-encodes each new image with the best compression in the background (one at a time) and
	// answers the smaller bytes, with their own ETag, from then on: the first answer stays fast, and every later
	// one is about a sixth smaller.
	Recompress bool

	once   sync.Once
	images *cache.LRU[Params, Image]
	group  singleflight.Group
	// byQuery indexes images by a request's exact query string too, so that a repeated request skips parsing and
	// normalisation. It holds parameters, not images, and is bounded in bytes like the images.
	byQuery *cache.LRU[string, Params]

	startWorker sync.Once
	pending     chan Params

	hits, misses atomic.Uint64
}

// Stats are the cache's hits and misses so far.
func (s *Service) Stats() (hits, misses uint64) { return s.hits.Load(), s.misses.Load() }

// recompress queues an image for re-encoding; when the queue is full the image keeps its first encoding.
func (s *Service) recompress(p Params) {
	s.startWorker.Do(func() {
		s.pending = make(chan Params, 64)
		go s.recompressor()
	})
	select {
	case s.pending <- p:
	default:
	}
}

func (s *Service) recompressor() {
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	for p := range s.pending {
		old, ok := s.cached(p)
		if !ok {
			continue
		}
		img, err := png.Decode(bytes.NewReader(old.PNG))
		if err != nil {
			continue
		}
		if _, ok := img.(*image.Paletted); !ok {
			continue // a full-colour image (emoji) takes ten times as long to re-encode for a few percent
		}
		var out bytes.Buffer
		if enc.Encode(&out, img) != nil || out.Len() >= len(old.PNG) {
			continue
		}
		smaller := Image{PNG: out.Bytes(), ETag: etagOf(out.Bytes())}
		s.images.Update(p, func(Image) Image { return smaller })
	}
}

func etagOf(data []byte) string {
	sum := sha256.Sum256(data)
	return `"` + hex.EncodeToString(sum[:16]) + `"`
}

// init makes the caches on first use, so that a Service is ready as a literal.
func (s *Service) init() {
	s.once.Do(func() {
		bound := s.CacheBytes
		if bound <= 0 {
			bound = DefaultCacheBytes
		}
		s.images = cache.New(bound, func(p Params, img Image) int64 { return paramBytes(p) + int64(cap(img.PNG)+len(img.ETag)) })
		s.byQuery = cache.New(bound/8, func(q string, p Params) int64 { return int64(len(q)) + paramBytes(p) })
	})
}

func paramBytes(p Params) int64 { return int64(len(p.Title)+len(p.Subtitle)+len(p.Type)) + 64 }

// ByQuery returns the image last answered for exactly this query string, if it is still cached.
func (s *Service) ByQuery(q []byte) (Image, bool) {
	s.init()
	// The key only looks up, never stays: a string over q's bytes saves a copy per cached answer.
	p, ok := s.byQuery.Get(unsafe.String(unsafe.SliceData(q), len(q)))
	if !ok {
		return Image{}, false
	}
	img, ok := s.images.Get(p)
	if ok {
		s.hits.Add(1)
	}
	return img, ok
}

// RememberQuery records the parameters a query string was answered with.
func (s *Service) RememberQuery(q []byte, p Params) {
	s.init()
	s.byQuery.Put(string(q), s.withDefaults(p))
}

// withDefaults gives parameters without a title the site's title and subtitle.
func (s *Service) withDefaults(p Params) Params {
	if p.Title == "" {
		p.Title = s.Title
		if p.Subtitle == "" {
			p.Subtitle = s.Subtitle
		}
	}
	return p
}

// Cached reports whether the image for normalised parameters is drawn already: answering it costs no drawing.
func (s *Service) Cached(p Params) bool {
	_, ok := s.cached(s.withDefaults(p))
	return ok
}

// renders bounds the images drawn at once: drawing is CPU work, and more at once than there are cores only adds
// memory.
var renders = make(chan struct{}, runtime.GOMAXPROCS(0))

// Image returns the image for normalised parameters, from the cache or freshly drawn; concurrent requests for one
// image draw it once.
func (s *Service) Image(p Params) (Image, error) {
	p = s.withDefaults(p)
	if img, ok := s.cached(p); ok {
		s.hits.Add(1)
		return img, nil
	}
	s.misses.Add(1)
	v, err, _ := s.group.Do(p.Type+"\x00"+p.Title+"\x00"+p.Subtitle, func() (any, error) {
		renders <- struct{}{} // at most one uncached image per core is drawn at a time
		data, err := s.Render(p)
		<-renders
		if err != nil {
			return Image{}, err
		}
		img := Image{PNG: data, ETag: etagOf(data)}
		s.images.Put(p, img)
		if s.Recompress {
			s.recompress(p)
		}
		return img, nil
	})
	return v.(Image), err
}

// cached returns an image of the cache.
func (s *Service) cached(p Params) (Image, bool) {
	s.init()
	return s.images.Get(p)
}

// look is a type's colours and ornament.
type look struct {
	bg, fg, muted, accent, accentText color.RGBA
	label                             string
}

var looks = map[string]look{
	"default":   {rgb(0x0f172a), rgb(0xf8fafc), rgb(0x94a3b8), rgb(0x38bdf8), rgb(0x0f172a), ""},
	"portfolio": {rgb(0xfbf5ec), rgb(0x1c1917), rgb(0x57534e), rgb(0xc2410c), rgb(0xfbf5ec), "Portfolio"},
	"speaking":  {rgb(0x1e1b4b), rgb(0xeef2ff), rgb(0xa5b4fc), rgb(0xf472b6), rgb(0x1e1b4b), "Speaking"},
	"article":   {rgb(0xffffff), rgb(0x111827), rgb(0x4b5563), rgb(0x15803d), rgb(0xffffff), "Article"},
}

func rgb(v uint32) color.RGBA { return color.RGBA{uint8(v >> 16), uint8(v >> 8), uint8(v), 255} }

// Layout of the text area.
const (
	margin    = 80
	textLeft  = margin
	textRight = Width - margin
	textTop   = 150 // below the label
	textBot   = 480 // above the footer
)

// Render draws an image for normalised parameters and encodes it as PNG.
func (s *Service) Render(p Params) ([]byte, error) {
	lk, ok := looks[p.Type]
	if !ok {
		lk = looks["default"]
	}
	sh := shapers.Get().(*shaper)
	defer shapers.Put(sh) // with its faces: a face caches glyph extents for the next image

	// Lay everything out first: an image with an emoji in it is drawn in full colour.
	width := textRight - textLeft
	label := lk.label
	if label == "" {
		label = s.Host
	}
	var labelLine []shaping.Line
	if label != "" {
		labelLine = sh.lines(sh.shape(strings.ToUpper(label), true, 24), width-36, 1)
	}
	// Title and subtitle: the largest title size at which both fit the text area; at the smallest, ellipsised.
	var title, sub para
	var titleLines, subLines []shaping.Line
	var titleSize, subSize int
	for i, size := range []int{76, 66, 56, 48} {
		titleSize, subSize = size, max(26, size*44/100)
		th, sh2 := lineHeight(titleSize), lineHeight(subSize)
		title, sub = sh.shape(p.Title, true, titleSize), sh.shape(p.Subtitle, false, subSize)
		titleLines, subLines = sh.lines(title, width, 0), sh.lines(sub, width, 0)
		fits := len(titleLines) <= maxTitleLines && len(titleLines)*th+gap(subLines)+len(subLines)*sh2 <= textBot-textTop &&
			!overflows(titleLines, width) && !overflows(subLines, width)
		if fits {
			break
		}
		if i == 3 {
			titleLines = sh.lines(title, width, min(maxTitleLines, len(titleLines)))
			room := (textBot - textTop - len(titleLines)*th - gap(subLines)) / sh2
			if room <= 0 {
				subLines = nil
			} else {
				subLines = sh.lines(sub, width, min(room, len(subLines)))
			}
		}
	}
	var ownerLine, hostLine []shaping.Line
	if s.Owner != "" {
		ownerLine = sh.lines(sh.shape(s.Owner, true, 32), width/2, 1)
	}
	if s.Host != "" && p.Type != "default" {
		hostLine = sh.lines(sh.shape(s.Host, false, 26), width/2-20, 1)
	}

	c := newCanvas(Width, Height, lk.bg, sh.usesBitmaps(labelLine, titleLines, subLines, ownerLine, hostLine))
	fg, muted, accent, accentText := c.colour(lk.fg), c.colour(lk.muted), c.colour(lk.accent), c.colour(lk.accentText)

	// Ornaments, each kept to the top band or the left edge, so that text never meets them.
	switch p.Type {
	case "default":
		c.rect(image.Rect(0, 0, Width, 12), accent)
	case "portfolio":
		for row := range 3 {
			for col := range 5 {
				c.circle(float64(textRight-8-col*26), float64(64+row*26), 7, accent)
			}
		}
	case "speaking":
		for i, r := range []float64{30, 22, 14} {
			c.circle(float64(textRight-30-i*70), 96, r, accent)
		}
	case "article":
		c.rect(image.Rect(0, 0, 16, Height), accent)
	}

	// Text keeps to its band between the margins, however its glyphs hang (stacked marks, a cluster too wide to
	// break): the label's, the title's and subtitle's, the footer's.
	band := func(top, bottom int) { c.clip = image.Rect(textLeft-margin/4, top, textRight+margin/4, bottom) }
	band(56, textTop-28)

	// The label: the type as a pill, or the site's host for the default look.
	for _, l := range labelLine {
		if p.Type == "default" {
			sh.drawLine(c, l, textLeft, 104, accent, true)
		} else {
			c.rect(image.Rect(textLeft, 72, textLeft+lineWidth(l).Ceil()+36, 118), accent)
			sh.drawLine(c, l, textLeft+18, 104, accentText, true)
		}
	}

	band(textTop-28, textBot+14)
	y := textTop
	for _, l := range titleLines {
		y += lineHeight(titleSize)
		sh.drawLine(c, l, alignStart(title, l), y-lineHeight(titleSize)/4, fg, true)
	}
	y += gap(subLines)
	for _, l := range subLines {
		y += lineHeight(subSize)
		sh.drawLine(c, l, alignStart(sub, l), y-lineHeight(subSize)/4, muted, false)
	}

	// The footer: the owner, and the host when the label does not already show it.
	band(textBot+14, Height-margin/2)
	for _, l := range ownerLine {
		sh.drawLine(c, l, textLeft, Height-margin+8, fg, true)
	}
	for _, l := range hostLine {
		sh.drawLine(c, l, textRight-lineWidth(l).Ceil(), Height-margin+8, muted, false)
	}

	var out bytes.Buffer
	out.Grow(48 << 10)
	if err := (&png.Encoder{CompressionLevel: png.BestSpeed}).Encode(&out, c.image()); err != nil {
		return nil, err
	}
	return bytes.Clone(out.Bytes()), nil // the cache keeps what it counts, not the buffer's spare room
}

// overflows reports a line wider than width: a cluster that cannot be broken (a run of conjuncts, stacked marks).
func overflows(lines []shaping.Line, width int) bool {
	return slices.ContainsFunc(lines, func(l shaping.Line) bool { return lineWidth(l).Ceil() > width })
}

// maxTitleLines is how many lines a title may take.
const maxTitleLines = 3

// alignStart is where a line of a paragraph starts: at the left edge, or for a right-to-left paragraph where it
// ends at the right edge.
func alignStart(p para, l shaping.Line) int {
	if p.dir == di.DirectionRTL {
		return textRight - lineWidth(l).Ceil()
	}
	return textLeft
}

func lineHeight(size int) int { return size * 5 / 4 }

func gap(sub []shaping.Line) int {
	if len(sub) == 0 {
		return 0
	}
	return 20
}
