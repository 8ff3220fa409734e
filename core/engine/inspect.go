package engine

import (
	"reasonixctl/core"

	"encoding/json"
	"slices"
)

// inspectEnvelopeReserve is what inspect keeps of max_bytes for the envelope around the sections.
const inspectEnvelopeReserve = 512

const (
	defaultInspectMaxBytes = 64 << 10
	minInspectMaxBytes     = core.MinInspectMaxBytes
	maxInspectMaxBytes     = core.MaxInspectMaxBytes
	maxInspectWaitMS       = core.MaxInspectWaitMS
)

var defaultInspectInclude = []string{
	"status", "summary", "changed_files", "diff_stat", "verification",
	"acceptance_evidence", "risks", "usage", "interactions",
}

// inspectSources produces a section's JSON value on demand, so inspect only computes what it
// returns (the diff and the journal are the expensive ones).
type inspectSources func(section string) (any, error)

func validateInspect(req *core.InspectRequest) error {
	var issues []core.Issue
	if !core.ValidTaskID(req.TaskID) {
		issues = append(issues, core.Issue{Path: "task_id", Message: "must match " + core.TaskIDPattern})
	}
	if len(req.Include) > len(core.InspectSections) {
		issues = append(issues, core.Issue{Path: "include", Message: "too many sections"})
	}
	seen := map[string]bool{}
	for i, s := range req.Include {
		if !slices.Contains(core.InspectSections, s) {
			issues = append(issues, core.Issue{Path: core.PathIndex("include", i), Message: "unknown section " + s})
		}
		if seen[s] {
			issues = append(issues, core.Issue{Path: core.PathIndex("include", i), Message: "duplicate section " + s})
		}
		seen[s] = true
	}
	if req.WaitMS < 0 || req.WaitMS > maxInspectWaitMS {
		issues = append(issues, core.Issue{Path: "wait_ms", Message: "must be 0..30000"})
	}
	if req.MaxBytes != 0 && (req.MaxBytes < minInspectMaxBytes || req.MaxBytes > maxInspectMaxBytes) {
		issues = append(issues, core.Issue{Path: "max_bytes", Message: "must be 1024..65536"})
	}
	if len(req.Cursor) > core.MaxInspectCursorLen {
		issues = append(issues, core.Issue{Path: "cursor", Message: "too long"})
	}
	switch req.WaitUntil {
	case "", "change", "review_required", "interaction", "terminal":
	default:
		issues = append(issues, core.Issue{Path: "wait_until", Message: "must be change, review_required, interaction or terminal"})
	}
	if len(issues) > 0 {
		return core.InvalidRequest("reasonix_inspect input validation failed", issues)
	}
	if len(req.Include) == 0 {
		req.Include = defaultInspectInclude
	}
	if req.MaxBytes == 0 {
		req.MaxBytes = defaultInspectMaxBytes
	}
	return nil
}

// buildInspect fills sections in include order within max_bytes−512. The first section that does
// not fit becomes a string page with a signed cursor to the rest; later sections are dropped.
// With a cursor only the cursor's section is paged, and only while its text is unchanged.
func buildInspect(key []byte, req core.InspectRequest, updatedAt string, src inspectSources) (core.InspectResult, error) {
	res := core.InspectResult{TaskID: req.TaskID, Sections: map[string]json.RawMessage{}, UpdatedAt: updatedAt}
	budget := req.MaxBytes - inspectEnvelopeReserve

	if req.Cursor != "" {
		c, err := parseCursor(key, req.Cursor)
		if err != nil {
			return res, err
		}
		if c.TaskID != req.TaskID || !slices.Contains(req.Include, c.Section) {
			return res, core.Errorf(core.CodeInvalidRequest, &core.BadCursor{Cursor: "does not belong to this request"},
				"cursor belongs to task %s section %s", c.TaskID, c.Section)
		}
		text, err := sectionText(src, c.Section)
		if err != nil {
			return res, err
		}
		if textDigest(text) != c.Digest {
			return res, core.Errorf(core.CodeInvalidRequest, &core.BadCursor{Cursor: "stale"},
				"section %s changed since the cursor was issued; inspect again without a cursor", c.Section)
		}
		return pageSection(key, res, c.Section, text, c.Offset, budget)
	}

	for _, sec := range req.Include {
		text, err := sectionText(src, sec)
		if err != nil {
			return res, err
		}
		if len(text) <= budget {
			res.Sections[sec] = json.RawMessage(text)
			budget -= len(text)
			continue
		}
		return pageSection(key, res, sec, text, 0, budget)
	}
	return res, nil
}

func pageSection(key []byte, res core.InspectResult, sec, text string, offset, budget int) (core.InspectResult, error) {
	page, next, err := pageText(text, offset, budget)
	if err != nil {
		return res, err
	}
	if offset == 0 && next == len(text) {
		res.Sections[sec] = json.RawMessage(text)
		return res, nil
	}
	res.Sections[sec], _ = json.Marshal(page)
	if next < len(text) {
		res.Truncated = true
		res.NextCursor = signCursor(key, pageCursor{V: 1, TaskID: res.TaskID, Section: sec, Offset: next, Digest: textDigest(text)})
	}
	return res, nil
}

func sectionText(src inspectSources, sec string) (string, error) {
	v, err := src(sec)
	if err != nil {
		return "", err
	}
	b, err := json.Marshal(v)
	if err != nil {
		return "", core.Errorf(core.CodeInternalError, nil, "encoding section %s: %w", sec, err)
	}
	return string(b), nil
}
