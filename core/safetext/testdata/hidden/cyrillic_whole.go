package buf

// сору is spelt in Cyrillic throughout.
func сору(dst, src []byte) int { return len(dst) }
