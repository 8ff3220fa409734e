package review

import (
	"os/exec"

	"reasonixctl/core"
)

// What the root tells the review.
type (
	// Loaded is a task's detail as the engine last gave it. Risks says, by path, what the
	// review found in a file that a plain reading may miss, in the words the root uses for it
	// everywhere.
	Loaded struct {
		TaskID string
		Detail core.TaskDetail
		Risks  map[string]string
	}
	// Forget drops what the review kept of a task the dashboard no longer knows.
	Forget struct{ TaskID string }
	// RefreshPreview asks whether the task's change applies to its checkout's HEAD, unless a
	// recent answer stands; Force asks whatever the answer's age (ctrl+r, the finalize form).
	RefreshPreview struct {
		TaskID string
		Force  bool
	}
	// Tick is the clock's tick while the task is selected: its checkout is looked at again,
	// and a preview that no longer holds is asked again.
	Tick struct{ TaskID string }
)

// Message is the result of one of the review's commands. The root hands every one back to
// Update; each names its task.
type Message interface{ reviewMessage() }

type (
	// CommentSaved is the engine's answer to adding, editing or deleting a comment.
	CommentSaved struct {
		TaskID  string
		Req     core.CommentRequest
		Comment core.ReviewComment
		Err     error
	}
	// CommentsSent is the engine's answer to sending the open comments as a repair round.
	CommentsSent struct {
		TaskID string
		View   core.TaskView
		Err    error
	}
	// PreviewDone is a cherry-pick preview: of the tree or commit Of, asked after the checkout
	// read as Stamp.
	PreviewDone struct {
		TaskID, Of, Stamp string
		Preview           core.CherryPickPreview
		Err               error
	}
	// Stamped is the checkout's stamp read on a tick.
	Stamped struct{ TaskID, Stamp string }
	// EditorFile is a reviewed file written to a read-only copy (File, in the folder Dir) and
	// the command that shows it at Line; Err says it could not be read, CopyErr that the copy
	// could not be written.
	EditorFile struct {
		TaskID, Path string
		Line         int
		Dir, File    string
		Exec         *exec.Cmd
		// Note says what shows the file (editorNote).
		Note    string
		Err     error
		CopyErr error
	}
	// EditorDone is the editor (or pager) having exited; its copy in Dir is then removed.
	EditorDone struct {
		TaskID, Dir, Path string
		Note              string
		Err               error
	}
)

func (CommentSaved) reviewMessage() {}
func (CommentsSent) reviewMessage() {}
func (PreviewDone) reviewMessage()  {}
func (Stamped) reviewMessage()      {}
func (EditorFile) reviewMessage()   {}
func (EditorDone) reviewMessage()   {}
