package bind

import (
	"testing"

	tea "github.com/charmbracelet/bubbletea"
)

func TestTableRunsWhatIsEnabledAndSaysWhyNot(t *testing.T) {
	blocked := "finalize needs a task in review (this one is running)"
	var ran []string
	table := Table[string]{
		{Key: New([]string{"F"}, "F", "finalize"), Short: "finalize", Run: func(tea.KeyMsg) string { ran = append(ran, "F"); return "F" },
			WhyNot: func() string { return blocked }},
		{Key: New([]string{"s"}, "s", "steer"), Short: "steer", Run: func(tea.KeyMsg) string { ran = append(ran, "s"); return "s" }},
		{Key: New([]string{"s", "x"}, "x", "shadowed for s"), Run: func(tea.KeyMsg) string { return "second" }},
	}
	key := func(s string) tea.KeyMsg { return tea.KeyMsg{Type: tea.KeyRunes, Runes: []rune(s)} }

	if out, why, found := table.Dispatch(key("F")); !found || why != blocked || out != "" {
		t.Fatalf("F: out %q why %q found %v; want the WhyNot text and nothing run", out, why, found)
	}
	if out, why, found := table.Dispatch(key("s")); !found || why != "" || out != "s" {
		t.Fatalf("s: out %q why %q found %v; want the first entry run", out, why, found)
	}
	if _, _, found := table.Dispatch(key("q")); found {
		t.Fatal("q matched no entry but was found")
	}
	if len(ran) != 1 || ran[0] != "s" {
		t.Fatalf("ran %v; want only s", ran)
	}
	foot := table.Footer()
	if len(foot) != 1 || foot[0].Help().Desc != "steer" {
		t.Fatalf("footer %v; want only the enabled entry with a footer word", foot)
	}
	if len(table.Help()) != 3 {
		t.Fatalf("help lists %d entries; want all 3, enabled or not", len(table.Help()))
	}
}
