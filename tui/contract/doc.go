// Package contract is the contract tab of a task: its objective, scopes and criteria (ticked
// once approved), the verification, the worker's and the review's summaries and comments, the
// risks and where the task stands, in a viewport that pages.
//
// The dashboard gives the tab the task's detail (Show) and the size it draws in (Resize); the
// tab holds nothing else and asks nothing of the root but to be given the keys it does not take.
package contract
