package mockllm

import (
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"sync"
)

// Router is one loopback front for many scripted conversations, such as the tasks of one test,
// each with an agent of its own. A request goes to the script registered for the last
// `SCENARIO:<id>` token in its body (a conversation's history holds only its own), started at
// the first request that finds it ready; every other request goes to a default that answers
// the agents' side requests (titles, summaries).
type Router struct {
	front *httptest.Server
	aside *Server

	mu      sync.Mutex
	scripts map[string]*routed
}

type routed struct {
	steps func() ([]Step, bool)
	srv   *Server
}

var routeToken = regexp.MustCompile(`SCENARIO:([A-Za-z0-9._-]+)`)

// NewRouter starts a router; Close stops it and every script it started.
func NewRouter() (*Router, error) {
	aside, err := Start(Script{Default: &Step{Text: "Nothing to do."}}.WithAsides(), nil)
	if err != nil {
		return nil, err
	}
	r := &Router{aside: aside, scripts: map[string]*routed{}}
	r.front = httptest.NewServer(http.HandlerFunc(r.serve))
	return r, nil
}

// Add registers the conversation id. steps gives its script once it can be built (a task's
// worktree known), false before; the script answers SCENARIO:id and then "MOCK-DONE.".
func (r *Router) Add(id string, steps func() ([]Step, bool)) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.scripts[id] = &routed{steps: steps}
}

// Requests are what the script of id was asked, nil before it started.
func (r *Router) Requests(id string) []Request {
	r.mu.Lock()
	s := r.scripts[id]
	r.mu.Unlock()
	if s == nil || s.srv == nil {
		return nil
	}
	return s.srv.Requests()
}

// URL is the router's scheme://host:port.
func (r *Router) URL() string { return r.front.URL }

// Close stops the router and its scripts.
func (r *Router) Close() {
	r.front.Close()
	r.aside.Close()
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, s := range r.scripts {
		if s.srv != nil {
			s.srv.Close()
		}
	}
}

func (r *Router) serve(w http.ResponseWriter, req *http.Request) {
	body, _ := io.ReadAll(io.LimitReader(req.Body, 16<<20))
	req.Body = io.NopCloser(bytes.NewReader(body))
	target := r.aside
	if all := routeToken.FindAllSubmatch(body, -1); len(all) > 0 {
		id := string(all[len(all)-1][1])
		r.mu.Lock()
		if s := r.scripts[id]; s != nil {
			if s.srv == nil {
				if steps, ok := s.steps(); ok {
					if srv, err := Start(Script{Scenarios: []Scenario{{
						Match: "SCENARIO:" + id, Steps: steps, After: &Step{Text: "MOCK-DONE."},
					}}}.WithAsides(), nil); err == nil {
						s.srv = srv
					}
				}
			}
			if s.srv != nil {
				target = s.srv
			}
		}
		r.mu.Unlock()
	}
	target.ServeHTTP(w, req)
}
