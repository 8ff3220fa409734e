// Package events is the events tab: one task's journal as readable prose, a window of it kept
// in memory, older and newer pages read back from the journal as the reader scrolls, with a
// search (which reads the journal before the window too) and a filter by kind of event. It also
// says each kind of event in one line, for the replay.
//
// A Pane is one task's; the root feeds it the live stream (Live), routes its keys and its own
// messages (PageMsg, SearchPageMsg, by task id) to Update, and draws it with View. The journal
// is read only inside the commands Update returns, through the Journal given in the Env.
// Everything the worker wrote is sanitized before it is kept.
package events
