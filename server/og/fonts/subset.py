#!/usr/bin/python3
"""make og-fonts: the fallback fonts of the Open Graph images, cut from Debian's Noto packages with fonttools and
compressed with brotli (as WOFF2 does; a tenth smaller than zstd on fonts), into this folder (the .br files are
embedded by fonts.go and unpacked on first use).

Reproducible: the same packages give the same bytes (nothing takes the clock or a random seed). What each font
keeps is what matters on a title card:
- Noto Sans (Latin, Greek, Cyrillic in full: used for a run of text the Go fonts do not cover, such as Vietnamese),
  regular and bold;
- the Noto Sans font of each script below, whole, regular weight only (bold text is emboldened when drawn, as
  browsers do for a weight a font lacks: the bold files would add 0.8 MB to the binary);
- Chinese, Japanese and Korean: the commonly used set (GB 2312 level 1, JIS X 0208 level 1, Big5's frequent
  characters, KS X 1001's Hangul, kana and CJK punctuation), read from Python's own codecs rather than typed by
  hand; regular weight only (titles embolden it);
- emoji: every single-character emoji, the keycaps and the flags (not the skin-tone and joined sequences, which fall
  back to their parts), redrawn at 45% of the font's bitmap size (about the size of a title's
  letters) in at most 64 colours.
Hinting is dropped: the images are drawn unhinted."""
import io, os, shutil, subprocess, sys, tempfile
from fontTools import subset
from fontTools.ttLib import TTFont
from PIL import Image

NOTO = "/usr/share/fonts/truetype/noto"
CJK = "/usr/share/fonts/opentype/noto"
OUT = os.path.dirname(os.path.abspath(__file__))

SCRIPTS = ["Arabic", "Hebrew", "Devanagari", "Bengali", "Gurmukhi", "Gujarati", "Oriya", "Tamil", "Telugu",
           "Kannada", "Malayalam", "Sinhala", "Thai", "Lao", "Khmer", "Myanmar", "Armenian", "Georgian", "Ethiopic"]


def codec_range(codec, lead, trail):
    out = set()
    for a in lead:
        for b in trail:
            try:
                s = bytes([a, b]).decode(codec)
            except UnicodeDecodeError:
                continue
            out.update(ord(c) for c in s)
    return out


def cjk_common():
    chars = set()
    chars |= codec_range("gb2312", range(0xB0, 0xD8), range(0xA1, 0xFF))     # GB 2312 level 1: 3,755 hanzi
    chars |= codec_range("gb2312", range(0xA1, 0xAA), range(0xA1, 0xFF))     # its punctuation and kana
    chars |= codec_range("shift_jis", range(0x88, 0x99), range(0x40, 0xFD))  # JIS X 0208 level 1: 2,965 kanji
    chars |= codec_range("big5", range(0xA4, 0xC7), list(range(0x40, 0x7F)) + list(range(0xA1, 0xFF)))  # 5,401
    chars |= codec_range("euc_kr", range(0xB0, 0xC9), range(0xA1, 0xFF))     # KS X 1001 Hangul: 2,350
    chars |= set(range(0x3000, 0x3100)) | set(range(0x3130, 0x3190)) | set(range(0xFF00, 0xFFF0))
    return {c for c in chars if c >= 0x2E80}  # Latin, digits and symbols come from the other fonts


def cut(src, dst, unicodes=None, font_number=0, shrink_bitmaps=False):
    opts = subset.Options()
    opts.layout_features = ["*"]
    opts.hinting = False
    opts.name_IDs = [0, 1, 2, 3, 4, 5, 6, 13, 14]  # names, version, licence
    opts.notdef_outline = True
    opts.font_number = font_number
    opts.drop_tables += ["DSIG"]
    font = subset.load_font(src, opts)
    if unicodes is None:
        unicodes = {c for t in font["cmap"].tables for c in t.cmap}
    s = subset.Subsetter(opts)
    s.populate(unicodes=unicodes)
    s.subset(font)
    if shrink_bitmaps:
        halve_bitmaps(font)
    subset.save_font(font, dst, opts)


def halve_bitmaps(font):
    """Redraws every CBDT bitmap at about half its size, and scales the strike's metrics to match."""
    cblc, cbdt = font["CBLC"], font["CBDT"]
    for strike, data in zip(cblc.strikes, cbdt.strikeData):
        size = strike.bitmapSizeTable
        old = size.ppemY
        new = round(old * 0.45)
        f = new / old
        size.ppemX = size.ppemY = new
        for lm in (size.hori, size.vert):
            for k in ("ascender", "descender", "widthMax", "caretSlopeNumerator", "caretSlopeDenominator",
                      "caretOffset", "minOriginSB", "minAdvanceSB", "maxBeforeBL", "minAfterBL"):
                v = getattr(lm, k)
                if k not in ("caretSlopeNumerator", "caretSlopeDenominator"):
                    setattr(lm, k, round(v * f))
        for name in sorted(data):
            g = data[name]
            im = Image.open(io.BytesIO(g.imageData)).convert("RGBA")
            w, h = max(1, round(im.width * f)), max(1, round(im.height * f))
            im = im.resize((w, h), Image.LANCZOS).quantize(colors=64, method=Image.FASTOCTREE, dither=Image.Dither.NONE)
            b = io.BytesIO()
            im.save(b, "PNG", optimize=True)
            g.imageData = b.getvalue()
            m = g.metrics
            m.width, m.height = w, h
            m.BearingX, m.BearingY, m.Advance = round(m.BearingX * f), round(m.BearingY * f), round(m.Advance * f)


def emoji_set():
    font = TTFont(f"{NOTO}/NotoColorEmoji.ttf")
    cps = {c for t in font["cmap"].tables for c in t.cmap}
    # Without the skin tones and the zero-width joiner no joined or toned sequence survives the GSUB closure;
    # keycaps (digit + U+20E3) and flags (two regional indicators) do.
    return cps - set(range(0x1F3FB, 0x1F400)) - {0x200D}


def main():
    latin = set(range(0x20, 0x530)) | set(range(0x1C80, 0x1C90)) | set(range(0x1D00, 0x1DC0)) | set(range(0x1E00, 0x2190))
    with tempfile.TemporaryDirectory() as tmp:
        jobs = []
        for w in ["Regular", "Bold"]:
            jobs.append((f"{NOTO}/NotoSans-{w}.ttf", f"NotoSans-{w}.ttf", latin, 0, False))
        for s in SCRIPTS:
            jobs.append((f"{NOTO}/NotoSans{s}-Regular.ttf", f"NotoSans{s}-Regular.ttf", None, 0, False))
        jobs.append((f"{CJK}/NotoSansCJK-Regular.ttc", "NotoSansCJKsc-Regular.otf", cjk_common(), 2, False))
        jobs.append((f"{NOTO}/NotoColorEmoji.ttf", "NotoColorEmoji.ttf", emoji_set(), 0, True))
        for f in os.listdir(OUT):
            if f.endswith(".br"):
                os.remove(os.path.join(OUT, f))
        for src, dst, cps, n, shrink in jobs:
            out = os.path.join(tmp, dst)
            cut(src, out, cps, n, shrink)
            subprocess.run(["brotli", "-q", "11", "-w", "24", "-f", "-o", os.path.join(OUT, dst + ".br"), out], check=True)
    lic = os.path.join(OUT, "LICENSES")
    os.makedirs(lic, exist_ok=True)
    for pkg in ["fonts-noto-core", "fonts-noto-cjk", "fonts-noto-color-emoji"]:
        shutil.copyfile(f"/usr/share/doc/{pkg}/copyright", os.path.join(lic, pkg + ".copyright"))
    # The emoji font is under the Apache License, which Debian's copyright file names but does not hold.
    shutil.copyfile("/usr/share/common-licenses/Apache-2.0", os.path.join(lic, "Apache-2.0"))
    # Which packages the fonts were cut from: re-running this with other versions gives other fonts.
    versions = subprocess.run(["dpkg-query", "-W", "-f", "${Package} ${Version}\n", "fonts-noto-core", "fonts-noto-cjk",
                               "fonts-noto-color-emoji", "python3-fonttools", "brotli"], check=True, capture_output=True, text=True).stdout
    with open(os.path.join(lic, "SOURCES"), "w") as f:
        f.write("# Debian packages the embedded fonts were cut from by subset.py (make og-fonts)\n" + versions)


if __name__ == "__main__":
    main()
