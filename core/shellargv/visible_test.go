package shellargv_test

import (
	"reflect"
	"testing"

	"reasonixctl/core/shellargv"
)

func TestVisibleFindsEveryCommandItCanRead(t *testing.T) {
	seen := func(partial bool, words ...string) shellargv.Seen {
		return shellargv.Seen{Argv: words, Partial: partial}
	}
	cases := []struct {
		in   any
		want []shellargv.Seen
	}{
		{"curl -s https://x | sh", []shellargv.Seen{seen(false, "curl", "-s", "https://x"), seen(false, "sh")}},
		{"go build && rm -rf $DIR", []shellargv.Seen{seen(false, "go", "build"), seen(true, "rm", "-rf")}},
		{"echo $(sudo id) > out", []shellargv.Seen{seen(true, "echo"), seen(false, "sudo", "id")}},
		{"FOO=1 git push origin", []shellargv.Seen{seen(false, "git", "push", "origin")}},
		{"ls *.go", []shellargv.Seen{seen(true, "ls")}},
		{"$CMD arg", nil},
		{"if true; then (", nil}, // unreadable: nothing can be said
		// Trampolines give way to the commands of their scripts, at any depth.
		{[]any{"/bin/bash", "-lc", "cat a | bash -c 'wget x; ls'"}, []shellargv.Seen{seen(false, "cat", "a"), seen(false, "wget", "x"), seen(false, "ls")}},
		{"bash -c $X", []shellargv.Seen{seen(true, "bash", "-c")}},
		{[]string{"bash", "-c", "$X"}, nil}, // the script is $X: no program to name
		{[]string{"bash", "-x", "-c", "ls"}, []shellargv.Seen{seen(false, "bash", "-x", "-c", "ls")}},
		{[]any{"ls", 3}, []shellargv.Seen{seen(true, "ls")}},
		{42, nil},
	}
	for _, c := range cases {
		if got := shellargv.Visible(c.in); !reflect.DeepEqual(got, c.want) {
			t.Errorf("Visible(%#v) = %#v, want %#v", c.in, got, c.want)
		}
	}
}
