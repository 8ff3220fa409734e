package acp

import (
	"encoding/json"
	"slices"
	"testing"

	sdk "github.com/coder/acp-go-sdk"
)

// An edit request without rawInput (as Gemini sends it) names its files only in locations and
// in its diff content; both reach the supervisor.
func TestPermissionRequestCarriesDiffPaths(t *testing.T) {
	const params = `{"sessionId":"s","options":[{"optionId":"proceed_once","name":"Allow","kind":"allow_once"}],
	 "toolCall":{"toolCallId":"write_file_1","status":"pending","title":"Writing to hello.txt","kind":"edit",
	  "content":[{"type":"content","content":{"type":"text","text":"note"}},
	             {"type":"diff","path":"/w/hello.txt","oldText":"","newText":"hi\n"},
	             {"type":"diff","path":"/w/b.txt","newText":"b"}],
	  "locations":[{"path":"/w/hello.txt"}]}}`
	var p sdk.RequestPermissionRequest
	if err := json.Unmarshal([]byte(params), &p); err != nil {
		t.Fatal(err)
	}
	req := permissionRequest(p)
	if want := []string{"/w/hello.txt", "/w/b.txt"}; !slices.Equal(req.DiffPaths, want) {
		t.Fatalf("DiffPaths = %q, want %q", req.DiffPaths, want)
	}
	if req.RawInput != nil || !slices.Equal(req.Locations, []string{"/w/hello.txt"}) {
		t.Fatalf("RawInput %s, Locations %q", req.RawInput, req.Locations)
	}
}
