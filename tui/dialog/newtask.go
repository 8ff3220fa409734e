package dialog

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/bubbles/textinput"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/core/safetext"
	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
	"reasonixctl/tui/term"
)

// maxPathInput bounds a typed path (the kernel's PATH_MAX).
const maxPathInput = 4096

// The new-task form's fields, in focus order.
const (
	fieldContract = iota
	fieldRepo
	fieldTaskID
	fieldLane
	fieldWorker
	fieldCount
)

var newTaskLabels = [fieldCount]string{"contract", "repo dir", "task id", "lane", "worker"}

// NewTask is the new-task form: a contract file, the repository, a task id, a lane and the
// worker (one of core.WorkerNames, cycled with the lane's keys). ctrl+d
// asks the root to draft a contract (Drafted takes the answer), ctrl+e to open it in $EDITOR
// (Edited); ctrl+s asks it to start the task.
type NewTask struct {
	inputs [fieldLane]textinput.Model // contract path, repository dir, task id
	lane   core.Lane
	worker string
	focus  int
	err    string
	note   string // what happened, when it is not an error
	// taken is the ids of the tasks listed when the form opened, with their states: starting
	// one of them again is refused here, before core would wait on it or name a conflict.
	taken map[string]core.State
}

// NewNewTask is the form filled with in; taken are the listed tasks' ids with their states.
func NewNewTask(in intent.NewTask, taken map[string]core.State) *NewTask {
	d := &NewTask{lane: in.Lane, worker: in.Worker, taken: taken}
	if d.lane == "" {
		d.lane = core.LaneFast
	}
	if !slices.Contains(core.WorkerNames, d.worker) {
		d.worker = core.WorkerReasonix
	}
	d.inputs[fieldContract] = term.NewInput("path/to/contract.json", in.ContractPath, maxPathInput)
	d.inputs[fieldRepo] = term.NewInput("repository directory", in.RepoDir, maxPathInput)
	d.inputs[fieldTaskID] = term.NewInput("e.g. fix-login-42", in.TaskID, core.MaxTaskIDLen)
	d.inputs[fieldContract].Focus()
	return d
}

// idTaken says that a task id belongs to an existing task, in state st when known.
func idTaken(id string, st core.State) string {
	if st == "" {
		return "task id " + id + " exists: choose another id"
	}
	return "task id " + id + " exists (" + strings.ReplaceAll(string(st), "_", " ") + "): choose another id"
}

// Value is what the form holds.
func (d *NewTask) Value() intent.NewTask {
	return intent.NewTask{
		ContractPath: strings.TrimSpace(d.inputs[fieldContract].Value()),
		RepoDir:      strings.TrimSpace(d.inputs[fieldRepo].Value()),
		TaskID:       strings.TrimSpace(d.inputs[fieldTaskID].Value()),
		Lane:         d.lane,
		Worker:       d.worker,
	}
}

// Note is what the form says happened (a drafted contract, an edit), when it is not an error.
func (d *NewTask) Note() string { return d.note }

// StartFailed says why the task the form asked for did not start: lines, as the root words
// the error.
func (d *NewTask) StartFailed(lines []string) { d.err = strings.Join(lines, "\n") }

// IDTaken says the task id belongs to a task core knows (in state st, when the root knows it),
// and puts the focus on the id.
func (d *NewTask) IDTaken(st core.State) {
	d.err = idTaken(d.Value().TaskID, st)
	d.setFocus(fieldTaskID)
}

// Drafted takes a drafted contract into the form, or says why drafting failed.
func (d *NewTask) Drafted(res core.DraftResult, err error) {
	d.note = ""
	if err != nil {
		d.err = "drafting a contract failed: " + core.AsError(err).Message
		return
	}
	d.inputs[fieldContract].SetValue(res.Path)
	var checks []string
	for _, c := range res.Draft.Checks {
		checks = append(checks, strings.Join(c.Argv, " "))
	}
	found := "no verification command found: add one"
	if len(checks) > 0 {
		found = "verification: " + strings.Join(checks, "; ")
	}
	d.note = "drafted " + res.Path + " (" + found + "). Edit its TODO fields (" +
		strings.Join(res.Draft.Placeholders, ", ") + ") with ctrl+e, then start it with ctrl+s." + droppedNote(res.Checked)
}

// Edited says how the editor opened on the contract at path ended.
func (d *NewTask) Edited(path string, err error) {
	if err != nil {
		d.err, d.note = "the editor ended with: "+err.Error(), ""
		return
	}
	d.err, d.note = "", "edited "+path+"; ctrl+s starts the task (the contract is checked then)"
}

func (d *NewTask) setFocus(i int) {
	d.focus = (i + fieldCount) % fieldCount
	for j := range d.inputs {
		if j == d.focus {
			d.inputs[j].Focus()
		} else {
			d.inputs[j].Blur()
		}
	}
}

func (d *NewTask) onLane() bool { return d.focus == fieldLane }

// onChoice says the focus is on a field chosen with keys rather than typed: the lane or the
// worker.
func (d *NewTask) onChoice() bool { return d.focus >= fieldLane }

// cycleWorker moves the worker choice by step among core.WorkerNames, round.
func (d *NewTask) cycleWorker(step int) {
	n := len(core.WorkerNames)
	i := slices.Index(core.WorkerNames, d.worker)
	d.worker = core.WorkerNames[((i+step)%n+n)%n]
}

func (d *NewTask) keys(k bind.KeyMap) keys {
	next := func(tea.KeyMsg) intent.Result { d.setFocus(d.focus + 1); return intent.Result{} }
	// On the lane the switch keys switch it, on the worker they cycle it (← back); in a text
	// field they are text (a space, the cursor).
	switchLane := func(msg tea.KeyMsg) intent.Result {
		if d.focus == fieldWorker {
			if msg.String() == "left" {
				d.cycleWorker(-1)
			} else {
				d.cycleWorker(1)
			}
			return intent.Result{}
		}
		if !d.onLane() {
			return d.typed(msg)
		}
		if d.lane == core.LaneFast {
			d.lane = core.LaneDeep
		} else {
			d.lane = core.LaneFast
		}
		return intent.Result{}
	}
	return keys{
		{Key: k.FocusNext, Short: k.FocusNext.Help().Desc, Run: next},
		{Key: k.FocusPrev, Run: func(tea.KeyMsg) intent.Result { d.setFocus(d.focus - 1); return intent.Result{} }},
		// ctrl+s starts; enter goes to the next field, and on the lane or the worker starts too.
		{Key: bind.New(k.Submit.Keys(), "ctrl+s", "start the task (enter on the lane or the worker too; in a field enter goes to the next)"), Short: "start",
			Run: func(msg tea.KeyMsg) intent.Result {
				if msg.String() == "enter" && !d.onChoice() {
					return next(msg)
				}
				return d.submit()
			}},
		{Key: k.Draft, Short: "draft contract", Run: func(tea.KeyMsg) intent.Result { return d.draft() }},
		{Key: k.EditContract, Short: "edit it", Run: func(tea.KeyMsg) intent.Result { return d.edit() }},
		{Key: k.Toggle, Run: switchLane},
		{Key: k.SwitchLane, Run: switchLane},
		{Key: k.Back, Short: "cancel", Run: closed},
	}
}

func (d *NewTask) draft() intent.Result {
	dir := strings.TrimSpace(d.inputs[fieldRepo].Value())
	if dir == "" {
		d.err = "repo dir is empty: say which repository to draft a contract for"
		d.setFocus(fieldRepo)
		return intent.Result{}
	}
	d.err, d.note = "", "drafting a contract from the repository's toolchains…"
	return intent.Result{Draft: dir}
}

func (d *NewTask) edit() intent.Result {
	path := strings.TrimSpace(d.inputs[fieldContract].Value())
	if path == "" {
		d.err = "contract is empty: type its path, or ctrl+d drafts one"
		d.setFocus(fieldContract)
		return intent.Result{}
	}
	d.err, d.note = "", ""
	return intent.Result{Do: intent.EditContract{Path: path}}
}

// typed gives a key to the focused text field, if one has the focus.
func (d *NewTask) typed(msg tea.KeyMsg) intent.Result {
	if d.focus < fieldLane {
		d.inputs[d.focus], _ = d.inputs[d.focus].Update(msg)
	}
	return intent.Result{}
}

func (d *NewTask) Update(msg tea.KeyMsg, k bind.KeyMap) intent.Result {
	if res, _, found := d.keys(k).Dispatch(msg); found {
		return res
	}
	return d.typed(msg)
}

func (d *NewTask) submit() intent.Result {
	in := d.Value()
	for i, v := range []string{in.ContractPath, in.RepoDir, in.TaskID} {
		if v == "" {
			d.err = newTaskLabels[i] + " is empty"
			if i == fieldContract {
				d.err += ": type a contract file's path, or press ctrl+d to draft one from the repository"
			}
			d.setFocus(i)
			return intent.Result{}
		}
	}
	if st, ok := d.taken[in.TaskID]; ok {
		d.err = idTaken(in.TaskID, st)
		d.setFocus(fieldTaskID)
		return intent.Result{}
	}
	return intent.Result{Close: true, Delegate: &in}
}

func (d *NewTask) View(t term.Theme, k bind.KeyMap, width int) (string, string) {
	var b strings.Builder
	b.WriteString(t.Title.Render("New task") + t.Dim.Render("  supervised permissions, runs in the background") + "\n\n")
	for i, label := range newTaskLabels {
		mark := "  "
		if d.focus == i {
			mark = "› "
		}
		value := ""
		switch {
		case i < fieldLane:
			d.inputs[i].Width = max(width-14, 10)
			value = d.inputs[i].View()
		case i == fieldWorker:
			value = d.workerChoice(t)
		default:
			for _, l := range []core.Lane{core.LaneFast, core.LaneDeep} {
				if l == d.lane {
					value += "(•) " + string(l) + "  "
				} else {
					value += "( ) " + string(l) + "  "
				}
			}
		}
		b.WriteString(mark + term.PadRight(label, 9) + value + "\n")
	}
	if d.note != "" {
		b.WriteString("\n" + t.Good.Render(term.WrapIndent(safetext.Sanitize(d.note), width, 0)))
	}
	if d.err != "" {
		b.WriteString("\n" + t.Error.Render(term.WrapIndent(safetext.Sanitize(d.err), width, 0)))
	}
	return strings.TrimRight(b.String(), "\n"), term.KeyLines(t, width, d.keys(k).Footer()...)
}

// workerChoice shows every worker on one line, the chosen one marked: at 80 columns they fit
// beside the label.
func (d *NewTask) workerChoice(t term.Theme) string {
	names := make([]string, len(core.WorkerNames))
	for i, n := range core.WorkerNames {
		if n == d.worker {
			names[i] = t.Title.Render("(•) " + n)
		} else {
			names[i] = t.Dim.Render(n)
		}
	}
	return strings.Join(names, "  ")
}

func (d *NewTask) Capturing() bool { return d.focus < fieldLane }

// droppedNote says which drafted checks were left out because they fail on HEAD already, with
// their first failing line; which were kept although they fail there, their failures named
// (finalize can excuse exactly those); and which could not be checked.
func droppedNote(checked []core.BaseCheck) string {
	var dropped, kept, unknown []string
	for _, ch := range checked {
		switch {
		case ch.Baseline.FailuresKnown():
			var names []string
			for i, f := range ch.Baseline.Failures {
				if i == 3 {
					names = append(names, fmt.Sprintf("%d more", len(ch.Baseline.Failures)-i))
					break
				}
				names = append(names, safetext.Line(f.ID))
			}
			kept = append(kept, ch.ID+" ("+strings.Join(names, "; ")+")")
		case ch.Baseline.Status == core.BaselineFailed:
			first, _, _ := strings.Cut(core.FirstFailingLines(ch.Baseline, 1), "\n")
			dropped = append(dropped, ch.ID+" ("+safetext.Line(first)+")")
		case ch.Baseline.Status == core.BaselineUnknown:
			unknown = append(unknown, ch.ID+" ("+safetext.Line(ch.Baseline.Reason)+")")
		}
	}
	var out string
	if len(dropped) > 0 {
		out += " Left out, failing on HEAD already: " + strings.Join(dropped, "; ") + "."
	}
	if len(kept) > 0 {
		out += " Kept, failing on HEAD with known failures that finalize can excuse (and no other): " + strings.Join(kept, "; ") + "."
	}
	if len(unknown) > 0 {
		out += " Not checked, kept: " + strings.Join(unknown, "; ") + "."
	}
	return out
}
