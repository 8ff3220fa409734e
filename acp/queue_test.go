package acp

import (
	"strings"
	"testing"
	"time"
)

// A burst of many small events only queues; the same budget refuses a flood of large ones, and
// what the consumer takes frees its share.
func TestQueueBudgetIsBytesNotEvents(t *testing.T) {
	q := newEventQueue(1 << 20)
	small := ToolCall{ID: "call_1", Title: "read", Status: "completed"}
	n := (1 << 20) / queuedSize(small)
	for i := range n {
		if !q.push(small) {
			t.Fatalf("small event %d of %d refused", i, n)
		}
	}
	// The queue may already hold the first event out of the budget, ready to hand over.
	taken := n
	if q.push(small) {
		taken++
	}
	if q.push(small) {
		t.Fatal("the budget took more events than it holds")
	}
	for range taken {
		select {
		case <-q.out:
		case <-time.After(10 * time.Second):
			t.Fatal("queued event never delivered")
		}
	}
	big := ToolCallUpdate{ID: "call_2", Text: strings.Repeat("x", 300<<10)}
	pushed := 0
	for q.push(big) && pushed < 10 {
		pushed++
	}
	// Three fit the budget, and the queue may hold one more out of it, ready to hand over.
	if pushed < 3 || pushed > 4 {
		t.Fatalf("%d events of 300 KiB queued against a 1 MiB budget (%d bytes counted)", pushed, q.backlogBytes())
	}
}

// Merged text chunks count too: a consumer that never reads cannot be sent text without bound.
func TestQueueBudgetCountsMergedText(t *testing.T) {
	q := newEventQueue(64 << 10)
	chunk := Chunk{Stream: KindAgentMessage, Text: strings.Repeat("word ", 200)}
	pushed := 0
	for q.push(chunk) {
		pushed++
		if pushed > 1000 {
			t.Fatal("text chunks were queued past the budget")
		}
	}
	if got := q.backlogBytes(); got > 64<<10 {
		t.Fatalf("%d bytes queued over a 64 KiB budget", got)
	}
}

func (q *eventQueue) backlogBytes() int {
	q.mu.Lock()
	defer q.mu.Unlock()
	return q.bytes
}
