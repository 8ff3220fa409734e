package engine

import (
	"context"

	"reasonixctl/core"
	"reasonixctl/core/contract"
	"reasonixctl/core/gitx"
	"reasonixctl/core/redact"
	"reasonixctl/core/review"
)

// judgeReviewed judges the reviewed tree again at finalize, from its objects: a review stored
// before these checks existed, or by an older version, is held to them all the same.
func (e *Engine) judgeReviewed(ctx context.Context, r *taskRecord, c *contract.Contract) error {
	changes, err := gitx.TreeChanges(ctx, r.RepoCommonDir, r.BaseCommit, r.ReviewTreeHash)
	if err != nil {
		return core.Errorf(core.CodeSecretDetected, &core.Unscannable{Reason: core.RefusedUnscannable},
			"the reviewed tree could not be read, so it is refused: %v", err)
	}
	var files []gitx.FileChange
	var reasonix []string
	for _, f := range changes {
		if redact.IsRuntimeMetadataPath(f.Path) {
			reasonix = append(reasonix, f.Path)
			continue
		}
		files = append(files, f)
	}
	rs, err := review.JudgeTree(ctx, r.RepoCommonDir, c, r.ReviewTreeHash, files, reasonix, nil)
	if err != nil {
		return core.Errorf(core.CodeSecretDetected, &core.Unscannable{Reason: core.RefusedUnscannable},
			"the reviewed tree could not be scanned, so it is refused: %v", err)
	}
	if len(rs) > 0 {
		return review.RefusalError(rs)
	}
	return nil
}
