package words

import "reasonixctl/core"

// CheckStatus says how one verification check ended, with its mark: the checks tab lists it
// and the replay's snapshot names it.
func CheckStatus(v core.VerificationResult) string {
	switch {
	case v.TimedOut:
		return "✗ timed out"
	case v.Passed:
		return "✓ passed"
	case v.Excused:
		return "~ excused"
	}
	return "✗ failed"
}
