package safetext

import (
	"reflect"
	"strings"
	"testing"
)

func TestLookAlikes(t *testing.T) {
	for line, want := range map[string][]LookAlike{
		// Whole words in another script that read as ASCII.
		"var рос = 1":         {{Word: "рос", ASCII: "poc"}},
		"func сору(dst, src)": {{Word: "сору", ASCII: "copy"}},
		"x := а + 1":          {{Word: "а", ASCII: "a"}},
		"var օո = true":       {{Word: "օո", ASCII: "on"}},
		"ᎻᎬᎪᎠ = ref":          {{Word: "ᎻᎬᎪᎠ", ASCII: "HEAD"}},
		"ᎪᏴ":                  {{Word: "ᎪᏴ", ASCII: "AB"}},
		"𝐞𝐱𝐞𝐜(cmd)":           {{Word: "𝐞𝐱𝐞𝐜", ASCII: "exec"}},
		"if 𝟏 > x𝟎":           {{Word: "𝟏", ASCII: "1"}, {Word: "x𝟎", ASCII: "x0"}},
		"ﬁle.Close()":         {{Word: "ﬁle", ASCII: "file"}},
		"kapı := open()":      {{Word: "kapı", ASCII: "kapi"}},
		// Mixed scripts, with and without an ASCII reading; each word once.
		"pаypal(pаypal)":   {{Word: "pаypal", ASCII: "paypal", Mixed: true}},
		"if ΙD > 0":        {{Word: "ΙD", ASCII: "ID", Mixed: true}},
		"houseд":           {{Word: "houseд", Mixed: true}},
		"漢字дом":            {{Word: "漢字дом", Mixed: true}},
		"カタカナ한국어":          {{Word: "カタカナ한국어", Mixed: true}},
		"дом // Привет ок": nil,
		// A look-alike among words of its own script is prose, unless ASCII words outnumber
		// them; a word made of characters of no script in particular is never prose.
		"// Он рос в деревне":          nil,
		"а также с помощью":            nil,
		"x := рос // Привет":           {{Word: "рос", ASCII: "poc"}},
		"if рос == nil { return err }": {{Word: "рос", ASCII: "poc"}},
		"Он и 𝐞𝐱𝐞𝐜":                    {{Word: "𝐞𝐱𝐞𝐜", ASCII: "exec"}},
		"bu kapı çok açık":             nil,
		// Ordinary text.
		"Привет мир, hello world, αβγ": nil,
		"сеть": nil,
		"Die Größe wird geprüft, naïve café, été":                                    nil,
		"漢字とひらがなとカタカナ":                                                               nil,
		"Goのテスト、「Go」の関数":                                                             nil,
		"한국어 문장, 中文(简体) ㄅㄆㄇ":                                                         nil,
		"❤️ 👨‍👩‍👧 🏴\U000E0067\U000E0062\U000E0073\U000E0063\U000E0074\U000E007F #️⃣": nil,
		"plain ASCII only": nil,
		// Default-ignorable characters are read through, not cut at: HiddenIn reports them,
		// and a look-alike stays one word.
		"ex\u3164ec":       nil,
		"p\u200bаypal":     {{Word: "p\u200bаypal", ASCII: "paypal", Mixed: true}},
		"1\ufe0f\u20e3":    nil,
		"\u3164 := \u3164": nil,
	} {
		if got := LookAlikes(line); !reflect.DeepEqual(got, want) {
			t.Errorf("LookAlikes(%+q) = %+v, want %+v", line, got, want)
		}
	}
}

// A long line names each look-alike once; its genuine words decide for the whole line.
func TestLookAlikesOfALongLine(t *testing.T) {
	line := strings.Repeat("рос а ", 50000) + strings.Repeat("x ", 50001)
	if got := LookAlikes(line + strings.Repeat("дом ", 50002)); got != nil {
		t.Fatalf("LookAlikes of prose = %+v", got)
	}
	got := LookAlikes(line)
	if len(got) != 2 || got[0].ASCII != "poc" || got[1].ASCII != "a" {
		t.Fatalf("LookAlikes = %+v", got)
	}
}
