package review

import (
	"fmt"

	"github.com/charmbracelet/bubbles/key"
	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/tui/bind"
	"reasonixctl/tui/intent"
)

// step is what one of the tab's keys did: a command, and what it asks of the root.
type step struct {
	cmd tea.Cmd
	res Result
}

// pass is a key the tab does not take now: the dashboard's own keys get it (n starts a task
// when no search is kept, y copies the cherry-pick line where there is no diff).
var pass = step{res: Result{Pass: true}}

// key takes one key for the placed task's review. While the search line takes text every key
// is the search's; otherwise the table says what the key does, or why it does nothing now.
func (r *Review) key(msg tea.KeyMsg) (tea.Cmd, Result) {
	tv := r.place.Task
	if tv.TaskID == "" {
		return nil, pass.res
	}
	rv := r.task(tv.TaskID)
	if rv.search.typing {
		return nil, Result{Pass: !r.searchTyping(rv, msg)}
	}
	s, why, found := r.table(rv).Dispatch(msg)
	switch {
	case !found:
		return nil, pass.res
	case why != "":
		return nil, say(why, false, tv.TaskID)
	}
	return s.cmd, s.res
}

// sharedKeys are the keys the tab reads that the full help lists with the other tabs': the
// search (esc clears a kept query, as the search's help says) and paging.
func (r *Review) sharedKeys() []key.Binding {
	k := r.cfg.Keys
	return []key.Binding{k.Search, k.NextMatch, k.PrevMatch, clearSearch, k.PageDown, k.PageUp, k.Top, k.Bottom}
}

// clearSearch is esc while a search is kept; k.Search's help says what it does.
var clearSearch = bind.New([]string{"esc"}, "esc", "clear the search")

// table is the tab's keys for rv, in the order the help lists them: the footer's words come
// from it too (hunk, file, reviewed, search, wrap, files).
func (r *Review) table(rv *taskReview) bind.Table[step] {
	k := r.cfg.Keys
	hasDiff := func() bool { return rv.diff != nil && len(rv.diff.files) > 0 }
	// file is the file on screen; only with a diff.
	file := func() *diffFile { return &rv.diff.files[rv.diff.clamp(rv.diffCur).file] }
	// withDiff runs do when there is a diff to run it on, and hands the key on otherwise.
	withDiff := func(do func(msg tea.KeyMsg) step) func(tea.KeyMsg) step {
		return func(msg tea.KeyMsg) step {
			if !hasDiff() {
				return pass
			}
			return do(msg)
		}
	}
	scroll := withDiff(func(msg tea.KeyMsg) step { return step{res: r.scroll(rv, msg)} })
	// withQuery runs do on a kept search's query.
	withQuery := func(do func() Result) func(tea.KeyMsg) step {
		return withDiff(func(tea.KeyMsg) step {
			if rv.search.query == "" {
				return pass
			}
			return step{res: do()}
		})
	}
	// toggle flips one of the person's layout choices; the selection stays on the page.
	toggle := func(choice *bool) func(tea.KeyMsg) step {
		return func(tea.KeyMsg) step {
			*choice = !*choice
			if rv.diff != nil {
				r.placeSel(rv)
			}
			return step{}
		}
	}
	wrapped := func() string {
		if hasDiff() && r.wrap {
			return "long lines wrap: W scrolls them sideways instead"
		}
		return ""
	}
	sideways := func(by int) func(tea.KeyMsg) step {
		return withDiff(func(tea.KeyMsg) step {
			if by < 0 {
				rv.xoff = max(rv.xoff+by, 0)
			} else {
				rv.xoff = min(rv.xoff+by, max(r.longestShown(rv)-hscrollStep, 0))
			}
			return step{}
		})
	}
	return bind.Table[step]{
		{Key: k.NextHunk, Short: "hunk", Run: scroll},
		{Key: k.PrevHunk, Run: scroll},
		{Key: k.NextFile, Short: "file", Run: scroll},
		{Key: k.PrevFile, Run: scroll},
		{Key: k.Reviewed, Short: "reviewed", Run: scroll},
		{Key: k.Search, Short: "search", Run: withDiff(func(tea.KeyMsg) step {
			r.startSearch(rv)
			return step{}
		})},
		{Key: k.NextMatch, Run: withQuery(func() Result { return r.nextDiffMatch(rv, 1) })},
		{Key: k.PrevMatch, Run: withQuery(func() Result { return r.nextDiffMatch(rv, -1) })},
		{Key: clearSearch, Run: withQuery(func() Result {
			rv.search = diffSearch{}
			return Result{}
		})},
		{Key: k.LineDown, Run: withDiff(func(tea.KeyMsg) step {
			r.moveSel(rv, 1)
			return step{}
		})},
		{Key: k.LineUp, Run: withDiff(func(tea.KeyMsg) step {
			r.moveSel(rv, -1)
			return step{}
		})},
		{Key: k.OpenFile, Run: withDiff(func(tea.KeyMsg) step {
			f, c := file(), rv.diff.clamp(rv.diffCur)
			switch {
			case f.collapsed:
				f.expand()
			case f.full == nil && (f.generated || f.added+f.deleted > collapseOver):
				f.collapse()
			default:
				return pass
			}
			delete(rv.diff.caches, c.file)
			rv.diffCur, rv.placed = diffCursor{c.file, 0}, false
			return step{}
		})},
		{Key: k.SideBySide, Run: toggle(&r.sideBySide), WhyNot: func() string {
			// Turning it off is always allowed: after a resize below the width it needs, side by
			// side stays chosen (the position line says so) and w must be able to let it go.
			if r.place.Screen < sideBySideMin && !r.sideBySide {
				return fmt.Sprintf("side by side needs a terminal at least %d columns wide; this one is %d", sideBySideMin, r.place.Screen)
			}
			return ""
		}},
		{Key: k.Wrap, Short: "wrap", Run: toggle(&r.wrap)},
		{Key: k.ScrollLeft, Run: sideways(-hscrollStep), WhyNot: wrapped},
		{Key: k.ScrollRight, Run: sideways(hscrollStep), WhyNot: wrapped},
		{Key: k.HideFiles, Short: "files", Run: toggle(&r.hideFiles)},
		{Key: k.Comment, Run: withDiff(func(tea.KeyMsg) step {
			r.placeSel(rv)
			return step{res: r.openComment(rv, file())}
		})},
		{Key: k.SendComments, Run: withDiff(func(tea.KeyMsg) step { return step{res: r.askSendComments(rv)} })},
		{Key: k.Copy, Run: withDiff(func(tea.KeyMsg) step {
			return step{res: Result{Do: intent.Copy{Text: file().name, What: "the path"}}}
		})},
		{Key: k.Editor, Run: withDiff(func(tea.KeyMsg) step {
			r.placeSel(rv)
			return step{cmd: r.openEditor(rv, file())}
		}), WhyNot: func() string {
			if !hasDiff() {
				return ""
			}
			return nothingToOpen(file())
		}},
		{Key: k.PageDown, Run: scroll},
		{Key: k.PageUp, Run: scroll},
		{Key: k.Top, Run: scroll},
		{Key: k.Bottom, Run: scroll},
	}
}

// scroll moves the diff by hunks, files and pages, and marks files reviewed.
func (r Review) scroll(rv *taskReview, msg tea.KeyMsg) Result {
	k := r.cfg.Keys
	page := max(r.place.Height-2, 1)
	c := rv.diffCur
	last := r.lastTop(rv.diff, c, r.diffBodyHeight(rv))
	var res Result
	entered := false
	switch {
	case key.Matches(msg, k.NextHunk):
		if e := rv.entered; e != nil && *e == c {
			// The file was just entered with } or {: the selection is on its first hunk
			// already, and going "to" it moved nothing on screen.
			c.top = max(c.top, firstHunk(rv.diff.files[c.file]))
		}
		c = rv.diff.nextHunk(c)
	case key.Matches(msg, k.PrevHunk):
		c = rv.diff.prevHunk(c)
	case key.Matches(msg, k.NextFile):
		if c.file+1 < len(rv.diff.files) {
			c, entered = diffCursor{c.file + 1, 0}, true
		}
	case key.Matches(msg, k.PrevFile):
		if c.file > 0 {
			c, entered = diffCursor{c.file - 1, 0}, true
		}
	case key.Matches(msg, k.PageDown):
		c.top = min(c.top+page, max(last, c.top))
	case key.Matches(msg, k.PageUp):
		c.top = min(c.top, last) - page
	case key.Matches(msg, k.Top):
		c.top = 0
	case key.Matches(msg, k.Bottom):
		c.top = last
	case key.Matches(msg, k.Reviewed):
		name := rv.diff.files[c.file].name
		rv.reviewed[name] = !rv.reviewed[name]
		// Said in the header too: the file list may be hidden (z) and the position line gives
		// its room to the comment of a commented line, and then nothing else showed the change.
		n := 0
		for _, df := range rv.diff.files {
			if rv.reviewed[df.name] {
				n++
			}
		}
		what := "marked reviewed"
		if !rv.reviewed[name] {
			what = "no longer marked reviewed"
		}
		res = say(fmt.Sprintf("%s %s · %d/%d files reviewed", name, what, n, len(rv.diff.files)), false, "")
	}
	rv.diffCur = rv.diff.clamp(c)
	rv.entered = nil
	if entered {
		e := rv.diffCur
		rv.entered = &e
	}
	return res
}
