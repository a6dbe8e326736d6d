package paths

import "strings"

// Match reports whether path matches pattern (":name" segments, a final "*"), and the values it captured; the
// "*" captures the rest of the path, possibly empty, as "splat". Like the static host, it ignores a trailing slash.
// It runs for every rule on every request, so it allocates only when it captures.
func Match(pattern, path string) (vars map[string]string, ok bool) {
	return matchInto(pattern, path, true)
}

// Matches is Match without capturing: it never allocates.
func Matches(pattern, path string) bool {
	_, ok := matchInto(pattern, path, false)
	return ok
}

func matchInto(pattern, path string, capture bool) (vars map[string]string, ok bool) {
	p, q := strings.TrimPrefix(trimSlash(pattern), "/"), strings.TrimPrefix(trimSlash(path), "/")
	set := func(k, v string) {
		if !capture {
			return
		}
		if vars == nil {
			vars = map[string]string{}
		}
		vars[k] = v
	}
	for {
		pseg, prest, pmore := strings.Cut(p, "/")
		if pseg == "*" && !pmore {
			set("splat", q)
			return vars, true
		}
		seg, rest, more := strings.Cut(q, "/")
		if name, isVar := strings.CutPrefix(pseg, ":"); isVar && seg != "" {
			set(name, seg)
		} else if pseg != seg {
			return nil, false
		}
		switch {
		case !pmore && !more:
			return vars, true
		case pmore && !more && prest == "*":
			set("splat", "")
			return vars, true
		case !pmore || !more:
			return nil, false
		}
		p, q = prest, rest
	}
}

func trimSlash(p string) string {
	if len(p) > 1 {
		return strings.TrimSuffix(p, "/")
	}
	return p
}
