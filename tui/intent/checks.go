package intent

// Confirm asks the root to ask the person first: it shows Title and Body with yes and no, and
// carries out Yes on yes. A tab cannot open a dialog; it asks for one with this (D in the
// checks tab asks before dropping a check).
type Confirm struct {
	Title, Body string
	Yes         Action
}

func (Confirm) isAction() {}
