package content

import "bytes"

// Rebase returns src with every address under the base from moved to the base to.
//
// The site's source files (pages, the board's instructions, SKILL.md, openapi.json) write the site's own
// addresses in full with site.yaml's baseURL, so that they read well where they are kept: on GitHub, in an
// editor, to an agent that finds them in the repository. A build for another address, a deploy preview or a
// fork, passes them through Rebase so that none of its files sends a reader to production. Only whole bases
// move: from followed by something that continues its host, port or last path segment
// ("https://site.example.org", "https://site.example:8080", "https://site.example-2") is another address
// and stays as it is. When there is nothing to move, src itself is returned.
func Rebase(src []byte, from, to string) []byte {
	if from == to || from == "" || !bytes.Contains(src, []byte(from)) {
		return src
	}
	var out bytes.Buffer
	out.Grow(len(src))
	for {
		i := bytes.Index(src, []byte(from))
		if i < 0 {
			break
		}
		end := i + len(from)
		out.Write(src[:i])
		if continuesAddress(src[end:]) {
			out.Write(src[i:end])
		} else {
			out.WriteString(to)
		}
		src = src[end:]
	}
	out.Write(src)
	return out.Bytes()
}

// continuesAddress reports whether rest, the text right after a base, lengthens the base's last part rather
// than ending it: a letter, digit or other character of a name, or a dot or colon followed by one (a longer
// host, a port). A dot or colon that ends a sentence ends the address.
func continuesAddress(rest []byte) bool {
	if len(rest) == 0 {
		return false
	}
	switch c := rest[0]; {
	case isNameByte(c):
		return true
	case c == '.' || c == ':':
		return len(rest) > 1 && isNameByte(rest[1])
	}
	return false
}

func isNameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' ||
		c == '-' || c == '_' || c == '~' || c == '%' || c == '@' || c >= 0x80
}
