package gitx

import (
	"slices"
	"testing"
)

func TestParseStatusEntries(t *testing.T) {
	out := "# branch.oid 0123456789012345678901234567890123456789\x00# branch.head reasonix/t\x00" +
		"1 .M N... 100644 100644 100644 aaaa bbbb with space.txt\x00" +
		"2 R. N... 100644 100644 100644 aaaa bbbb R100 new name\x00old name\x00" +
		"? untracked\x00"
	st, err := parseStatus([]byte(out))
	if err != nil {
		t.Fatal(err)
	}
	if st.head != "0123456789012345678901234567890123456789" || st.branch != "reasonix/t" {
		t.Fatalf("branch header: %+v", st)
	}
	if got := st.paths(nil); !slices.Equal(got, []string{"new name", "old name", "untracked", "with space.txt"}) {
		t.Fatalf("paths: %v", got)
	}
	if got := st.paths(statusEntry.staged); !slices.Equal(got, []string{"new name", "old name"}) {
		t.Fatalf("staged: %v", got)
	}
	for _, bad := range []string{"1 M\x00", "2 R. N... 1 1 1 a b R1 new\x00", "z what\x00", "?\x00"} {
		if _, err := parseStatus([]byte(bad)); err == nil {
			t.Errorf("accepted %q", bad)
		}
	}
}

func FuzzParsers(f *testing.F) {
	f.Add([]byte("1 .M N... 100644 100644 100644 a b x\x00? y\x00"))
	f.Add([]byte(":100644 100644 a b M\x00a.txt\x001\t1\ta.txt\x00\x00diff --git a/a.txt b/a.txt\n"))
	f.Add([]byte("R100\x00a\x00b\x00M\x00c\x00"))
	f.Fuzz(func(t *testing.T, b []byte) {
		_, _ = parseStatus(b)
		_, _, _ = parseTreeDiff(b)
		_, _ = parseNameStatus(b)
	})
}
