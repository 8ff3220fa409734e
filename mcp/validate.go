package mcp

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
	"golang.org/x/text/language"
	"golang.org/x/text/message"

	"reasonixctl/core"
)

// maxIssues bounds the issue list of one error: enough to fix a request, small enough to read.
const maxIssues = 25

var printer = message.NewPrinter(language.English)

// compileSchema compiles one of our schemas; failing here is a programming error caught by tests.
func compileSchema(name string, s object) (*jsonschema.Schema, error) {
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	doc, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, err
	}
	url := "mem:///reasonixctl/" + name + ".json"
	c := jsonschema.NewCompiler()
	if err := c.AddResource(url, doc); err != nil {
		return nil, err
	}
	return c.Compile(url)
}

// validateJSON checks raw JSON against a compiled schema and returns the problems as issues with
// dotted paths (contract.verification.0.argv), the form Codex's earlier bridge used.
func validateJSON(s *jsonschema.Schema, raw []byte) []core.Issue {
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return []core.Issue{{Path: "arguments", Message: "not valid JSON: " + err.Error()}}
	}
	err = s.Validate(v)
	if err == nil {
		return nil
	}
	var verr *jsonschema.ValidationError
	if !errors.As(err, &verr) {
		return []core.Issue{{Path: "arguments", Message: err.Error()}}
	}
	var issues []core.Issue
	collectIssues(verr, &issues)
	slices.SortFunc(issues, func(a, b core.Issue) int {
		return strings.Compare(a.Path+"\x00"+a.Message, b.Path+"\x00"+b.Message)
	})
	issues = slices.Compact(issues)
	if len(issues) > maxIssues {
		issues = append(issues[:maxIssues], core.Issue{Path: "arguments", Message: "further issues omitted"})
	}
	return issues
}

func collectIssues(e *jsonschema.ValidationError, out *[]core.Issue) {
	if len(e.Causes) > 0 {
		for _, c := range e.Causes {
			collectIssues(c, out)
		}
		return
	}
	at := func(extra ...string) string {
		p := strings.Join(append(slices.Clone(e.InstanceLocation), extra...), ".")
		if p == "" {
			return "arguments"
		}
		return p
	}
	switch k := e.ErrorKind.(type) {
	case *kind.Required:
		for _, name := range k.Missing {
			*out = append(*out, core.Issue{Path: at(name), Message: "Required"})
		}
	case *kind.AdditionalProperties:
		for _, name := range k.Properties {
			*out = append(*out, core.Issue{Path: at(name), Message: "Unrecognized key"})
		}
	default:
		*out = append(*out, core.Issue{Path: at(), Message: e.ErrorKind.LocalizedString(printer)})
	}
}

// invalidRequest is the error for a request that breaks its schema or the control union.
func invalidRequest(tool string, issues []core.Issue) *core.Error {
	return core.Errorf(core.CodeInvalidRequest, map[string]any{"issues": issues}, "%s input validation failed", tool)
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
