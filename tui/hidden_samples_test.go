package tui

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
)

// hiddenSamples is core/safetext's sample of each class of hidden character and look-alike,
// with the finding each must raise (expected.txt), and the benign samples that must raise none.
const hiddenSamples = "../core/safetext/testdata"

func readHiddenSamples(t *testing.T) (hidden map[string]string, benign []string) {
	t.Helper()
	f, err := os.Open(filepath.Join(hiddenSamples, "expected.txt"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	hidden = map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if name, finding, ok := strings.Cut(sc.Text(), "\t"); ok && !strings.HasPrefix(name, "#") {
			hidden[name] = finding
		}
	}
	entries, err := os.ReadDir(filepath.Join(hiddenSamples, "benign"))
	if err != nil {
		t.Fatal(err)
	}
	for _, e := range entries {
		benign = append(benign, "benign/"+e.Name())
	}
	if len(hidden) < 12 || len(benign) < 3 {
		t.Fatalf("%d hidden and %d benign samples", len(hidden), len(benign))
	}
	return hidden, benign
}

// sampleScenario is the review scenario with the sample added as a new file at path, its risks
// as the engine computes them.
func sampleScenario(t *testing.T, sample, path string) *fakeService {
	t.Helper()
	text, err := os.ReadFile(filepath.Join(hiddenSamples, sample))
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSuffix(string(text), "\n"), "\n")
	diff := fmt.Sprintf("diff --git a/%s b/%s\nnew file mode 100644\n--- /dev/null\n+++ b/%s\n@@ -0,0 +1,%d @@\n", path, path, path, len(lines))
	for _, l := range lines {
		diff += "+" + l + "\n"
	}
	f := scenario()
	d := f.details["login-fix"]
	d.Diff = diff + sampleDiff
	d.SourceRisks = core.SourceRisks([]byte(d.Diff))
	for _, r := range d.SourceRisks {
		d.Risks = append(d.Risks, r.Text)
	}
	f.details["login-fix"] = d
	return f
}

// For each sample of a hidden character or look-alike, the review names the file, the contract
// tab's risks name the class, and finalize will not send until the person acknowledges the
// risk, then lists it; a benign sample (emoji, prose in other scripts) is no risk at all.
func TestHiddenSamplesAreRisksToAcknowledge(t *testing.T) {
	hidden, benign := readHiddenSamples(t)
	names := make([]string, 0, len(hidden))
	for name := range hidden {
		names = append(names, name)
	}
	slices.Sort(names)
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			path := "samples/" + name
			f := sampleScenario(t, name, path)
			h := newHarness(t, f, 200, 50)
			h.requireView("⚠ 1 file(s) hold hidden characters, look-alikes or binary content: " + path)
			h.press("3")
			h.requireView("Risks", "• "+core.SourceRiskPrefix+path+": line", hidden[name])
			h.press("1", "F")
			h.requireView("⚠ Risks: the change holds what a plain reading may miss", path+": hidden or look-alike characters: ")
			h.typeText("Read the sample line by line.")
			h.press("tab", "space", "tab", "space", "ctrl+s", "ctrl+s")
			h.requireView("read them in the diff, then ctrl+o acknowledges them")
			h.requireControls()
			h.send(tea.KeyMsg{Type: tea.KeyCtrlO})
			h.requireView("[x] ctrl+o: I read these lines")
			h.press("ctrl+s")
			h.requireView("not marked reviewed")
			h.press("ctrl+s")
			if got := f.controlLog(); len(got) != 1 || !slices.Equal(got[0].(core.Finalize).AcknowledgedRisks, []string{core.SourceRiskPrefix + path}) {
				t.Fatalf("finalize requests: %+v", got)
			}
		})
	}
	for _, name := range benign {
		t.Run(name, func(t *testing.T) {
			f := sampleScenario(t, name, "samples/"+name)
			if rs := f.details["login-fix"].SourceRisks; len(rs) != 0 {
				t.Fatalf("risks: %+v", rs)
			}
			h := newHarness(t, f, 200, 50)
			h.press("F")
			h.requireView("Finalize login-fix", "Review criteria (all must hold):")
			if v := flatten(h.view()); strings.Contains(v, "hide or disguise") || strings.Contains(v, "⚠ Risks") {
				t.Fatalf("a benign sample shows a risk:\n%s", h.view())
			}
		})
	}
}
