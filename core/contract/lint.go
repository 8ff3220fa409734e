package contract

import (
	"encoding/json"
	"slices"
)

// lint runs the consistency checks that need the whole contract. It works on whatever parsed,
// so a document with schema problems still gets every other problem reported.
func (v *validator) lint(c *Contract, verification, allowed []parsedCommand, assertions []parsedAssertion) {
	v.lintScopes(c)

	criteria := map[string]string{} // id → evidence
	for i, a := range c.AcceptanceCriteria {
		if a.ID == "" {
			continue
		}
		if _, dup := criteria[a.ID]; dup {
			v.add(jsonPath(acceptanceCriteriaField, i, "id"), "duplicate id %q", a.ID)
			continue
		}
		criteria[a.ID] = a.Evidence
	}

	seen := map[string]bool{}
	for _, pa := range assertions {
		if !pa.hasID {
			continue
		}
		if seen[pa.a.ID] {
			v.add(jsonPath(fileAssertionsField, pa.index, "id"), "duplicate id %q", pa.a.ID)
		}
		seen[pa.a.ID] = true
	}

	v.lintCommandIDs(verificationField, verification, func(pc parsedCommand) string { return commandKey(pc, true) })
	v.lintCommandIDs(allowedCommandsField, allowed, func(pc parsedCommand) string { return commandKey(pc, false) })
	firstVerification := map[string]string{}
	for _, pc := range verification {
		if _, ok := firstVerification[pc.v.ID]; pc.hasID && !ok {
			firstVerification[pc.v.ID] = crossKey(pc)
		}
	}
	for _, pc := range allowed {
		if key, ok := firstVerification[pc.v.ID]; pc.hasID && ok && key != crossKey(pc) {
			v.add(jsonPath(allowedCommandsField, pc.index, "id"), "conflicting id %q: a verification command with this id has a different argv, cwd or timeout", pc.v.ID)
		}
	}

	proved := map[string]bool{}
	for _, pc := range verification {
		for k, id := range pc.v.Proves {
			if _, ok := criteria[id]; !ok {
				v.add(jsonPath(verificationField, pc.index, "proves", k), "unknown acceptance criterion %q", id)
				continue
			}
			proved[id] = true
		}
	}
	for _, pa := range assertions {
		for k, id := range pa.a.Proves {
			evidence, ok := criteria[id]
			switch {
			case !ok:
				v.add(jsonPath(fileAssertionsField, pa.index, "proves", k), "unknown acceptance criterion %q", id)
			case evidence != EvidenceAutomated:
				v.add(jsonPath(fileAssertionsField, pa.index, "proves", k), "file assertions can prove only automated criteria; %q needs review", id)
			default:
				proved[id] = true
			}
		}
	}
	reported := map[string]bool{}
	for i, a := range c.AcceptanceCriteria {
		if a.ID == "" || a.Evidence != EvidenceAutomated || proved[a.ID] || reported[a.ID] {
			continue
		}
		reported[a.ID] = true
		v.add(jsonPath(acceptanceCriteriaField, i), "automated criterion %q is proved by no verification command or file assertion", a.ID)
	}
}

// lintScopes reports forbidden patterns that match a concrete (glob-free) write target: the
// write scope already denies every path it does not list, so such a pattern only contradicts it.
func (v *validator) lintScopes(c *Contract) {
	for j, pat := range c.ForbiddenScope {
		for _, target := range c.WriteScope {
			if !HasGlob(target) && Match(pat, target) {
				v.add(jsonPath("forbidden_scope", j), "matches the write_scope target %q; write_scope already denies every path it does not list", target)
			}
		}
	}
}

// lintCommandIDs reports a command id that reappears with a different identity.
func (v *validator) lintCommandIDs(field string, cmds []parsedCommand, identity func(parsedCommand) string) {
	first := map[string]string{}
	for _, pc := range cmds {
		if !pc.hasID {
			continue
		}
		key := identity(pc)
		prior, ok := first[pc.v.ID]
		if !ok {
			first[pc.v.ID] = key
			continue
		}
		if prior != key {
			v.add(jsonPath(field, pc.index, "id"), "conflicting id %q: reused with a different argv, cwd, timeout or proves", pc.v.ID)
		}
	}
}

// commandKey is a command's identity with its timeout defaulted (and its proves for
// verification commands).
func commandKey(pc parsedCommand, withProves bool) string {
	parts := []any{pc.v.Argv, cwdKey(pc), pc.v.TimeoutSeconds}
	if withProves {
		parts = append(parts, pc.v.Proves)
	}
	b, _ := json.Marshal(parts)
	return string(b)
}

// crossKey compares an allowed command with a verification command: the timeout as given, since
// the two kinds default it differently.
func crossKey(pc parsedCommand) string {
	b, _ := json.Marshal([]any{pc.v.Argv, cwdKey(pc), pc.rawTimeout})
	return string(b)
}

func cwdKey(pc parsedCommand) string {
	if pc.cwdOK {
		return pc.v.Cwd
	}
	return "\x00" + pc.rawCwd
}

// dedupe drops exact duplicate commands, and allowed commands identical to a verification command.
func dedupe(verification, allowed []parsedCommand, keepAllowed bool) ([]Verification, []Command) {
	vs := []Verification{}
	seen := map[string]bool{}
	cross := map[string]bool{}
	for _, pc := range verification {
		cross[pc.v.ID+"\x00"+crossKey(pc)] = true
		key := pc.v.ID + "\x00" + commandKey(pc, true)
		if !seen[key] {
			seen[key] = true
			vs = append(vs, pc.v)
		}
	}
	if !keepAllowed {
		return vs, nil
	}
	as := []Command{}
	seen = map[string]bool{}
	for _, pc := range allowed {
		key := pc.v.ID + "\x00" + commandKey(pc, false)
		if seen[key] || cross[pc.v.ID+"\x00"+crossKey(pc)] {
			continue
		}
		seen[key] = true
		as = append(as, pc.v.Command)
	}
	return vs, slices.Clip(as)
}
