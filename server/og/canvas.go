package og

import (
	"image"
	"image/color"
	"image/draw"
	"math"

	xdraw "golang.org/x/image/draw"
)

// levels is how many steps of coverage an antialiased edge has (0 and levels-1 are the flat colours).
const levels = 16

// canvas draws on a paletted image: flat colours, and antialiased edges blended from one flat colour over
// another in levels steps. A paletted PNG is a quarter of the bytes of an RGBA one to filter and compress, which
// is most of the time an image takes.
type canvas struct {
	img *image.Paletted
	// rgba, when set, is what is drawn on instead: an image with colour pictures (emoji) in it. The palette
	// still names the flat colours.
	rgba *image.RGBA
	// clip bounds what glyphs and pictures may touch: the text area, so that a glyph hanging past the end of a line
	// (a mark, a conjunct cut by a forced break) never reaches the margin.
	clip   image.Rectangle
	flat   []uint8                     // for each palette entry, the flat colour it was blended over (itself if flat)
	blends map[[2]uint8]*[levels]uint8 // (fg, bg) → the palette entry of each level
}

func newCanvas(w, h int, bg color.RGBA, rgba bool) *canvas {
	c := &canvas{img: image.NewPaletted(image.Rect(0, 0, w, h), color.Palette{bg}), flat: []uint8{0}, blends: map[[2]uint8]*[levels]uint8{}}
	c.clip = c.img.Rect
	if rgba {
		c.img.Pix = nil
		c.rgba = image.NewRGBA(image.Rect(0, 0, w, h))
		draw.Draw(c.rgba, c.rgba.Rect, image.NewUniform(bg), image.Point{}, draw.Src)
	}
	return c
}

// image is what the canvas drew, to encode.
func (c *canvas) image() image.Image {
	if c.rgba != nil {
		return c.rgba
	}
	return c.img
}

// paint blends flat colour col at coverage a (0-255) onto the pixel at (x, y).
func (c *canvas) paint(x, y int, col, a uint8) {
	if c.rgba != nil {
		o := y*c.rgba.Stride + x*4
		p := c.rgba.Pix[o : o+4 : o+4]
		f := c.img.Palette[col].(color.RGBA)
		mix := func(fg, bg uint8) uint8 { return uint8((int(fg)*int(a) + int(bg)*(255-int(a)) + 127) / 255) }
		p[0], p[1], p[2], p[3] = mix(f.R, p[0]), mix(f.G, p[1]), mix(f.B, p[2]), 255
		return
	}
	o := y*c.img.Stride + x
	if a == 255 {
		c.img.Pix[o] = col
		return
	}
	// Over an edge already blended, blend over the colour that edge was drawn on.
	c.img.Pix[o] = c.blend(col, c.img.Pix[o], a)
}

// picture draws a colour image scaled into r.
func (c *canvas) picture(r image.Rectangle, img image.Image) {
	if c.rgba != nil {
		xdraw.ApproxBiLinear.Scale(c.rgba.SubImage(c.clip).(*image.RGBA), r, img, img.Bounds(), draw.Over, nil)
	}
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
	if c.rgba != nil {
		draw.Draw(c.rgba, r, image.NewUniform(c.img.Palette[col]), image.Point{}, draw.Src)
		return
	}
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
			c.paint(x, y, col, uint8(math.Min(cov, 1)*255))
		}
	}
}

// glyph blends col through a coverage mask whose top left corner is at dr.Min.
func (c *canvas) glyph(dr image.Rectangle, mask *image.Alpha, col uint8) {
	clip := dr.Intersect(c.clip)
	for y := clip.Min.Y; y < clip.Max.Y; y++ {
		row := mask.Pix[(y-dr.Min.Y)*mask.Stride:]
		for x := clip.Min.X; x < clip.Max.X; x++ {
			a := row[x-dr.Min.X]
			if a == 0 {
				continue
			}
			c.paint(x, y, col, a)
		}
	}
}
