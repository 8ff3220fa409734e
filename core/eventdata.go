package core

import (
	"encoding/json"
	"fmt"
)

// newEventData returns a pointer to a new value of the type an event of type typ carries in its
// Data, or nil for one without a typed form (worker_unknown keeps the worker's raw message, and
// an event of a later version is unknown here). It is the one place that ties an event type to
// its data: TestEveryEventTypeDecodes fails for an event constant missing here, or for two event
// types that share a data type.
func newEventData(typ string) any {
	switch typ {
	case EventTaskCreated:
		return new(TaskCreatedData)
	case EventStateChanged:
		return new(StateChangedData)
	case EventAgentMessage:
		return new(AgentMessageData)
	case EventAgentThought:
		return new(AgentThoughtData)
	case EventSteered:
		return new(SteeredData)
	case EventError:
		return new(ErrorData)
	case EventToolCall:
		return new(ToolCallData)
	case EventPlan:
		return new(PlanData)
	case EventPermissionDecided:
		return new(PermissionData)
	case EventInteractionWaiting:
		return new(InteractionWaitingData)
	case EventInteractionResolved:
		return new(InteractionResolvedData)
	case EventUsage:
		return new(Usage)
	case EventReviewReady:
		return new(ReviewReadyData)
	case EventVerification:
		return new(VerificationResult)
	case EventCommitted:
		return new(CommittedData)
	case EventWorkerStatus:
		return new(WorkerStatusData)
	case EventTaskArchived:
		return new(TaskArchivedData)
	case EventTaskPruned:
		return new(TaskPrunedData)
	case EventReviewComment:
		return new(ReviewComment)
	case EventReviewCommentsSent:
		return new(CommentsSentData)
	case EventReviewSummary:
		return new(ReviewSummaryData)
	case EventContractAmended:
		return new(ContractAmendedData)
	case EventAppliedToCheckout:
		return new(AppliedData)
	case EventRebased:
		return new(RebasedData)
	}
	return nil
}

// Decode returns the event's data as the type its Type carries, as a pointer
// (*StateChangedData for state_changed, *InteractionWaitingData for interaction_waiting, …), so that a
// front end switches on the Go type instead of matching a struct to a type by hand. An event
// without a typed form decodes to nil; malformed data is an error.
func (e Event) Decode() (any, error) {
	v := newEventData(e.Type)
	if v == nil {
		return nil, nil
	}
	if err := json.Unmarshal(e.Data, v); err != nil {
		return nil, fmt.Errorf("event %d (%s) of %s: %w", e.Seq, e.Type, e.TaskID, err)
	}
	return v, nil
}

// DataOf returns the event's data as a T when its type carries a T (Decode's table), and
// whether it does: false for an event whose type carries another type or none, and for
// malformed data. Front ends that already know the event's type read it with this.
func DataOf[T any](e Event) (T, bool) {
	v, err := e.Decode()
	p, ok := v.(*T)
	if err != nil || !ok {
		var zero T
		return zero, false
	}
	return *p, true
}
