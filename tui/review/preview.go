package review

import (
	"context"
	"time"

	tea "github.com/charmbracelet/bubbletea"

	"reasonixctl/core"
	"reasonixctl/tui/words"
)

// The cherry-pick preview: whether the task's change applies to its source checkout's HEAD,
// asked of the engine off the update loop and asked again when the checkout moves
// (checkout.go), when it is old, or when the person asks (ctrl+r, the finalize form).

// previewTTL is how long a cherry-pick preview stands before the next look refreshes it,
// when nothing says the checkout moved (a change the stamp does not see: another worktree
// committing to the branch of a detached checkout, say).
const previewTTL = 30 * time.Second

// refreshPreview asks whether the task's change applies to its source checkout's HEAD now,
// when it is in review or committed and the last answer is missing, for another change or old,
// or force says so (ctrl+r, the checkout's stamp changed, the finalize form opened).
func (r Review) refreshPreview(id string, force bool) tea.Cmd {
	svc, ctx := r.cfg.Service, r.cfg.Context
	rv := r.task(id)
	d := rv.detail
	if d == nil {
		return nil
	}
	if rv.previewing {
		rv.previewAgain = rv.previewAgain || force
		return nil
	}
	of := d.View.ReviewTreeHash
	if d.View.CommitHash != "" {
		of = d.View.CommitHash
	} else if d.View.State != core.StateReviewRequired {
		return nil
	}
	if of == "" || (!force && rv.previewOf == of && r.cfg.Now().Sub(rv.previewAt) < previewTTL) {
		return nil
	}
	rv.previewing, rv.previewAgain = true, false
	root := d.Repository
	return func() tea.Msg {
		// The stamp first: a checkout that moves during the preview shows in the next one.
		stamp := checkoutStamp(root)
		ctx, cancel := context.WithTimeout(ctx, 20*time.Second)
		defer cancel()
		p, err := svc.CherryPickPreview(ctx, id)
		return PreviewDone{TaskID: id, Of: of, Stamp: stamp, Preview: p, Err: err}
	}
}

func (r Review) onPreview(msg PreviewDone) tea.Cmd {
	rv := r.task(msg.TaskID)
	rv.previewing = false
	rv.previewOf, rv.previewAt, rv.previewStamp = msg.Of, r.cfg.Now(), msg.Stamp
	if msg.Err != nil {
		rv.preview, rv.previewErr = nil, words.OneLine(msg.Err)
	} else {
		p := msg.Preview
		rv.preview, rv.previewErr = &p, ""
	}
	// Asked again while this one ran, or the task's change is no longer the one previewed
	// (a detail that arrived meanwhile): once more, now.
	return r.refreshPreview(msg.TaskID, rv.previewAgain)
}
