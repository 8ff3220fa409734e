package store

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
)

var benchData = json.RawMessage(`{"kind":"agent_message_chunk","text":"Reading the repository layout before editing the parser."}`)

// BenchmarkAppend measures one event per committed transaction. synced is the shipped setting
// (SyncWrites); explicit-sync commits without sync and then calls badger's Sync, the alternative
// that was considered; 4-tasks runs four writers on different tasks, where badger can group
// their synced commits.
func BenchmarkAppend(b *testing.B) {
	for _, bc := range []struct {
		name         string
		sync, manual bool
		writers      int
	}{
		{"synced", true, false, 1},
		{"unsynced", false, false, 1},
		{"explicit-sync", false, true, 1},
		{"synced-4-tasks", true, false, 4},
	} {
		b.Run(bc.name, func(b *testing.B) {
			s := openTest(b, func(o *Options) { o.noSync = !bc.sync })
			b.ResetTimer()
			var wg sync.WaitGroup
			for w := range bc.writers {
				id := fmt.Sprintf("t%d", w)
				wg.Go(func() {
					for i := w; i < b.N; i += bc.writers {
						if _, err := s.Append(id, NewEvent{Type: "session_update", Data: benchData}); err != nil {
							b.Error(err)
							return
						}
						if bc.manual {
							if err := s.db.Sync(); err != nil {
								b.Error(err)
								return
							}
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
