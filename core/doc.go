// Package core is what the front ends share: the Service interface with its requests (the
// commands Control carries out, one type per action) and results (review, logs and apply among
// its methods), the Asker, task states and the rules on them (ActionsFor, Allows, WhyNot,
// RepairRound), events and their data (one type per event type), errors, limits and the
// validation of requests. It also holds what a front end may do without an engine: contract
// drafts, checks on the base commit, standing grants, Trojan Source findings and the replay of
// a journal.
//
// The engine that implements Service lives in core/engine, the judgement of what a change may
// commit in core/review and the machine checks in core/doctor; core imports none of them
// (imports_test.go).
package core
