package engine

import (
	"context"
	"path/filepath"

	"reasonixctl/core"
	"reasonixctl/core/baseline"
)

// DraftContract implements core.Service: the dashboard's new-task form drafts here, so that the
// process owning the state directory writes the draft and runs the base checks, whichever
// process the dashboard is. The checks run as the dashboard always ran them (sandboxed, no
// network), and the draft goes under the state directory: a task starts only from a clean
// checkout. Drafting's errors are returned as they are, as `contract init` reports them.
func (e *Engine) DraftContract(ctx context.Context, req core.DraftRequest) (core.DraftResult, error) {
	if !filepath.IsAbs(req.Dir) {
		// Relative to which process? The dashboard may be another one, in another directory.
		return core.DraftResult{}, core.Errorf(core.CodeInvalidRequest, map[string]any{"dir": req.Dir}, "the directory to draft for must be absolute, not %q", req.Dir)
	}
	d, err := baseline.DraftContract(req.Dir)
	var checked []core.BaseCheck
	if req.Check && err == nil {
		d, checked, err = baseline.DraftChecked(ctx, baseline.Options{StateDir: e.cfg.StateDir, Dir: req.Dir})
	}
	if err != nil {
		return core.DraftResult{}, err
	}
	path, err := baseline.WriteDraft(e.cfg.StateDir, d, e.now())
	if err != nil {
		return core.DraftResult{}, err
	}
	return core.DraftResult{Path: path, Draft: d, Checked: checked}, nil
}
