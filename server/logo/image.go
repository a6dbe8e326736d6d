package logo

import (
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"hash/fnv"
	"html"
	"image"
	"image/gif"
	"image/jpeg"
	"image/png"
	"io"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"golang.org/x/image/draw"
	"golang.org/x/image/webp"
	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// Limits of the images a lookup accepts.
const (
	MaxImageSide  = 2048 // larger images are refused before they are decoded
	ConvertedSide = 256  // converted images are scaled down to fit this square
)

var pngSignature = []byte("\x89PNG\r\n\x1a\n")

// Image checks that body is an image the service may serve and returns the bytes to serve and their type: PNG and
// ICO as they are, after they decode; JPEG, GIF and WebP decoded and encoded as PNG (scaled down to fit
// ConvertedSide); anything else, SVG included, is an error.
func Image(body []byte) ([]byte, string, error) {
	switch {
	case bytes.HasPrefix(body, pngSignature):
		if err := decodes(body, png.DecodeConfig, png.Decode); err != nil {
			return nil, "", err
		}
		return body, "image/png", nil
	case bytes.HasPrefix(body, []byte{0, 0, 1, 0}):
		if err := checkICO(body); err != nil {
			return nil, "", err
		}
		return body, "image/x-icon", nil
	case bytes.HasPrefix(body, []byte{0xff, 0xd8, 0xff}):
		return convert(body, jpeg.DecodeConfig, jpeg.Decode)
	case bytes.HasPrefix(body, []byte("GIF87a")) || bytes.HasPrefix(body, []byte("GIF89a")):
		return convert(body, gif.DecodeConfig, gif.Decode)
	case len(body) > 12 && string(body[:4]) == "RIFF" && string(body[8:12]) == "WEBP":
		return convert(body, webp.DecodeConfig, webp.Decode)
	}
	return nil, "", errors.New("not a PNG, ICO, JPEG, GIF or WebP image")
}

type (
	configFunc func(io.Reader) (image.Config, error)
	decodeFunc func(io.Reader) (image.Image, error)
)

// decodes checks the size from the header, then decodes the whole image.
func decodes(body []byte, config configFunc, decode decodeFunc) error {
	_, err := decodeImage(body, config, decode)
	return err
}

func decodeImage(body []byte, config configFunc, decode decodeFunc) (image.Image, error) {
	c, err := config(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("image header: %w", err)
	}
	if c.Width < 1 || c.Height < 1 || c.Width > MaxImageSide || c.Height > MaxImageSide {
		return nil, fmt.Errorf("image of %dx%d is outside the accepted sizes", c.Width, c.Height)
	}
	img, err := decode(bytes.NewReader(body))
	if err != nil {
		return nil, fmt.Errorf("image data: %w", err)
	}
	return img, nil
}

// convert decodes an image and encodes it as PNG, no larger than ConvertedSide on either side.
func convert(body []byte, config configFunc, decode decodeFunc) ([]byte, string, error) {
	img, err := decodeImage(body, config, decode)
	if err != nil {
		return nil, "", err
	}
	b := img.Bounds()
	if w, h := b.Dx(), b.Dy(); w > ConvertedSide || h > ConvertedSide {
		scale := float64(ConvertedSide) / float64(max(w, h))
		dst := image.NewNRGBA(image.Rect(0, 0, max(1, int(math.Round(float64(w)*scale))), max(1, int(math.Round(float64(h)*scale)))))
		draw.CatmullRom.Scale(dst, dst.Bounds(), img, b, draw.Src, nil)
		img = dst
	}
	var out bytes.Buffer
	if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(&out, img); err != nil {
		return nil, "", err
	}
	return out.Bytes(), "image/png", nil
}

// checkICO checks an ICO file's directory and each image it points to: PNG images must decode, BMP images must
// carry a sane header.
func checkICO(b []byte) error {
	if len(b) < 6 {
		return errors.New("ICO: short header")
	}
	n := int(binary.LittleEndian.Uint16(b[4:]))
	if n == 0 || n > 64 || len(b) < 6+16*n {
		return fmt.Errorf("ICO: %d images in the directory", n)
	}
	for i := range n {
		e := b[6+16*i:]
		size, off := binary.LittleEndian.Uint32(e[8:]), binary.LittleEndian.Uint32(e[12:])
		if size == 0 || uint64(off)+uint64(size) > uint64(len(b)) || off < uint32(6+16*n) {
			return fmt.Errorf("ICO: image %d lies outside the file", i)
		}
		data := b[off : off+size]
		if bytes.HasPrefix(data, pngSignature) {
			if err := decodes(data, png.DecodeConfig, png.Decode); err != nil {
				return fmt.Errorf("ICO: image %d: %w", i, err)
			}
			continue
		}
		if len(data) < 40 || binary.LittleEndian.Uint32(data) != 40 {
			return fmt.Errorf("ICO: image %d is neither PNG nor a bitmap", i)
		}
		w, h := int32(binary.LittleEndian.Uint32(data[4:])), int32(binary.LittleEndian.Uint32(data[8:]))
		bpp := binary.LittleEndian.Uint16(data[14:])
		if w <= 0 || w > 256 || h <= 0 || h > 512 || (bpp != 1 && bpp != 4 && bpp != 8 && bpp != 24 && bpp != 32) {
			return fmt.Errorf("ICO: image %d has a bitmap header of %dx%d at %d bits", i, w, h, bpp)
		}
		if need := int64(w) * int64(h/2) * int64(bpp) / 8; int64(len(data)-40) < need {
			return fmt.Errorf("ICO: image %d is truncated", i)
		}
	}
	return nil
}

// Placeholder is the generated monogram of a domain.
func Placeholder(domain string) Logo {
	svg := Monogram(domain)
	return Logo{Data: svg, ContentType: "image/svg+xml", ETag: etag(svg), Placeholder: true}
}

// Monogram draws the initials of a domain's registrable name (up to two, from its hyphenated parts, in its Unicode
// form) on a colour derived from the whole domain, as a 128×128 SVG. The text is escaped.
func Monogram(domain string) []byte {
	name := domain
	if etld1, err := publicsuffix.EffectiveTLDPlusOne(domain); err == nil {
		suffix, _ := publicsuffix.PublicSuffix(domain)
		name = strings.TrimSuffix(etld1, "."+suffix)
	}
	if u, err := idna.ToUnicode(name); err == nil {
		name = u
	}
	var initials []rune
	for _, part := range strings.FieldsFunc(name, func(r rune) bool { return r == '-' || r == '.' || r == '_' }) {
		r, _ := utf8.DecodeRuneInString(part)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			initials = append(initials, unicode.ToUpper(r))
		}
		if len(initials) == 2 {
			break
		}
	}
	if len(initials) == 0 {
		initials = []rune{'?'}
	}
	h := fnv.New32a()
	h.Write([]byte(domain))
	hue := h.Sum32() % 360
	size := 64
	if len(initials) == 2 {
		size = 52
	}
	return fmt.Appendf(nil, `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128" viewBox="0 0 128 128" role="img" aria-label="%s">`+
		`<rect width="128" height="128" rx="24" fill="hsl(%d,55%%,38%%)"/>`+
		`<text x="64" y="64" dy=".35em" text-anchor="middle" font-family="system-ui,-apple-system,Segoe UI,Roboto,sans-serif" font-size="%d" font-weight="600" fill="#fff">%s</text></svg>`,
		html.EscapeString(domain), hue, size, html.EscapeString(string(initials)))
}
