package host

import "strings"

// The route table is server/host/rules; these are how local mode applies it.

// literalPrefix is the part of a pattern before its first placeholder; a path without it cannot match.
func literalPrefix(pattern string) string {
	if i := strings.IndexAny(pattern, ":*"); i >= 0 {
		return pattern[:i]
	}
	return strings.TrimSuffix(pattern, "/")
}

// expand fills ":name" segments and ":splat" of to with vars.
func expand(to string, vars map[string]string) string {
	if !strings.Contains(to, ":") {
		return to
	}
	parts := strings.Split(to, "/")
	for i, p := range parts {
		if name, ok := strings.CutPrefix(p, ":"); ok && isName(name) {
			parts[i] = vars[name]
		}
	}
	return strings.Join(parts, "/")
}

func isName(s string) bool {
	for _, r := range s {
		if (r < 'a' || r > 'z') && (r < 'A' || r > 'Z') && r != '_' {
			return false
		}
	}
	return s != ""
}
