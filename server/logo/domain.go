package logo

import (
	"net/netip"
	"strings"

	"twofold/server/errcode"

	"golang.org/x/net/idna"
	"golang.org/x/net/publicsuffix"
)

// MaxDomainLength is the longest name DNS carries (without the final dot).
const MaxDomainLength = 253

var lookupProfile = idna.New(idna.MapForLookup(), idna.BidiRule(), idna.Transitional(false), idna.StrictDomainName(true), idna.VerifyDNSLength(true))

// Normalize checks that s is a public domain name and returns its ASCII (punycode), lower-case form. Unicode names
// are converted with IDNA; IP literals in any notation, localhost, single labels, names under a suffix that is not
// on the public suffix list, public suffixes themselves, and over-long names are DOMAIN_INVALID.
func Normalize(s string) (string, error) {
	in := strings.TrimSpace(s)
	invalid := func(why string) error {
		shown := in
		if len(shown) > 80 {
			shown = shown[:80] + "…"
		}
		return errcode.Errorf(errcode.DomainInvalid, "pass a registrable domain name such as example.com",
			"%q is not a public domain name: %s", shown, why)
	}
	if in == "" {
		return "", invalid("it is empty")
	}
	if len(in) > 4*MaxDomainLength {
		return "", invalid("it is too long")
	}
	d := strings.TrimSuffix(in, ".")
	if strings.ContainsAny(d, "/:[]@?#% \\") {
		return "", invalid("it is not a bare host name")
	}
	if _, err := netip.ParseAddr(d); err == nil {
		return "", invalid("IP addresses are not looked up")
	}
	ascii, err := lookupProfile.ToASCII(d)
	if err != nil {
		return "", invalid("it is not a valid host name")
	}
	ascii = strings.ToLower(ascii)
	if len(ascii) > MaxDomainLength {
		return "", invalid("it is longer than 253 characters")
	}
	labels := strings.Split(ascii, ".")
	if len(labels) < 2 {
		return "", invalid("a single label is not a public name")
	}
	for _, l := range labels {
		if l == "" || len(l) > 63 || l[0] == '-' || l[len(l)-1] == '-' {
			return "", invalid("a label is empty, too long or starts or ends with a hyphen")
		}
		for _, c := range []byte(l) {
			if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
				return "", invalid("host names hold letters, digits and hyphens only")
			}
		}
	}
	if allDigits(labels[len(labels)-1]) {
		return "", invalid("a numeric top-level label makes it an address, not a name")
	}
	suffix, icann := publicsuffix.PublicSuffix(ascii)
	if !icann && !strings.Contains(suffix, ".") {
		return "", invalid("its top-level domain ." + suffix + " is not on the public suffix list")
	}
	if _, err := publicsuffix.EffectiveTLDPlusOne(ascii); err != nil {
		return "", invalid("it is a public suffix, not a registrable name")
	}
	return ascii, nil
}

func allDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return s != ""
}
