package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/big"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"

	"reasonixctl/core"
)

// Input validation is our own small validator for exactly the keywords the input schemas use.
// A general JSON Schema library compiles its meta-schemas when the process starts, which cost
// Codex's start-up more than everything else in this package together. Its messages keep the
// wording Codex has seen from the earlier bridge ("got string, want integer", "maximum: got
// 601, want 600", ...); a test compares them with a full validator on many inputs.

// maxIssues bounds the issue list of one error: enough to fix a request, small enough to read.
const maxIssues = 25

// rule is one compiled input-schema node.
type rule struct {
	typ                string // "" accepts any type
	constant           any    // json.Number, string or bool; meaningful when hasConst
	hasConst           bool
	enum               []string
	props              map[string]*rule
	required           []string
	closed             bool
	items              *rule
	minLen, maxLen     int // -1: no bound
	minItems, maxItems int
	min, max           *big.Rat
	pattern            *regexp.Regexp
}

// inputRules compiles every tool's input schema on the first tool call, not at start-up.
var inputRules = sync.OnceValues(func() (map[string]*rule, error) {
	out := map[string]*rule{}
	for _, sp := range toolSpecs() {
		r, err := compileInput(sp.in)
		if err != nil {
			return nil, fmt.Errorf("%s input schema: %w", sp.name, err)
		}
		out[sp.name] = r
	}
	return out, nil
})

// compileInput compiles one of our schemas; failing here is a programming error caught by tests.
func compileInput(s object) (*rule, error) {
	raw, err := s.MarshalJSON()
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		return nil, err
	}
	return compileRule(m, "")
}

func compileRule(m map[string]any, at string) (*rule, error) {
	r := &rule{minLen: -1, maxLen: -1, minItems: -1, maxItems: -1}
	bad := func(key string) error { return fmt.Errorf("%s: unsupported %s value %v", at, key, m[key]) }
	for key, val := range m {
		var err error
		switch key {
		case "$schema", "description", "default":
		case "type":
			var ok bool
			if r.typ, ok = val.(string); !ok {
				err = bad(key)
			}
		case "const":
			switch val.(type) {
			case json.Number, string, bool:
				r.constant, r.hasConst = val, true
			default:
				err = bad(key)
			}
		case "enum":
			r.enum, err = stringList(val)
		case "required":
			r.required, err = stringList(val)
		case "additionalProperties":
			if val != false {
				err = bad(key)
			}
			r.closed = true
		case "properties":
			props, ok := val.(map[string]any)
			if !ok {
				return nil, bad(key)
			}
			r.props = map[string]*rule{}
			for name, p := range props {
				pm, ok := p.(map[string]any)
				if !ok {
					return nil, fmt.Errorf("%s.%s: not a schema", at, name)
				}
				if r.props[name], err = compileRule(pm, at+"."+name); err != nil {
					return nil, err
				}
			}
		case "items":
			im, ok := val.(map[string]any)
			if !ok {
				return nil, bad(key)
			}
			r.items, err = compileRule(im, at+"/items")
		case "minLength", "maxLength", "minItems", "maxItems":
			n, perr := strconv.Atoi(fmt.Sprint(val))
			if perr != nil || n < 0 {
				return nil, bad(key)
			}
			switch key {
			case "minLength":
				r.minLen = n
			case "maxLength":
				r.maxLen = n
			case "minItems":
				r.minItems = n
			default:
				r.maxItems = n
			}
		case "minimum", "maximum":
			n, ok := val.(json.Number)
			v, ok2 := new(big.Rat).SetString(string(n))
			if !ok || !ok2 {
				return nil, bad(key)
			}
			if key == "minimum" {
				r.min = v
			} else {
				r.max = v
			}
		case "pattern":
			p, ok := val.(string)
			if !ok {
				return nil, bad(key)
			}
			r.pattern, err = regexp.Compile(p)
		default:
			err = fmt.Errorf("%s: keyword %q is not supported by the input validator", at, key)
		}
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

func stringList(v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		return nil, fmt.Errorf("want a list of strings, got %v", v)
	}
	out := make([]string, len(list))
	for i, x := range list {
		if out[i], ok = x.(string); !ok {
			return nil, fmt.Errorf("want a list of strings, got %v", v)
		}
	}
	return out, nil
}

// validateInput checks raw JSON arguments and returns the problems as issues with dotted paths
// (contract.verification.0.argv), the form Codex's earlier bridge used.
func validateInput(r *rule, raw []byte) []core.Issue {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.UseNumber()
	var v any
	err := d.Decode(&v)
	if err == nil {
		if _, extra := d.Token(); !errors.Is(extra, io.EOF) {
			err = errors.New("unexpected data after the arguments")
		}
	}
	if err != nil {
		return []core.Issue{{Path: "arguments", Message: "not valid JSON: " + err.Error()}}
	}
	var issues []core.Issue
	r.check(v, "", &issues)
	slices.SortFunc(issues, func(a, b core.Issue) int {
		return strings.Compare(a.Path+"\x00"+a.Message, b.Path+"\x00"+b.Message)
	})
	issues = slices.Compact(issues)
	if len(issues) > maxIssues {
		issues = append(issues[:maxIssues], core.Issue{Path: "arguments", Message: "further issues omitted"})
	}
	return issues
}

// check follows the usual validator order: a wrong type, const or enum ends the node's checks;
// otherwise every keyword of the value's kind reports.
func (r *rule) check(v any, at string, out *[]core.Issue) {
	add := func(path, msg string) {
		if path == "" {
			path = "arguments"
		}
		*out = append(*out, core.Issue{Path: path, Message: msg})
	}
	child := func(name string) string {
		if at == "" {
			return name
		}
		return at + "." + name
	}
	if r.typ != "" && !hasType(v, r.typ) {
		add(at, fmt.Sprintf("got %s, want %s", typeName(v), r.typ))
		return
	}
	if r.hasConst && !sameValue(v, r.constant) {
		add(at, "value must be "+display(r.constant))
		return
	}
	if r.enum != nil {
		if s, ok := v.(string); !ok || !slices.Contains(r.enum, s) {
			add(at, enumMessage(r.enum))
			return
		}
	}
	switch x := v.(type) {
	case map[string]any:
		for _, name := range r.required {
			if _, ok := x[name]; !ok {
				add(child(name), "Required")
			}
		}
		for name, val := range x {
			if p := r.props[name]; p != nil {
				p.check(val, child(name), out)
			} else if r.closed {
				add(child(name), "Unrecognized key")
			}
		}
	case []any:
		if r.minItems >= 0 && len(x) < r.minItems {
			add(at, "minItems: got "+groupDigits(len(x))+", want "+groupDigits(r.minItems))
		}
		if r.maxItems >= 0 && len(x) > r.maxItems {
			add(at, "maxItems: got "+groupDigits(len(x))+", want "+groupDigits(r.maxItems))
		}
		if r.items != nil {
			for i, item := range x {
				r.items.check(item, child(strconv.Itoa(i)), out)
			}
		}
	case string:
		n := utf8.RuneCountInString(x)
		if r.minLen >= 0 && n < r.minLen {
			add(at, "minLength: got "+groupDigits(n)+", want "+groupDigits(r.minLen))
		}
		if r.maxLen >= 0 && n > r.maxLen {
			add(at, "maxLength: got "+groupDigits(n)+", want "+groupDigits(r.maxLen))
		}
		if r.pattern != nil && !r.pattern.MatchString(x) {
			add(at, quote(x)+" does not match pattern "+quote(r.pattern.String()))
		}
	case json.Number:
		got, ok := new(big.Rat).SetString(string(x))
		if !ok {
			return
		}
		if r.min != nil && got.Cmp(r.min) < 0 {
			add(at, "minimum: got "+formatNumber(got)+", want "+formatNumber(r.min))
		}
		if r.max != nil && got.Cmp(r.max) > 0 {
			add(at, "maximum: got "+formatNumber(got)+", want "+formatNumber(r.max))
		}
	}
}

func hasType(v any, typ string) bool {
	switch typ {
	case "integer":
		n, ok := v.(json.Number)
		if !ok {
			return false
		}
		r, ok := new(big.Rat).SetString(string(n))
		return ok && r.IsInt()
	default:
		return typeName(v) == typ
	}
}

func typeName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "boolean"
	case json.Number:
		return "number"
	case string:
		return "string"
	case []any:
		return "array"
	case map[string]any:
		return "object"
	}
	return fmt.Sprintf("%T", v)
}

func sameValue(v, want any) bool {
	a, aok := v.(json.Number)
	b, bok := want.(json.Number)
	if aok && bok {
		x, ok1 := new(big.Rat).SetString(string(a))
		y, ok2 := new(big.Rat).SetString(string(b))
		return ok1 && ok2 && x.Cmp(y) == 0
	}
	return !aok && !bok && v == want
}

func enumMessage(values []string) string {
	if len(values) == 1 {
		return "value must be " + quote(values[0])
	}
	quoted := make([]string, len(values))
	for i, v := range values {
		quoted[i] = quote(v)
	}
	return "value must be one of " + strings.Join(quoted, ", ")
}

func display(v any) string {
	if s, ok := v.(string); ok {
		return quote(s)
	}
	return fmt.Sprint(v)
}

// quote writes s in single quotes with Go escapes, as the earlier messages did.
func quote(s string) string {
	q := strconv.Quote(s)
	q = strings.ReplaceAll(q, `\"`, `"`)
	q = strings.ReplaceAll(q, `'`, `\'`)
	return "'" + q[1:len(q)-1] + "'"
}

// groupDigits writes n with thousands separators (20,000), as the earlier messages did.
func groupDigits(n int) string { return groupInteger(strconv.Itoa(n)) }

func groupInteger(digits string) string {
	sign := ""
	if strings.HasPrefix(digits, "-") {
		sign, digits = "-", digits[1:]
	}
	var b strings.Builder
	for i, c := range digits {
		if i > 0 && (len(digits)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return sign + b.String()
}

// formatNumber writes a bound or a value the way the earlier messages did: the shortest decimal
// with thousands separators, and 1.5×10⁰⁷ for very large or very small magnitudes.
func formatNumber(r *big.Rat) string {
	f, _ := r.Float64()
	switch {
	case math.IsInf(f, 1):
		return "∞"
	case math.IsInf(f, -1):
		return "-∞"
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	mantissa, exp, scientific := strings.Cut(s, "e")
	if scientific {
		const super = "⁰¹²³⁴⁵⁶⁷⁸⁹"
		var b strings.Builder
		for _, c := range exp {
			switch {
			case c == '-':
				b.WriteString("⁻")
			case c >= '0' && c <= '9':
				b.WriteString(string([]rune(super)[c-'0']))
			}
		}
		return mantissa + "×10" + b.String()
	}
	whole, frac, hasFrac := strings.Cut(mantissa, ".")
	if hasFrac {
		return groupInteger(whole) + "." + frac
	}
	return groupInteger(whole)
}

// invalidRequest is the error for a request that breaks its schema or the control union.
func invalidRequest(tool string, issues []core.Issue) *core.Error {
	return core.Errorf(core.CodeInvalidRequest, &core.IssueList{Issues: issues}, "%s input validation failed", tool)
}

// decodeStrict decodes validated arguments into a request struct. The schema already rejected
// unknown keys and wrong types; this catches any drift between the schema and the struct.
func decodeStrict(tool string, raw []byte, into any) error {
	d := json.NewDecoder(bytes.NewReader(raw))
	d.DisallowUnknownFields()
	if err := d.Decode(into); err != nil {
		return invalidRequest(tool, []core.Issue{{Path: "arguments", Message: fmt.Sprint(err)}})
	}
	return nil
}
