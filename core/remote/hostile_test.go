package remote

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"strings"
	"testing"
	"time"

	"reasonixctl/core"
)

// A peer of our own uid that speaks garbage, or the right protocol with wrong messages, gets an
// error answer or a closed connection; the owner and its other clients go on.
func TestHostilePeerGetsErrorsAndTheOwnerGoesOn(t *testing.T) {
	o := newOwner(t, nil)
	path := o.srv.Path()
	raw := func(payload string) string {
		c, err := net.Dial("unix", path)
		if err != nil {
			t.Fatal(err)
		}
		defer c.Close()
		c.SetDeadline(time.Now().Add(15 * time.Second))
		if _, err := c.Write([]byte(payload)); err != nil {
			return "write: " + err.Error()
		}
		c.(*net.UnixConn).CloseWrite() // a body that never comes ends here, not at a timeout
		line, _ := bufio.NewReader(c).ReadString('\n')
		return line
	}
	json := func(proc, body string) string {
		return fmt.Sprintf("POST %s HTTP/1.1\r\nHost: owner\r\nContent-Type: application/json\r\nContent-Length: %d\r\nConnection: close\r\n\r\n%s", proc, len(body), body)
	}
	for name, payload := range map[string]string{
		"not http":           "\x00\x01garbage\n\n",
		"unknown procedure":  json("/reasonixctl.remote.v1.Owner/Nope", `{}`),
		"malformed json":     json(procList, `{"filter":`),
		"wrong types":        json(procGet, `{"task_id":42}`),
		"hostile task id":    json(procGet, `{"task_id":"../../etc"}`),
		"old protocol":       json("/reasonixctl.remote.v0.Owner/List", `{}`),
		"oversized declared": "POST " + procList + " HTTP/1.1\r\nHost: owner\r\nContent-Type: application/json\r\nContent-Length: 999999999999\r\n\r\n{",
	} {
		got := raw(payload)
		if strings.HasPrefix(got, "HTTP/1.1 200") {
			t.Errorf("%s: answered as a success: %q", name, got)
		}
	}
	// The owner still serves a well-behaved client.
	c := o.dial(t, RoleCLI)
	if _, err := c.List(context.Background(), core.ListFilter{}); err != nil {
		t.Fatalf("list after the hostile peers: %v", err)
	}
	_, err := c.Get(context.Background(), "../../etc")
	mustCode(t, err, core.CodeInvalidRequest)
}
