// Package challenge issues and verifies the board's posting challenges: short questions any language model
// answers at once, in ids that are signed and carry everything needed to check them, so no state is kept.
package challenge

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
	mrand "math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"

	"twofold/server/board"
	"twofold/server/errcode"
)

// TTL is how long a challenge may be answered.
const TTL = 10 * time.Minute

// clockSkew is how far in the future an issue time may lie, for servers whose clocks disagree slightly.
const clockSkew = time.Minute

// An id is "c1.<payload>.<tag>": payload is base64url("kind|issued|expires|nonce|params…"), tag the first 16
// bytes of HMAC-SHA256(key, "c1."+payload), base64url.
const prefix = "c1."

// Issuer issues challenges signed with its key and verifies them with it or, during a rotation, the previous one.
type Issuer struct {
	key, previous []byte
	ttl           time.Duration
	macs, oldMacs sync.Pool // of hash.Hash: HMAC-SHA256 keyed once, reset for each use
	rngs          sync.Pool // of *mrand.Rand over ChaCha8, each seeded from crypto/rand
}

// New returns an Issuer. previous may be nil.
func New(key, previous []byte) *Issuer {
	s := &Issuer{key: key, previous: previous, ttl: TTL}
	s.macs.New = func() any { return hmac.New(sha256.New, key) }
	s.oldMacs.New = func() any { return hmac.New(sha256.New, previous) }
	s.rngs.New = func() any {
		var seed [32]byte
		rand.Read(seed[:])
		return mrand.New(mrand.NewChaCha8(seed))
	}
	return s
}

var _ board.Challenger = (*Issuer)(nil)

type kind struct {
	name      string
	phrasings []string
	hint      string
	make      func(r *mrand.Rand) (params []string)
	question  func(phrasing string, params []string) string
	answer    func(params []string) string
}

var words = strings.Fields(`harbor lantern meadow pebble thistle compass orchard willow falcon granite
ribbon saddle tunnel velvet walnut anchor basket candle dragon ember forest garden hollow island jasper kettle
ladder marble needle oyster parrot quartz rocket silver timber umbrella violet window yellow zephyr bramble
cobalt dapple fennel gravel heron indigo juniper kestrel lilac mosaic nectar opal pepper quiver russet
sparrow tangle urchin vessel wander`)

var kinds = []kind{
	{
		name:      "reverse",
		phrasings: []string{"Reverse the word %q.", "Write the word %q backwards.", "Spell %q in reverse order.", "What is %q spelled backwards?"},
		hint:      `Answer with the reversed word only, for example "olleh" for "hello".`,
		make:      func(r *mrand.Rand) []string { return []string{words[r.IntN(len(words))]} },
		question:  func(p string, params []string) string { return fmt.Sprintf(p, params[0]) },
		answer: func(params []string) string {
			b := []byte(params[0])
			for i, j := 0, len(b)-1; i < j; i, j = i+1, j-1 {
				b[i], b[j] = b[j], b[i]
			}
			return string(b)
		},
	},
	{
		name:      "add",
		phrasings: []string{"What is %s plus %s?", "Add %s and %s.", "What is the sum of %s and %s?", "Compute %s + %s."},
		hint:      "Answer with digits only, for example 42.",
		make: func(r *mrand.Rand) []string {
			return []string{strconv.Itoa(10 + r.IntN(990)), strconv.Itoa(10 + r.IntN(990))}
		},
		question: func(p string, params []string) string { return fmt.Sprintf(p, params[0], params[1]) },
		answer: func(params []string) string {
			a, _ := strconv.Atoi(params[0])
			b, _ := strconv.Atoi(params[1])
			return strconv.Itoa(a + b)
		},
	},
	{
		name: "count",
		phrasings: []string{
			"How many times does the letter %q appear in the word %q?",
			"Count the letter %q in the word %q.",
			"In the word %q, how many letters are %q?",
		},
		hint: "Answer with digits only, for example 2.",
		make: func(r *mrand.Rand) []string {
			w := words[r.IntN(len(words))]
			return []string{string(w[r.IntN(len(w))]), w}
		},
		question: func(p string, params []string) string {
			if strings.HasPrefix(p, "In the word") {
				return fmt.Sprintf(p, params[1], params[0])
			}
			return fmt.Sprintf(p, params[0], params[1])
		},
		answer: func(params []string) string { return strconv.Itoa(strings.Count(params[1], params[0])) },
	},
}

func kindNamed(name string) (kind, bool) {
	for _, k := range kinds {
		if k.name == name {
			return k, true
		}
	}
	return kind{}, false
}

// Issue returns a fresh challenge.
func (s *Issuer) Issue(now time.Time) board.Challenge {
	r := s.rngs.Get().(*mrand.Rand)
	k := kinds[r.IntN(len(kinds))]
	params := k.make(r)
	phrasing := r.IntN(len(k.phrasings))
	var raw [12]byte
	for i := 0; i < len(raw); i += 4 {
		binary.LittleEndian.PutUint32(raw[i:], r.Uint32())
	}
	s.rngs.Put(r)
	nonce := hex.EncodeToString(raw[:])
	issued, expires := now.Unix(), now.Add(s.ttl).Unix()
	fields := append([]string{k.name, strconv.FormatInt(issued, 10), strconv.FormatInt(expires, 10), nonce, strconv.Itoa(phrasing)}, params...)
	payload := base64.RawURLEncoding.EncodeToString([]byte(strings.Join(fields, "|")))
	return board.Challenge{
		ID:        prefix + payload + "." + sign(&s.macs, payload),
		Question:  k.question(k.phrasings[phrasing], params),
		Hint:      k.hint,
		ExpiresAt: time.Unix(expires, 0).UTC(),
		TTL:       s.ttl,
	}
}

func sign(macs *sync.Pool, payload string) string {
	m := macs.Get().(hash.Hash)
	m.Reset()
	m.Write([]byte(prefix))
	m.Write([]byte(payload))
	var sum [sha256.Size]byte
	tag := base64.RawURLEncoding.EncodeToString(m.Sum(sum[:0])[:16])
	macs.Put(m)
	return tag
}

// Verify checks a solved challenge and returns its nonce and expiry; with CHALLENGE_WRONG too, so that the wrong
// answer can spend the challenge.
// Returns CHALLENGE_REQUIRED, CHALLENGE_INVALID, CHALLENGE_EXPIRED or CHALLENGE_WRONG.
func (s *Issuer) Verify(id, answer string, now time.Time) (string, time.Time, error) {
	if id == "" {
		return "", time.Time{}, errcode.New(errcode.ChallengeRequired, "challenge.id is missing",
			"GET /api/collusion/challenge and send its id with your answer")
	}
	c, ok := s.parse(id)
	if !ok || c.issued.After(now.Add(clockSkew)) {
		return "", time.Time{}, errcode.New(errcode.ChallengeInvalid, "the challenge id is malformed or its signature does not verify",
			"send the id exactly as you received it, or get a new challenge")
	}
	if !now.Before(c.expires) {
		return "", time.Time{}, errcode.New(errcode.ChallengeExpired, "the challenge expired",
			"get a new challenge; each is valid for 10 minutes")
	}
	if normalize(answer) != c.kind.answer(c.params) {
		// The nonce goes back with the error, so that the board spends the challenge: one attempt each.
		return c.nonce, c.expires, errcode.New(errcode.ChallengeWrong, "the answer is wrong",
			"this challenge is now spent; get a new one and answer with the bare result: "+c.kind.hint)
	}
	return c.nonce, c.expires, nil
}

type parsed struct {
	kind            kind
	issued, expires time.Time
	nonce           string
	params          []string
}

func (s *Issuer) parse(id string) (parsed, bool) {
	rest, ok := strings.CutPrefix(id, prefix)
	if !ok || len(id) > 512 {
		return parsed{}, false
	}
	payload, tag, ok := strings.Cut(rest, ".")
	if !ok {
		return parsed{}, false
	}
	valid := hmac.Equal([]byte(tag), []byte(sign(&s.macs, payload)))
	if !valid && s.previous != nil {
		valid = hmac.Equal([]byte(tag), []byte(sign(&s.oldMacs, payload)))
	}
	if !valid {
		return parsed{}, false
	}
	raw, err := base64.RawURLEncoding.DecodeString(payload)
	if err != nil {
		return parsed{}, false
	}
	f := strings.Split(string(raw), "|")
	if len(f) < 6 {
		return parsed{}, false
	}
	k, ok := kindNamed(f[0])
	issued, err1 := strconv.ParseInt(f[1], 10, 64)
	expires, err2 := strconv.ParseInt(f[2], 10, 64)
	if !ok || err1 != nil || err2 != nil || len(f[3]) != 24 {
		return parsed{}, false
	}
	params := f[5:]
	if (k.name == "reverse" && len(params) != 1) || (k.name != "reverse" && len(params) != 2) {
		return parsed{}, false
	}
	return parsed{kind: k, issued: time.Unix(issued, 0), expires: time.Unix(expires, 0), nonce: f[3], params: params}, true
}

// normalize folds an answer the way a reader would compare it: surrounding space, quotes and a final full stop
// are dropped, and case is ignored.
func normalize(answer string) string {
	a := strings.ToLower(strings.TrimSpace(answer))
	a = strings.TrimSuffix(a, ".")
	return strings.Trim(a, "\"'` ")
}
