package engine

import (
	"context"
	"errors"
	"path/filepath"

	"reasonixctl/core"
	"reasonixctl/core/baseline"
)

// DraftContract implements core.Service: the dashboard's new-task form drafts here, so that the
// process owning the state directory writes the draft and runs the base checks, whichever
// process the dashboard is. The checks run as the dashboard always ran them (sandboxed, no
// network), and the draft goes under the state directory: a task starts only from a clean
// checkout. A checkout that cannot be drafted for is invalid_request, with the words `contract
// init` would print; a draft that cannot be stored is internal_error.
func (e *Engine) DraftContract(ctx context.Context, req core.DraftRequest) (core.DraftResult, error) {
	if !filepath.IsAbs(req.Dir) {
		// Relative to which process? The dashboard may be another one, in another directory.
		return core.DraftResult{}, core.Errorf(core.CodeInvalidRequest, &core.DirRef{Dir: req.Dir}, "the directory to draft for must be absolute, not %q", req.Dir)
	}
	var d core.ContractDraft
	var checked []core.BaseCheck
	var err error
	if req.Check {
		// DraftChecked drafts first and fails as DraftContract would: no draft made twice.
		d, checked, err = baseline.DraftChecked(ctx, baseline.Options{StateDir: e.cfg.StateDir, Dir: req.Dir})
	} else {
		d, err = baseline.DraftContract(req.Dir)
	}
	if err != nil {
		var ce *core.Error
		if errors.As(err, &ce) {
			return core.DraftResult{}, ce
		}
		return core.DraftResult{}, core.Errorf(core.CodeInvalidRequest, &core.DirRef{Dir: req.Dir}, "%w", err)
	}
	path, err := baseline.WriteDraft(e.cfg.StateDir, d, e.now())
	if err != nil {
		return core.DraftResult{}, core.Errorf(core.CodeInternalError, nil, "storing the draft: %w", err)
	}
	return core.DraftResult{Path: path, Draft: d, Checked: checked}, nil
}
