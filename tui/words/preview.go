package words

import (
	"fmt"
	"reasonixctl/core"
	"reasonixctl/tui/term"
	"strings"
)

// Preview is what the dashboard knows of a cherry-pick preview: the last one, why the last
// attempt failed, and whether one is on its way.
type Preview struct {
	Of      *core.CherryPickPreview
	Err     string
	Pending bool
}

// Line says in one line whether the change applies to the source's HEAD.
func (pv Preview) Line() string {
	switch {
	case pv.Err != "":
		return "cherry-pick preview failed: " + pv.Err
	case pv.Of == nil && pv.Pending:
		return "checking whether it applies to your checkout…"
	case pv.Of == nil:
		return ""
	}
	p := pv.Of
	what := "the change"
	if p.Of == "commit" {
		what = "the commit"
	}
	head := term.Short(p.Head, 10)
	if p.Clean && p.Refusal != "" {
		return fmt.Sprintf("%s merges cleanly onto %s HEAD %s, but applying it now is refused: %s", what, p.Source, head, p.Refusal)
	}
	if p.Clean {
		if p.Moved {
			return fmt.Sprintf("%s applies cleanly to %s HEAD %s (moved since the task started)", what, p.Source, head)
		}
		return fmt.Sprintf("%s applies cleanly to %s HEAD %s", what, p.Source, head)
	}
	return fmt.Sprintf("%s conflicts with %s HEAD %s in %s", what, p.Source, head, strings.Join(p.Conflicts, ", "))
}
