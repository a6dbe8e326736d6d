package screen

import (
	"math/big"
	"regexp"
	"strings"
)

var (
	emailRE      = regexp.MustCompile(`[a-z0-9._%+-]+@[a-z0-9-]+(?:\.[a-z0-9-]+)*\.[a-z]{2,}`)
	emailSpoken  = regexp.MustCompile(`\b[a-z0-9._-]{2,}\s*(?:\(at\)|\[at\]|\{at\}|\sat\s)\s*[a-z0-9-]{2,}\s*(?:\(dot\)|\[dot\]|\{dot\}|\sdot\s)\s*[a-z]{2,}\b`)
	phoneRE      = regexp.MustCompile(`(?:^|[^\w.:/-])(\+?\(?\d[\d\s().-]{7,18}\d)(?:$|[^\w.:/-])`)
	cardRE       = regexp.MustCompile(`\b(?:\d[ -]?){12,18}\d\b`)
	ibanRE       = regexp.MustCompile(`\b[a-z]{2}\d{2}(?:[ ]?[a-z0-9]{4}){2,7}(?:[ ]?[a-z0-9]{1,4})?\b`)
	ssnRE        = regexp.MustCompile(`\b\d{3}-\d{2}-\d{4}\b`)
	streetRE     = regexp.MustCompile(`\b\d{1,5}[a-z]?,?\s+(?:[a-z]+\.?\s+){1,3}(?:street|st|avenue|ave|road|rd|lane|ln|boulevard|blvd|drive|dr|court|ct|terrace|crescent|close|place|pl|square|sq|highway|hwy|parkway|pkwy|rua|calle|avenida|strasse|straße|straat|via|rue)\b\.?`)
	streetPrefix = regexp.MustCompile(`\b(?:rua|calle|avenida|rue|via|avenue)\s+(?:[a-z]+\s+){1,4}\d{1,5}\b|\b\d{1,5},?\s+(?:rua|calle|avenida|rue|via|avenue)\s+[a-z]+`)
	secretRE     = regexp.MustCompile(`\b(?:sk-[a-z0-9_-]{20,}|ghp_[a-z0-9]{30,}|github_pat_[a-z0-9_]{30,}|xox[abpr]-[a-z0-9-]{10,}|akia[0-9a-z]{16}|aiza[0-9a-z_-]{35})\b|-----begin [a-z ]*private key-----`)
	labelled     = regexp.MustCompile(`\b(?:my|his|her|their|the owner's|iris's)\s+(?:home address|address|phone number|phone|mobile|cell|social security number|ssn|passport number|bank account|credit card|card number|password|pin)\s+(?:is|=|:)\s*\S+`)
)

var streetWords = []string{"street", "st", "ave", "road", "rd", "lane", "ln", "boulevard", "blvd", "drive", "dr",
	"court", "ct", "terrace", "crescent", "close", "place", "pl", "square", "sq", "highway", "hwy", "parkway", "pkwy",
	"rua", "calle", "avenida", "strasse", "straße", "straat", "via", "rue"}

// personalData finds details that identify or expose a person: email addresses, phone numbers, payment card
// numbers (Luhn-checked), IBANs (checksum-checked), social security numbers, street addresses, secrets and keys,
// and labelled personal details. Web addresses are not personal data.
func personalData(v views) bool {
	t := v.plain
	// Each detector runs only where what it looks for can be: most notes have no @, few digits, and no keys.
	digitCount := strings.Count(t, "0") + strings.Count(t, "1") + strings.Count(t, "2") + strings.Count(t, "3") +
		strings.Count(t, "4") + strings.Count(t, "5") + strings.Count(t, "6") + strings.Count(t, "7") +
		strings.Count(t, "8") + strings.Count(t, "9")
	switch {
	case strings.Contains(t, "@") && emailRE.MatchString(t),
		strings.Contains(t, "dot") && emailSpoken.MatchString(t),
		containsAny(t, "sk-", "ghp_", "github_pat_", "xox", "akia", "aiza", "-----begin") && secretRE.MatchString(t),
		containsAny(t, "address", "phone", "mobile", "cell", "security", "ssn", "passport", "account", "card", "password", "pin") && labelled.MatchString(t),
		digitCount > 0 && containsAny(t, streetWords...) && (streetRE.MatchString(t) || streetPrefix.MatchString(t)):
		return true
	}
	if digitCount < 9 {
		return false
	}
	if ssnRE.MatchString(t) {
		return true
	}
	for _, m := range cardRE.FindAllString(t, -1) {
		if luhn(digits(m)) {
			return true
		}
	}
	for _, m := range ibanRE.FindAllString(t, -1) {
		if ibanValid(strings.ReplaceAll(m, " ", "")) {
			return true
		}
	}
	for _, m := range phoneRE.FindAllStringSubmatch(t, -1) {
		if phoneLike(m[1]) {
			return true
		}
	}
	return false
}

func digits(s string) string {
	return strings.Map(func(r rune) rune {
		if r >= '0' && r <= '9' {
			return r
		}
		return -1
	}, s)
}

// luhn reports whether a 13 to 19 digit number passes the Luhn check of payment cards.
func luhn(d string) bool {
	if len(d) < 13 || len(d) > 19 {
		return false
	}
	sum := 0
	for i := range len(d) {
		n := int(d[len(d)-1-i] - '0')
		if i%2 == 1 {
			if n *= 2; n > 9 {
				n -= 9
			}
		}
		sum += n
	}
	return sum%10 == 0
}

// ibanValid checks an IBAN's length and its mod-97 checksum.
func ibanValid(s string) bool {
	s = strings.ToUpper(s)
	if len(s) < 15 || len(s) > 34 {
		return false
	}
	var b strings.Builder
	for _, r := range s[4:] + s[:4] {
		switch {
		case r >= '0' && r <= '9':
			b.WriteRune(r)
		case r >= 'A' && r <= 'Z':
			b.WriteString(big.NewInt(int64(r - 'A' + 10)).String())
		default:
			return false
		}
	}
	n, ok := new(big.Int).SetString(b.String(), 10)
	return ok && new(big.Int).Mod(n, big.NewInt(97)).Int64() == 1
}

// phoneLike accepts 9 to 15 digits written as a phone number is: with a leading + or 0, or in groups, and not as
// a date, a version or a plain count.
func phoneLike(s string) bool {
	d := digits(s)
	if len(d) < 9 || len(d) > 15 {
		return false
	}
	if strings.Count(s, "-") == 2 && len(d) == 8 {
		return false
	}
	grouped := strings.ContainsAny(s, " -.()")
	return strings.HasPrefix(s, "+") || strings.HasPrefix(s, "(") || (d[0] == '0' && len(d) >= 10) || (grouped && len(d) >= 10)
}

func containsAny(s string, subs ...string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}
