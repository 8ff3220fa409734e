// Package review is the dashboard's review tab: a task's diff to read (highlighted, unified or
// side by side, wrapped or scrolled sideways, searched), its files marked reviewed, comments on
// its lines sent back as one repair round, the reviewed file opened read-only in $EDITOR, and
// whether the change applies to the checkout's HEAD (the cherry-pick preview, asked again as the
// checkout moves).
//
// A Review holds the review of every task the dashboard has seen and the person's choices that
// hold for all of them (side by side, wrapping, the file list hidden). The root says which task
// is on screen and where (Place), passes each task's detail in (Loaded), hands back the results
// of the review's commands (every Message), and carries out what the review asks of it (Result):
// a status line, a dialog, a reload, a copy. The engine is called only from inside commands,
// through Service; files are read and written only there too.
package review
