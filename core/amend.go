package core

// EventContractAmended records a change of a task's verification commands made in review.
const EventContractAmended = "contract_amended" // ContractAmendedData

// AddedCheck is a verification command added in review; it proves a new automated criterion,
// "<id>-passes".
type AddedCheck struct {
	ID             string   `json:"id"`
	Argv           []string `json:"argv"`
	Cwd            string   `json:"cwd,omitempty"`
	TimeoutSeconds int      `json:"timeout_seconds,omitempty"`
}

// ContractAmendedData is EventContractAmended's data.
type ContractAmendedData struct {
	Revision     int      `json:"revision"`
	ContractHash string   `json:"contract_hash"`
	PreviousHash string   `json:"previous_hash"`
	Dropped      []string `json:"dropped,omitempty"`
	Added        []string `json:"added,omitempty"`
	// ToReview are automated criteria no command proves any more: the supervisor approves them
	// at finalize instead.
	ToReview []string `json:"to_review,omitempty"`
}
