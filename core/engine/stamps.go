package engine

import (
	"sync"

	"reasonixctl/core/gitx"
)

// scanStamps remembers, per task, the source stamp taken right before its last collision scan
// that found nothing, so that a checkpoint whose stamp is unchanged can skip running git: the
// scan would read the same HEAD, index, configuration and files and answer the same. Only settled
// stamps are kept (see gitx.SourceStamp and RELIABILITY.md, "Skipping a scan").
type scanStamps struct {
	mu sync.Mutex
	m  map[string]baseStamp
}

type baseStamp struct {
	base  string
	stamp gitx.SourceStamp
}

// maxStamps bounds the map over a long-running engine; when full it starts over, which only
// costs the next checkpoint of each task a git scan.
const maxStamps = 4096

// clean reports whether stamp equals the one kept for the task at this base.
func (s *scanStamps) clean(task, base string, stamp gitx.SourceStamp) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	kept, ok := s.m[task]
	return ok && kept.base == base && kept.stamp.Equal(stamp)
}

func (s *scanStamps) put(task, base string, stamp gitx.SourceStamp) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.m == nil || len(s.m) >= maxStamps {
		s.m = map[string]baseStamp{}
	}
	s.m[task] = baseStamp{base: base, stamp: stamp}
}

func (s *scanStamps) drop(task string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.m, task)
}
