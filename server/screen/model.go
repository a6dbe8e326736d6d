package screen

import (
	"bytes"
	_ "embed"
	"encoding/binary"
	"math"
	"math/bits"
	"slices"
	"sync"
	"unicode"
	"unsafe"
)

// The statistical classifier: a multinomial logistic regression over hashed features of a note's views (words and
// word pairs of the leet reading, its letter-joined words, character n-grams of the leet reading, and characters
// of scripts written without spaces). It is trained in the repo from testdata/train.tsv by TestTrainModel
// (make screen-model), deterministically, and its weights are committed as model.bin. It is one more signal
// beside the rules: it refuses a note only when it is confident the note is harmful.

// featureBits sets the number of hash buckets: 2^19. In cross-validation on train.tsv (cv_test.go), 2^16 buckets
// lost six points of recall at the same false rejections to collisions between features; 2^19 lost less than one
// point against 2^20, at half the size.
const (
	featureBits = 19
	features    = 1 << featureBits
)

// classes are the model's outputs: "" (publish) and the categories.
var classes = append([]Category{""}, Categories...)

//go:embed model.bin
var modelBin []byte

// model is the trained classifier: weights quantised to int8 per class, a bias per class, and the thresholds under
// which the probability of "publish" refuses a note: one for short notes (at most shortWords words) and one for
// the rest, each keeping the refusals of benign notes of its length within the budget.
type model struct {
	scale []float32 // per class
	bias  []float32 // per class
	// weights are feature-major (weights[f*rowBytes+c]), each int8 weight stored plus 128 (as a byte), so that a
	// row's bytes add up eight at a time in lanes of 16 bits. A row is padded to 16 bytes: aligned, it never
	// straddles two cache lines, and a row of a loaded server's table is mostly read from memory.
	weights        []byte
	threshold      float32
	shortThreshold float32
}

// shortWords is the longest a short note is, for its own threshold: a note of a few words gives the model little
// evidence, and the budget of false refusals must hold for short notes too, not only on average.
const shortWords = 9

const modelMagic = "twofold-screen-model-4\n"

// loadModel reads model.bin, once per process: every pipeline shares the model, which never changes. It answers nil
// when there is none yet (before the first training).
var loadModel = sync.OnceValue(func() *model {
	m, err := decodeModel(modelBin)
	if err != nil {
		return nil
	}
	return m
})

// rowBytes is the length of a row of weights in memory: the classes' weights and padding.
const rowBytes = 16

func decodeModel(b []byte) (*model, error) {
	k := len(classes)
	want := len(modelMagic) + 8 + 8*k + features*k
	if !bytes.HasPrefix(b, []byte(modelMagic)) || len(b) != want || k > 16 { // sums reads rows of 16 bytes at most
		return nil, errModelFormat
	}
	b = b[len(modelMagic):]
	m := &model{scale: make([]float32, k), bias: make([]float32, k), weights: make([]byte, features*rowBytes)}
	m.threshold = math.Float32frombits(binary.LittleEndian.Uint32(b))
	m.shortThreshold = math.Float32frombits(binary.LittleEndian.Uint32(b[4:]))
	b = b[8:]
	for c := range k {
		m.scale[c] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*c:]))
		m.bias[c] = math.Float32frombits(binary.LittleEndian.Uint32(b[4*(k+c):]))
	}
	b = b[8*k:]
	for f := range features {
		for c := range k {
			m.weights[f*rowBytes+c] = b[f*k+c] ^ 0x80 // int8 w as w+128
		}
	}
	return m, nil
}

type modelError string

func (e modelError) Error() string { return string(e) }

const errModelFormat = modelError("screen: model.bin is not a model of this version")

// encodeModel writes the weights of a trained model, quantised, with no thresholds (it refuses nothing).
func encodeModel(w [][]float64, bias []float64) []byte {
	return encodeModelWithThresholds(w, bias, 0, 0)
}

// encodeModelWithThresholds writes the weights of a trained model, quantised, and its thresholds.
func encodeModelWithThresholds(w [][]float64, bias []float64, threshold, short float64) []byte {
	k := len(classes)
	var b bytes.Buffer
	b.WriteString(modelMagic)
	b.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(threshold))))
	b.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(short))))
	scales := make([]float64, k)
	for c := range k {
		for f := range features {
			scales[c] = max(scales[c], math.Abs(w[f][c]))
		}
		scales[c] /= 127
		if scales[c] == 0 {
			scales[c] = 1
		}
	}
	for c := range k {
		b.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(scales[c]))))
	}
	for c := range k {
		b.Write(binary.LittleEndian.AppendUint32(nil, math.Float32bits(float32(bias[c]))))
	}
	for f := range features {
		for c := range k {
			b.WriteByte(byte(int8(math.Round(w[f][c] / scales[c]))))
		}
	}
	return b.Bytes()
}

// minModelWords is the fewest words the model judges: on fewer it has too little to go on.
const minModelWords = 4

// classify returns the category the model gives the note, or "" unless it is confident the note is harmful.
func (m *model) classify(v views) Category {
	if len(v.words) < minModelWords && !nonSpaced(v.native) {
		return ""
	}
	buf := featureBufs.Get().(*featureBuf)
	buf.fs = distinct(hashFeatures(v, buf), buf)
	buf.touched = m.touch(buf.fs)
	z := m.logits(buf.fs)
	featureBufs.Put(buf)
	t := m.threshold
	if len(v.words) <= shortWords {
		t = m.shortThreshold
	}
	if surelyAtLeast(z[:len(classes)], t) {
		return "" // most notes: no need for the other probabilities
	}
	p := softmax32(z[:len(classes)])
	if p[0] >= t {
		return ""
	}
	return harmfulClass(p)
}

// surelyAtLeast reports whether the probability of the first class that softmax32 gives logits z is at least t,
// from one exponential instead of one per class: it is at least 1/(1+(k-1)·e^(max-z0)), where max is the largest of
// the other logits. The bound must clear t by far more than the rounding of float32 arithmetic, so that a note
// it cannot tell about (one near the threshold) is left to the softmax, which gives the same answer as before.
func surelyAtLeast(z []float32, t float32) bool {
	top := slices.Max(z[1:])
	if top > z[0] {
		return false
	}
	bound := 1 / (1 + float64(len(z)-1)*math.Exp(float64(top-z[0])))
	return bound >= float64(t)+1e-4
}

// touch reads a byte of the row of each feature of fs, before sums adds them up: most rows are in memory, not in a
// cache, when the model is asked (always so in a loaded server), and a pass that does nothing else with them has
// many of their reads in flight at once, where sums waits on each in turn. The byte it returns is kept in the
// caller's memory, or the reads would be compiled away. (BenchmarkLocalShort and BenchmarkLocalCorpus, whose
// notes differ: about 4% less; a short post inside make bench-board's server: about 1 µs of 17.)
func (m *model) touch(fs []uint32) byte {
	var b byte
	for _, f := range fs {
		b |= m.weights[int(f&(features-1))*rowBytes]
	}
	return b
}

// harmfulClass is the harmful class the probabilities p (one per class, "" first) make likeliest. Sexual content
// the model half believes is about a minor is read as about a minor: the one mistake the screen must never make
// is to call a sexual note about a child merely sexual.
func harmfulClass(p []float32) Category {
	best := 1
	for c := 2; c < len(p); c++ {
		if p[c] > p[best] {
			best = c
		}
	}
	if classes[best] == Sexual && p[slices.Index(classes, SexualMinors)] >= p[best]/2 {
		return SexualMinors
	}
	return classes[best]
}

func (m *model) probabilities(fs []uint32) []float32 {
	z := m.logits(fs)
	return softmax32(slices.Clone(z[:len(classes)]))
}

// logits are the scores of the classes for features fs (the first len(classes) of them), before the softmax.
func (m *model) logits(fs []uint32) [16]float32 {
	acc := m.sums(fs)
	norm := float32(1 / math.Sqrt(float64(max(1, len(fs)))))
	var z [16]float32
	for c := range len(classes) {
		z[c] = m.bias[c] + float32(acc[c])*m.scale[c]*norm
	}
	return z
}

// sums adds up the quantised weights of features fs per class, exactly, as integers: each feature's row of (up to
// sixteen) weights is read as two words and added eight bytes at a time, the even and odd bytes in lanes of 16 bits,
// into sums of the features with a plus sign and of those with a minus sign. A lane holds 256 weights of 255 at
// most; the lanes are emptied into the sums that often.
func (m *model) sums(fs []uint32) [16]int32 {
	const lanes = 0x00FF00FF00FF00FF
	k := len(classes)
	var sums [16]int32
	var add [2][4]uint64 // per sign: the even and odd bytes of the two words
	var n [2]int32       // per sign, rows added
	var inLanes [2]int
	for _, f := range fs {
		b, sign := bucket(f)
		s := (1 - sign) / 2 // 0 for plus, 1 for minus
		row := m.weights[b*rowBytes : b*rowBytes+rowBytes]
		lo, hi := binary.LittleEndian.Uint64(row), binary.LittleEndian.Uint64(row[8:])
		a := &add[s]
		a[0] += lo & lanes
		a[1] += lo >> 8 & lanes
		a[2] += hi & lanes
		a[3] += hi >> 8 & lanes
		n[s]++
		if inLanes[s]++; inLanes[s] == 256 {
			m.empty(&sums, a, s)
			inLanes[s] = 0
		}
	}
	m.empty(&sums, &add[0], 0)
	m.empty(&sums, &add[1], 1)
	for c := range k { // every weight was given 128
		sums[c] -= 128 * (n[0] - n[1])
	}
	clear(sums[k:]) // the bytes of the next row
	return sums
}

// empty moves the lanes of a into sums, added for sign s 0 and subtracted for 1, and clears them.
func (m *model) empty(sums *[16]int32, a *[4]uint64, s int) {
	for w := range 2 {
		for lane := range 4 {
			even := int32(a[2*w] >> (16 * lane) & 0xFFFF)
			odd := int32(a[2*w+1] >> (16 * lane) & 0xFFFF)
			if s == 1 {
				even, odd = -even, -odd
			}
			sums[8*w+2*lane] += even
			sums[8*w+2*lane+1] += odd
		}
	}
	*a = [4]uint64{}
}

func softmax32(z []float32) []float32 {
	top := slices.Max(z)
	var sum float32
	for i, x := range z {
		z[i] = float32(math.Exp(float64(x - top)))
		sum += z[i]
	}
	for i := range z {
		z[i] /= sum
	}
	return z
}

// nonSpaced reports text in a script written without spaces (Chinese, Japanese, Thai), where words are not counted.
func nonSpaced(s string) bool {
	for _, r := range s {
		if unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Thai) {
			return true
		}
	}
	return false
}

// featureBuf is the memory featuresOf works in, kept between notes: a note has a thousand features or more.
type featureBuf struct {
	fs, tmp, seen []uint32
	touched       byte // what touch read
	line          []byte
}

var featureBufs = sync.Pool{New: func() any { return new(featureBuf) }}

// featuresOf hashes the features of a note's views into buckets, each once, sorted. buf, when not nil, lends its
// memory (the result is buf.fs's array, grown as needed).
func featuresOf(v views, buf *featureBuf) []uint32 {
	if buf == nil {
		buf = new(featureBuf)
	}
	return unique(hashFeatures(v, buf), buf)
}

// hashFeatures hashes the features of a note's views into buckets, in no order and with repeats, into buf.fs.
func hashFeatures(v views, buf *featureBuf) []uint32 {
	fs := buf.fs[:0]
	add := func(kind byte, parts ...string) {
		h := uint32(2166136261)
		h = (h ^ uint32(kind)) * 16777619
		for i, p := range parts {
			if i > 0 {
				h = (h ^ ' ') * 16777619
			}
			for j := 0; j < len(p); j++ {
				h = (h ^ uint32(p[j])) * 16777619
			}
		}
		// The bucket, and a sign from another bit of the hash: features that share a bucket add with signs of
		// their own, so a collision cancels out on average instead of always pushing one way.
		fs = append(fs, h&(features-1)|h>>31<<featureBits)
	}
	for i, w := range v.leet {
		add('w', w)
		if i > 0 {
			add('b', v.leet[i-1], w)
		}
	}
	for _, w := range v.joined {
		add('j', w)
	}
	// Character n-grams of three to five bytes, each hashed as add hashes it (its kind is its length), the three
	// that start at a byte in one pass: the order they are listed in is sorted away below.
	// The line is written in the buffer's memory, kept between notes.
	b := append(buf.line[:0], ' ')
	for i, w := range v.leet {
		if i > 0 {
			b = append(b, ' ')
		}
		b = append(b, w...)
	}
	b = append(b, ' ') // " " + strings.Join(v.leet, " ") + " "
	buf.line = b
	line := unsafe.String(unsafe.SliceData(b), len(b))
	const basis, prime = 2166136261, 16777619
	gram := func(h uint32) uint32 { return h&(features-1) | h>>31<<featureBits }
	seed := func(kind byte) uint32 { h := uint32(basis); return (h ^ uint32(kind)) * prime }
	s3, s4, s5 := seed('3'), seed('4'), seed('5')
	for i := 0; i+3 <= len(line); i++ {
		h3, h4, h5 := s3, s4, s5
		for _, c := range []byte(line[i : i+3]) {
			h3, h4, h5 = (h3^uint32(c))*prime, (h4^uint32(c))*prime, (h5^uint32(c))*prime
		}
		fs = append(fs, gram(h3))
		if i+4 <= len(line) {
			h4, h5 = (h4^uint32(line[i+3]))*prime, (h5^uint32(line[i+3]))*prime
			fs = append(fs, gram(h4))
			if i+5 <= len(line) {
				fs = append(fs, gram((h5^uint32(line[i+4]))*prime))
			}
		}
	}
	// Scripts written without spaces (Chinese, Japanese, Thai...) and other non-Latin text: characters and pairs.
	var prev rune
	for _, r := range v.native {
		if r >= 0x370 && unicode.IsLetter(r) {
			add('u', string(r))
			if prev != 0 {
				add('p', string(prev), string(r))
			}
			prev = r
		} else {
			prev = 0
		}
	}
	return fs
}

// unique sorts the features fs and drops repeats, in buf's memory.
func unique(fs []uint32, buf *featureBuf) []uint32 {
	buf.tmp = slices.Grow(buf.tmp[:0], len(fs))[:len(fs)]
	radixSort(fs, buf.tmp)
	return slices.Compact(fs)
}

// distinct drops the repeats of features fs in place and keeps their order: the set unique keeps, unsorted, which
// is all sums needs. A table of at least twice as many slots as features, open addressed, is a third of the cost
// of sorting the few hundred features of a short note (and radixSort's counts are memory a loaded server has
// evicted).
func distinct(fs []uint32, buf *featureBuf) []uint32 {
	size := 1 << max(9, bits.Len(uint(2*len(fs))))
	if cap(buf.seen) < size {
		buf.seen = make([]uint32, size)
	}
	seen := buf.seen[:size]
	clear(seen)
	shift := 32 - bits.Len(uint(size-1))
	out := fs[:0]
	for _, f := range fs {
		g := f + 1 // 0 is an empty slot
		for i := g * 2654435761 >> shift; ; i = (i + 1) & uint32(size-1) {
			if seen[i] == 0 {
				seen[i] = g
				out = append(out, f)
				break
			}
			if seen[i] == g {
				break
			}
		}
	}
	return out
}

// Feature numbers (a bucket and a sign bit) must fit radixSort's twenty bits: this does not compile when
// featureBits grows past them.
const _ = uint(20 - featureBits - 1)

// bucket splits a feature into its hash bucket and its sign.
func bucket(f uint32) (int, int) {
	return int(f & (features - 1)), 1 - 2*int(f>>featureBits&1)
}

// radixSort sorts feature numbers (below 2^20) in two passes of ten bits: the same order as slices.Sort, without
// its comparisons, on the thousand or so features of every note.
// tmp is scratch memory as long as fs.
func radixSort(fs, tmp []uint32) {
	for _, shift := range []uint{0, 10} {
		var count [1 << 10]int
		for _, f := range fs {
			count[f>>shift&(1<<10-1)]++
		}
		pos := 0
		for i, c := range count {
			count[i] = pos
			pos += c
		}
		for _, f := range fs {
			d := f >> shift & (1<<10 - 1)
			tmp[count[d]] = f
			count[d]++
		}
		copy(fs, tmp)
	}
}
