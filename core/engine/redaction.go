package engine

import "reasonixctl/core/redact"

// redactValue is applied to every journal event before it is stored.
func redactValue(v any) any { return redact.Value(v) }

func redactText(s string) string { return redact.String(s) }
