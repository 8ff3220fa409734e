// Package words says core's values in the person's terms: a worker's request and the answer it
// got, who gave an answer this dashboard did not send, an error with what to do next. Every
// part of the dashboard words them the same way because each is written here once.
package words
