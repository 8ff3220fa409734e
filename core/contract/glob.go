package contract

import "strings"

// maxAlternatives bounds brace expansion; a pattern with more alternatives matches nothing.
const maxAlternatives = 1024

// HasGlob reports whether a pattern uses glob syntax. A glob-free pattern names a file or a
// directory and matches itself and everything under it.
func HasGlob(pattern string) bool { return strings.ContainsAny(pattern, "*?{}()[]") }

// Match reports whether a normalised repository path matches a normalised pattern, with the
// semantics of picomatch and dot:true: "*" matches within one segment (dotfiles included), "**"
// as a whole segment matches any number of segments including none, "?" one character, "[...]"
// a character class ("^" negates; as in picomatch a leading "!" is an ordinary member) and
// "{a,b}" alternatives, nested or not. Parentheses
// count as glob syntax for HasGlob but match literally. A glob-free pattern matches the path
// itself and every path below it.
func Match(pattern, path string) bool {
	if !HasGlob(pattern) {
		return path == pattern || strings.HasPrefix(path, pattern+"/")
	}
	alts, ok := expandBraces(pattern)
	if !ok {
		return false
	}
	segs := strings.Split(path, "/")
	for _, alt := range alts {
		if matchSegments(strings.Split(alt, "/"), segs) {
			return true
		}
	}
	return false
}

// matchSegments matches pattern segments against path segments; "**" spans segments. The
// memo keeps patterns with several "**" linear in practice.
func matchSegments(pat, segs []string) bool {
	type key struct{ p, s int }
	memo := map[key]bool{}
	var walk func(p, s int) bool
	walk = func(p, s int) bool {
		k := key{p, s}
		if v, ok := memo[k]; ok {
			return v
		}
		var r bool
		switch {
		case p == len(pat):
			r = s == len(segs)
		case pat[p] == "**":
			r = walk(p+1, s) || (s < len(segs) && walk(p, s+1))
		default:
			r = s < len(segs) && matchSegment(pat[p], segs[s]) && walk(p+1, s+1)
		}
		memo[k] = r
		return r
	}
	return walk(0, 0)
}

// matchSegment matches one segment with *, ? and classes, using the classic single backtrack
// point for the last star (linear time). "**" inside a segment behaves like "*".
func matchSegment(pat, s string) bool {
	pr, sr := []rune(pat), []rune(s)
	p, i := 0, 0
	star, mark := -1, 0
	for i < len(sr) {
		if p < len(pr) {
			switch pr[p] {
			case '*':
				for p < len(pr) && pr[p] == '*' {
					p++
				}
				star, mark = p, i
				continue
			case '?':
				p, i = p+1, i+1
				continue
			case '[':
				if ok, next, valid := matchClass(pr, p, sr[i]); valid {
					if ok {
						p, i = next, i+1
						continue
					}
				} else if sr[i] == '[' { // an unclosed "[" is literal
					p, i = p+1, i+1
					continue
				}
			default:
				if pr[p] == sr[i] {
					p, i = p+1, i+1
					continue
				}
			}
		}
		if star < 0 {
			return false
		}
		mark++
		p, i = star, mark
	}
	for p < len(pr) && pr[p] == '*' {
		p++
	}
	return p == len(pr)
}

// matchClass matches c against the class starting at pr[start] == '['. valid is false when the
// class is not closed. A "]" right after the opening (or the "^") is a member.
func matchClass(pr []rune, start int, c rune) (ok bool, next int, valid bool) {
	i := start + 1
	negate := false
	if i < len(pr) && pr[i] == '^' {
		negate = true
		i++
	}
	first := i
	for ; i < len(pr); i++ {
		if pr[i] == ']' && i > first {
			return ok != negate, i + 1, true
		}
		lo := pr[i]
		if i+2 < len(pr) && pr[i+1] == '-' && pr[i+2] != ']' {
			if lo <= c && c <= pr[i+2] {
				ok = true
			}
			i += 2
			continue
		}
		if lo == c {
			ok = true
		}
	}
	return false, 0, false
}

// expandBraces expands "{a,b}" groups (nested too) into plain alternatives. A group without a
// top-level comma, or an unbalanced brace, stays literal.
func expandBraces(pattern string) ([]string, bool) {
	open := -1
	depth := 0
	for i := 0; i < len(pattern); i++ {
		switch pattern[i] {
		case '{':
			if depth == 0 {
				open = i
			}
			depth++
		case '}':
			if depth == 0 {
				continue
			}
			depth--
			if depth > 0 {
				continue
			}
			parts := splitTopLevel(pattern[open+1 : i])
			if len(parts) < 2 {
				// Literal group: keep it and look for the next one after it.
				rest, ok := expandBraces(pattern[i+1:])
				if !ok {
					return nil, false
				}
				out := make([]string, len(rest))
				for j, r := range rest {
					out[j] = pattern[:i+1] + r
				}
				return out, true
			}
			prefix, suffix := pattern[:open], pattern[i+1:]
			var out []string
			for _, part := range parts {
				sub, ok := expandBraces(prefix + part + suffix)
				if !ok || len(out)+len(sub) > maxAlternatives {
					return nil, false
				}
				out = append(out, sub...)
			}
			return out, true
		}
	}
	return []string{pattern}, true
}

func splitTopLevel(s string) []string {
	var parts []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				parts = append(parts, s[start:i])
				start = i + 1
			}
		}
	}
	return append(parts, s[start:])
}
