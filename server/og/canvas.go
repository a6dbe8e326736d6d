package og

import (
	"image"
	"image/color"
	"math"
	"unicode"

	"golang.org/x/image/font"
	"golang.org/x/image/math/fixed"
)

// levels is how many steps of coverage an antialiased edge has (0 and levels-1 are the flat colours).
const levels = 16

// canvas draws on a paletted image: flat colours, and antialiased edges blended from one flat colour over
// another in levels steps. A paletted PNG is a quarter of the bytes of an RGBA one to filter and compress, which
// is most of the time an image takes.
type canvas struct {
	img    *image.Paletted
	flat   []uint8                     // for each palette entry, the flat colour it was blended over (itself if flat)
	blends map[[2]uint8]*[levels]uint8 // (fg, bg) → the palette entry of each level
}

func newCanvas(w, h int, bg color.RGBA) *canvas {
	c := &canvas{img: image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{bg}), flat: []uint8{0}, blends: map[[2]uint8]*[levels]uint8{}}
	return c
}

// colour adds a flat colour to the palette (or finds it) and returns its index.
func (c *canvas) colour(col color.RGBA) uint8 {
	for i, p := range c.img.Palette {
		if p == col && c.flat[i] == uint8(i) {
			return uint8(i)
		}
	}
	if len(c.img.Palette) == 256 {
		return uint8(c.img.Palette.Index(col))
	}
	c.img.Palette = append(c.img.Palette, col)
	i := uint8(len(c.img.Palette) - 1)
	c.flat = append(c.flat, i)
	return i
}

// blend returns the palette entry of fg over the flat colour under bg at coverage a (0-255).
func (c *canvas) blend(fg, bg uint8, a uint8) uint8 {
	bg = c.flat[bg]
	level := (int(a)*(levels-1) + 127) / 255
	switch {
	case level == 0 || fg == bg:
		return bg
	case level == levels-1:
		return fg
	}
	t := c.blends[[2]uint8{fg, bg}]
	if t == nil {
		t = new([levels]uint8)
		f, b := c.img.Palette[fg].(color.RGBA), c.img.Palette[bg].(color.RGBA)
		full := len(c.img.Palette)+levels-2 > 256
		for l := 1; l < levels-1; l++ {
			if full { // no room: the nearer flat colour
				t[l] = map[bool]uint8{true: fg, false: bg}[l >= levels/2]
				continue
			}
			mix := func(x, y uint8) uint8 { return uint8((int(x)*l + int(y)*(levels-1-l) + (levels-1)/2) / (levels - 1)) }
			c.img.Palette = append(c.img.Palette, color.RGBA{mix(f.R, b.R), mix(f.G, b.G), mix(f.B, b.B), 255})
			c.flat = append(c.flat, bg)
			t[l] = uint8(len(c.img.Palette) - 1)
		}
		t[0], t[levels-1] = bg, fg
		c.blends[[2]uint8{fg, bg}] = t
	}
	return t[level]
}

// rect fills a rectangle with a flat colour.
func (c *canvas) rect(r image.Rectangle, col uint8) {
	r = r.Intersect(c.img.Rect)
	for y := r.Min.Y; y < r.Max.Y; y++ {
		row := c.img.Pix[y*c.img.Stride+r.Min.X : y*c.img.Stride+r.Max.X]
		for i := range row {
			row[i] = col
		}
	}
}

// circle fills a disc with antialiased edges.
func (c *canvas) circle(cx, cy, r float64, col uint8) {
	b := image.Rect(int(cx-r-1), int(cy-r-1), int(cx+r+2), int(cy+r+2)).Intersect(c.img.Rect)
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			d := math.Hypot(float64(x)+0.5-cx, float64(y)+0.5-cy)
			cov := r - d + 0.5
			if cov <= 0 {
				continue
			}
			o := y*c.img.Stride + x
			c.img.Pix[o] = c.blend(col, c.img.Pix[o], uint8(math.Min(cov, 1)*255))
		}
	}
}

// text draws s with its baseline starting at dot and returns the dot after it. A character the font lacks
// (has reports it) is drawn as an outlined box in the room the font gives it, so that any text takes the room it
// measures and shows where something could not be drawn.
func (c *canvas) text(face font.Face, dot fixed.Point26_6, s string, col uint8, has func(rune) bool) fixed.Point26_6 {
	prev := rune(-1)
	ascent := face.Metrics().Ascent.Round()
	for _, r := range s {
		if prev >= 0 {
			dot.X += face.Kern(prev, r)
		}
		dr, mask, mp, adv, ok := face.Glyph(dot, r)
		if ok && has(r) {
			c.glyph(dr, mask, mp, col)
		} else if !unicode.IsSpace(r) && !unicode.Is(unicode.Mn, r) {
			if adv == 0 {
				adv = fixed.I(ascent * 3 / 4)
			}
			x0, x1 := (dot.X + adv/8).Round(), (dot.X + adv*7/8).Round()
			y1 := dot.Y.Round()
			y0 := y1 - ascent*7/10
			stroke := max(2, ascent/24)
			c.rect(image.Rect(x0, y0, x1, y0+stroke), col)
			c.rect(image.Rect(x0, y1-stroke, x1, y1), col)
			c.rect(image.Rect(x0, y0, x0+stroke, y1), col)
			c.rect(image.Rect(x1-stroke, y0, x1, y1), col)
		}
		dot.X += adv
		prev = r
	}
	return dot
}

func (c *canvas) glyph(dr image.Rectangle, mask image.Image, mp image.Point, col uint8) {
	clip := dr.Intersect(c.img.Rect)
	alpha, _ := mask.(*image.Alpha)
	for y := clip.Min.Y; y < clip.Max.Y; y++ {
		for x := clip.Min.X; x < clip.Max.X; x++ {
			mx, my := mp.X+x-dr.Min.X, mp.Y+y-dr.Min.Y
			var a uint8
			if alpha != nil {
				a = alpha.Pix[(my-alpha.Rect.Min.Y)*alpha.Stride+mx-alpha.Rect.Min.X]
			} else {
				_, _, _, a32 := mask.At(mx, my).RGBA()
				a = uint8(a32 >> 8)
			}
			if a == 0 {
				continue
			}
			o := y*c.img.Stride + x
			under := c.img.Pix[o]
			if a == 255 {
				c.img.Pix[o] = col
				continue
			}
			// Over an edge already blended, blend over the colour that edge was drawn on.
			c.img.Pix[o] = c.blend(col, under, a)
		}
	}
}
