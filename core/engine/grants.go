package engine

import (
	"context"

	"reasonixctl/core"
)

// grantFor makes the standing grant a person's answer req asks for: an allow of a pending
// permission for a command the policy would ask about, answered at a dashboard.
func (e *Engine) grantFor(id string, req core.Respond) (core.Grant, error) {
	if req.AnsweredBy != "" && req.AnsweredBy != core.BySupervisor {
		return core.Grant{}, core.Errorf(core.CodeInvalidRequest, nil, "only a person at a dashboard can grant a command for a repository")
	}
	if req.Decision != core.DecisionAllow {
		return core.Grant{}, core.Errorf(core.CodeInvalidRequest, nil, "a grant goes with an allow, not %q", req.Decision)
	}
	r, err := e.load(id)
	if err != nil {
		return core.Grant{}, err
	}
	var ia *core.Interaction
	for i := range r.Interactions {
		if r.Interactions[i].ID == req.InteractionID {
			ia = &r.Interactions[i]
		}
	}
	if ia == nil || ia.Status != core.InteractionPending {
		return core.Grant{}, core.Errorf(core.CodeInteractionNotFound, nil, "no pending interaction %s on task %s", req.InteractionID, id)
	}
	if ia.Kind != core.InteractionPermission || !ia.Request.Grantable() {
		return core.Grant{}, core.Errorf(core.CodeInvalidRequest, nil, "interaction %s is not a command with an argv: only a command can be granted", req.InteractionID)
	}
	rel, ok := core.GrantCwd(r.Worktree, ia.Request.Cwd)
	if !ok {
		return core.Grant{}, core.Errorf(core.CodeInvalidRequest, nil, "the command's cwd %s is not inside the task's worktree", ia.Request.Cwd)
	}
	return core.AddGrant(e.cfg.StateDir, core.Grant{RepositoryID: r.RepoID, Repository: r.RepoRoot, Argv: ia.Request.Argv, Cwd: rel,
		CreatedBy: core.BySupervisor, TaskID: id})
}

// grantedWords is what a person's allow that made grant g adds to its reason.
func grantedWords(g core.Grant) string {
	if g.ID == "" {
		return ""
	}
	return "; granted for the repository as " + g.ID
}

// Grants implements core.Service: the state directory's standing grants, as this owner reads
// them.
func (e *Engine) Grants(ctx context.Context) ([]core.Grant, error) {
	return core.LoadGrants(e.cfg.StateDir)
}

// RevokeGrant implements core.Service: grant id is removed and the command is asked about
// again.
func (e *Engine) RevokeGrant(ctx context.Context, id string) (core.Grant, error) {
	return core.RevokeGrant(e.cfg.StateDir, id)
}
