package pay

// pаypal sends the money: its second letter is Cyrillic.
func pаypal(amount int) int { return amount }
