package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
)

var benchData = json.RawMessage(`{"kind":"agent_message_chunk","text":"Reading the repository layout before editing the parser."}`)

// BenchmarkAppend measures one event per committed transaction. durable is an Update that
// waits for the disk (state changes, decisions); append is Append, which does not (agent text,
// tool progress); durable-4-tasks runs four durable writers on different tasks.
func BenchmarkAppend(b *testing.B) {
	event := func([]byte, bool) ([]byte, []NewEvent, error) {
		return nil, []NewEvent{{Type: "session_update", Data: benchData}}, nil
	}
	for _, bc := range []struct {
		name    string
		durable bool
		writers int
	}{
		{"durable", true, 1},
		{"append", false, 1},
		{"durable-4-tasks", true, 4},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := openTest(b)
			b.ResetTimer()
			var wg sync.WaitGroup
			for w := range bc.writers {
				id := fmt.Sprintf("t%d", w)
				wg.Go(func() {
					for i := w; i < b.N; i += bc.writers {
						var err error
						if bc.durable {
							_, err = s.Update(id, event)
						} else {
							_, err = s.Append(id, NewEvent{Type: "session_update", Data: benchData})
						}
						if err != nil {
							b.Error(err)
							return
						}
					}
				})
			}
			wg.Wait()
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
		})
	}
}

// BenchmarkUpdate measures a record change plus its event, synced, as the task engine does.
func BenchmarkUpdate(b *testing.B) {
	s := openTest(b)
	b.ResetTimer()
	for range b.N {
		if _, err := s.Update("t1", increment); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "updates/s")
}

// BenchmarkReplay measures reading a task's journal back through Subscribe; one op is one event.
func BenchmarkReplay(b *testing.B) {
	s := openTest(b, unsynced)
	batch := make([]NewEvent, 100)
	for j := range batch {
		batch[j] = NewEvent{Type: "session_update", Data: benchData}
	}
	for i := 0; i < b.N; i += len(batch) {
		if _, err := s.Append("t1", batch[:min(len(batch), b.N-i)]...); err != nil {
			b.Fatal(err)
		}
	}
	b.ResetTimer()
	sub, err := s.Subscribe(context.Background(), "t1", 1)
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()
	for ev := range sub.Events() {
		if ev.Seq == uint64(b.N) {
			break
		}
	}
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "events/s")
}
