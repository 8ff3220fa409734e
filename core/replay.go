package core

import (
	"slices"
	"strconv"
	"strings"
	"time"
)

// ReplaySnapshot is what a task looked like at one point of its journal, rebuilt from its
// events alone: a finished task can be replayed as well as a live one, without its record.
type ReplaySnapshot struct {
	Seq    uint64    // the last event applied; 0 before the first
	Time   time.Time // that event's time
	Events int       // events applied

	State  State
	Phase  string
	Reason string

	Repository string
	Objective  string

	ReviewRevision int
	ReviewTreeHash string
	ChangedFiles   []string
	DiffStat       string
	RepairRounds   int // repair rounds started (phase repair_N)

	// Pending are the interactions waiting for an answer, oldest first.
	Pending []Interaction
	// Verification is the results of the latest finalize attempt so far.
	Verification []VerificationResult
	Usage        *Usage
	CommitHash   string
	Branch       string
}

// ReplayState folds the events with a seq up to seq (all of them for the maximum) into the
// snapshot at that point. Events are taken in the order given; a journal is in seq order.
func ReplayState(events []Event, seq uint64) ReplaySnapshot {
	var s ReplaySnapshot
	for _, ev := range events {
		if ev.Seq > seq {
			break
		}
		s.Apply(ev)
	}
	return s
}

// Apply advances the snapshot by one event. Slices are replaced, never changed in place, so a
// copy of a snapshot taken earlier stays as it was: a replay keeps copies as checkpoints.
func (s *ReplaySnapshot) Apply(ev Event) {
	s.Seq, s.Time = ev.Seq, ev.Time
	s.Events++
	data, _ := ev.Decode()
	switch d := data.(type) {
	case *TaskCreatedData:
		s.State, s.Repository, s.Objective = d.State, d.Repository, d.Objective
	case *StateChangedData:
		if d.To == StateVerifying && s.State != StateVerifying {
			// A new finalize attempt: the previous one's results no longer apply.
			s.Verification = nil
		}
		s.State, s.Phase, s.Reason = d.To, d.Phase, d.Reason
		if n, ok := strings.CutPrefix(d.Phase, "repair_"); ok {
			if round, err := strconv.Atoi(n); err == nil {
				s.RepairRounds = max(s.RepairRounds, round)
			}
		}
	case *ReviewReadyData:
		s.ReviewRevision, s.ReviewTreeHash = d.ReviewRevision, d.ReviewTreeHash
		s.ChangedFiles, s.DiffStat = slices.Clone(d.ChangedFiles), d.DiffStat
	case *InteractionWaitingData:
		pending := withoutInteraction(s.Pending, d.ID)
		if d.Status == InteractionPending {
			pending = append(pending, Interaction(*d))
		}
		s.Pending = pending
	case *InteractionResolvedData:
		s.Pending = withoutInteraction(s.Pending, d.ID)
	case *VerificationResult:
		s.Verification = append(slices.Clone(s.Verification), *d)
	case *Usage:
		s.Usage = d
	case *CommittedData:
		s.CommitHash, s.Branch = d.CommitHash, d.Branch
	}
}

// withoutInteraction is pending without interaction id, as a new slice: Apply never changes a
// slice a checkpoint may share.
func withoutInteraction(pending []Interaction, id string) []Interaction {
	return slices.DeleteFunc(slices.Clone(pending), func(p Interaction) bool { return p.ID == id })
}
