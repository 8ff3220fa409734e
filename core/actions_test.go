package core

import "testing"

// A steer from review starts the next repair round while one is left; elsewhere it starts none.
func TestRepairRound(t *testing.T) {
	for _, c := range []struct {
		v     TaskView
		round int
		ok    bool
	}{
		{TaskView{State: StateReviewRequired}, 1, true},
		{TaskView{State: StateReviewRequired, RepairRounds: MaxRepairRounds - 1}, MaxRepairRounds, true},
		{TaskView{State: StateReviewRequired, RepairRounds: MaxRepairRounds}, 0, false},
		{TaskView{State: StateRunning}, 0, false},
	} {
		if round, ok := RepairRound(c.v); round != c.round || ok != c.ok {
			t.Errorf("%+v: round %d ok %v", c.v, round, ok)
		}
	}
}
