// Package shellargv reduces a command a worker asks permission for to the plain argv the
// policy decides on, or says why it cannot. Agents other than Reasonix describe a command as a
// shell string ("go test ./..."), as an argv that hands a script to a shell
// (["/bin/bash", "-lc", "go test ./..."]), or as a plain argv; Command takes any of them.
//
// A string is read with a real shell parser (mvdan.cc/sh/v3/syntax) and accepted only when it
// is one simple command whose words are literal after quote removal: quotes, backslash escapes
// and words glued from quoted pieces. Anything a shell would expand, redirect, chain, run in the
// background or read differently from one shell to the next is refused with a *Refusal that
// names what it met. The reading is strict on purpose: a refused command is put to a person,
// never allowed by policy, so when in doubt it refuses.
//
// The package only reads; it runs nothing and imports nothing of reasonixctl.
package shellargv

import (
	"fmt"
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Limits of what is reduced at all: the bytes of a shell string, the words of an argv, and
// the shells nested inside each other.
const (
	MaxBytes = 64 << 10
	MaxWords = 1024
	MaxDepth = 3
)

// Reason says what kind of thing kept a command from being plain argv. Its value is a stable
// snake_case word, fit for a journal or a test.
type Reason string

// The reasons for a refusal.
const (
	ReasonEmpty        Reason = "empty"                // nothing to run: an empty string or argv, only blanks
	ReasonTooLong      Reason = "too_long"             // more than MaxBytes bytes or MaxWords words
	ReasonControl      Reason = "control_character"    // NUL, another control or invisible format character, or bytes that are not UTF-8
	ReasonSyntax       Reason = "syntax"               // the parser's error: an unclosed quote, a stray keyword, a dangling backslash
	ReasonSequence     Reason = "sequence"             // more than one statement: ;, a newline between commands
	ReasonAndOr        Reason = "and_or"               // && or ||
	ReasonPipe         Reason = "pipe"                 // | or |&
	ReasonBackground   Reason = "background"           // &, a coprocess, a disowned job
	ReasonRedirect     Reason = "redirection"          // <, >, 2>&1, >>, here-documents and here-strings
	ReasonSubshell     Reason = "subshell"             // ( … )
	ReasonCommandSubst Reason = "command_substitution" // $( … ) and ` … `
	ReasonParameter    Reason = "parameter_expansion"  // $X, ${X}, $1, an unquoted or double-quoted $
	ReasonArithmetic   Reason = "arithmetic"           // $(( … )), (( … )), let
	ReasonProcessSubst Reason = "process_substitution" // <( … ) and >( … )
	ReasonGlob         Reason = "glob"                 // unquoted *, ?, [ or ], and extended globs
	ReasonBrace        Reason = "brace_expansion"      // unquoted { or }
	ReasonTilde        Reason = "tilde_expansion"      // unquoted ~
	ReasonAssignment   Reason = "assignment"           // FOO=1 cmd, a bare assignment, declare/export/local/readonly/typeset
	ReasonFunction     Reason = "function"             // a function definition
	ReasonCompound     Reason = "compound"             // if, for, while, until, case, select, { … }, [[ … ]], time, coproc, ! cmd
	ReasonComment      Reason = "comment"              // a # comment, or an unquoted # inside a word
	ReasonDollarQuote  Reason = "dollar_quote"         // $'…' and $"…", which shells read differently
	ReasonSpecial      Reason = "special_character"    // an unquoted character a shell may give a meaning (!, ^, a leading = in zsh, …)
	ReasonContinuation Reason = "line_continuation"    // a backslash-newline that joins text or sits in double quotes
	ReasonNoProgram    Reason = "empty_program"        // the program's name is empty
	ReasonTrampoline   Reason = "trampoline"           // a shell given -c with options or operands beyond `-l -c SCRIPT`
	ReasonNesting      Reason = "nesting"              // shells nested deeper than MaxDepth
	ReasonType         Reason = "not_a_command"        // Command's value is neither a string nor a list of strings
)

// Refusal is the error of a command that is not plain argv: its Reason, and Detail, the
// particular thing met, in words.
type Refusal struct {
	Reason Reason
	Detail string
}

func (r *Refusal) Error() string {
	return "not a plain command (" + string(r.Reason) + "): " + r.Detail
}

func refuse(reason Reason, format string, args ...any) *Refusal {
	return &Refusal{Reason: reason, Detail: fmt.Sprintf(format, args...)}
}

// clip shortens the worker's text quoted in a refusal to its first 60 bytes or so.
func clip(s string) string {
	const keep = 60
	if len(s) <= keep {
		return s
	}
	cut := keep
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// Parse reads s as bash and POSIX sh read a command line and returns its argv when s is one
// simple command whose words are all literal after quote removal; anything else is refused
// with a *Refusal. Parse does not unwrap a shell it names: Command and Unwrap do.
func Parse(s string) ([]string, error) {
	return parse(s, false)
}

// Unwrap returns the command a shell trampoline runs: `bash -c S`, `bash -lc S`, `sh -c S`,
// `zsh -l -c S`, `/bin/bash -lc S`, `/usr/bin/env bash -c S` and the like give Parse(S),
// unwrapped again when S is itself a trampoline (at most MaxDepth shells deep). A zsh script is
// read more strictly than Parse reads (an unquoted leading = is refused: zsh expands =cmd). A
// shell given -c in any other way (more options, more operands, no script) is refused, as is
// a script that is not plain argv. An argv that is not a trampoline is returned as it is,
// once it is known to name a program and to hold no NUL or other control character.
func Unwrap(argv []string) ([]string, error) {
	return unwrap(argv, 0)
}

// Command reduces a permission request's command value, as decoded from JSON, to argv: a
// string is parsed and then unwrapped, a list of strings ([]string, or []any holding only
// strings) is unwrapped; anything else is refused. Which shell will run a string is not known,
// so it is read as strictly as a zsh script is.
func Command(v any) ([]string, error) {
	switch x := v.(type) {
	case string:
		argv, err := parse(x, true)
		if err != nil {
			return nil, err
		}
		return unwrap(argv, 0)
	case []string:
		return unwrap(x, 0)
	case []any:
		argv := make([]string, len(x))
		for i, item := range x {
			s, ok := item.(string)
			if !ok {
				return nil, refuse(ReasonType, "item %d of the command is a %T, not a string", i, item)
			}
			argv[i] = s
		}
		return unwrap(argv, 0)
	case nil:
		return nil, refuse(ReasonType, "the command is missing")
	}
	return nil, refuse(ReasonType, "the command is a %T, neither a string nor a list of strings", v)
}

func unwrap(argv []string, depth int) ([]string, error) {
	if err := checkArgv(argv); err != nil {
		return nil, err
	}
	shell, script, ok, err := trampoline(argv)
	if err != nil {
		return nil, err
	}
	if !ok {
		return slices.Clone(argv), nil
	}
	if depth >= MaxDepth {
		return nil, refuse(ReasonNesting, "more than %d shells run each other", MaxDepth)
	}
	inner, err := parse(script, shell == "zsh")
	if err != nil {
		if r, ok := err.(*Refusal); ok {
			return nil, &Refusal{Reason: r.Reason, Detail: "in the script " + shell + " runs: " + r.Detail}
		}
		return nil, err
	}
	return unwrap(inner, depth+1)
}

// checkArgv refuses an argv with no program, too many words, or a word a person could not read
// as written (NUL, control and format characters, bytes that are not UTF-8).
func checkArgv(argv []string) error {
	switch {
	case len(argv) == 0:
		return refuse(ReasonEmpty, "the command has no words")
	case len(argv) > MaxWords:
		return refuse(ReasonTooLong, "the command has %d words (at most %d)", len(argv), MaxWords)
	case argv[0] == "":
		return refuse(ReasonNoProgram, "the program's name is empty")
	}
	for i, a := range argv {
		if len(a) > MaxBytes {
			return refuse(ReasonTooLong, "word %d has %d bytes (at most %d)", i, len(a), MaxBytes)
		}
		if err := checkText(a); err != nil {
			err.Detail = fmt.Sprintf("word %d: %s", i, err.Detail)
			return err
		}
	}
	return nil
}

// checkText refuses bytes that are not UTF-8 and every character that is neither graphic nor
// a space, a tab or a newline: NUL, the other C0 and C1 controls (a carriage return included),
// DEL, format characters such as bidirectional overrides and zero-width joiners, line and
// paragraph separators, private-use and unassigned code points. They hide or reorder text a
// person reads.
func checkText(s string) *Refusal {
	for i, r := range s {
		switch {
		case r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD"):
			return refuse(ReasonControl, "byte %d is not UTF-8", i)
		case r == 0:
			return refuse(ReasonControl, "byte %d is NUL", i)
		case r == ' ' || r == '\t' || r == '\n':
		case !unicode.IsGraphic(r) || r == utf8.RuneError:
			return refuse(ReasonControl, "byte %d is the control or invisible character %U", i, r)
		}
	}
	return nil
}

// shells are the programs whose -c script is unwrapped; knownDirs the directories a shell named
// by its path may live in. A shell anywhere else (./bash, /tmp/x/sh) is some other program.
var (
	shells    = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true}
	knownDirs = map[string]bool{"/bin": true, "/usr/bin": true, "/usr/local/bin": true, "/opt/homebrew/bin": true}
)

// program returns the name of a well-known program named bare or by its path in a known
// directory; "" for anything else.
func program(word string) string {
	if !strings.Contains(word, "/") {
		return word
	}
	if dir, name := path.Split(word); knownDirs[strings.TrimSuffix(dir, "/")] {
		return name
	}
	return ""
}

// trampoline recognises argv that hands a script to a shell: the shell's name and its script
// when ok. A shell given -c in a form other than options among -c, -l, -lc, -cl and --login
// followed by the script alone is refused; a shell without -c is no trampoline.
func trampoline(argv []string) (shell, script string, ok bool, err error) {
	args := argv
	if program(args[0]) == "env" && len(args) > 1 && shells[program(args[1])] {
		args = args[1:]
	}
	shell = program(args[0])
	if !shells[shell] {
		return "", "", false, nil
	}
	var (
		cs, others int
		operands   []string
	)
	i := 1
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			others++ // the end of options is no part of `bash -lc SCRIPT`
			i++
			break
		}
		if len(a) < 2 || (a[0] != '-' && a[0] != '+') {
			break
		}
		switch a {
		case "-c":
			cs++
		case "-l", "--login":
		case "-lc", "-cl":
			cs++
		default:
			if a[0] == '-' && a[1] != '-' && strings.ContainsRune(a[1:], 'c') {
				cs++
			}
			others++
			if a == "-o" || a == "+o" || a == "-O" || a == "+O" {
				i++ // the option's argument
			}
		}
	}
	if i < len(args) {
		operands = args[i:]
	}
	switch {
	case cs == 0:
		return "", "", false, nil
	case others > 0 || cs > 1:
		return "", "", false, refuse(ReasonTrampoline, "%s is given -c with options other than -l: %s", shell, strings.Join(args[1:i], " "))
	case len(operands) == 0:
		return "", "", false, refuse(ReasonTrampoline, "%s is given -c without a script", shell)
	case len(operands) > 1:
		return "", "", false, refuse(ReasonTrampoline, "%s is given %d words after its script", shell, len(operands)-1)
	}
	return shell, operands[0], true, nil
}

// parse reads s as one simple command of literal words. zsh, when set, also refuses what zsh
// alone expands in a word that is literal to bash and sh (=cmd).
func parse(s string, zsh bool) ([]string, error) {
	if len(s) > MaxBytes {
		return nil, refuse(ReasonTooLong, "the command has %d bytes (at most %d)", len(s), MaxBytes)
	}
	if err := checkText(s); err != nil {
		return nil, err
	}
	if strings.TrimSpace(s) == "" {
		return nil, refuse(ReasonEmpty, "the command is empty")
	}
	f, err := syntax.NewParser(syntax.KeepComments(true), syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(s), "")
	if err != nil {
		return nil, refuse(ReasonSyntax, "%v", err)
	}
	switch {
	case len(f.Last) > 0:
		return nil, refuse(ReasonComment, "the command has a comment: #%s", clip(f.Last[0].Text))
	case len(f.Stmts) == 0:
		return nil, refuse(ReasonEmpty, "the command is empty")
	case len(f.Stmts) > 1:
		for _, st := range f.Stmts {
			if st.Background || st.Coprocess || st.Disown {
				return nil, refuse(ReasonBackground, "the command runs a statement in the background")
			}
		}
		return nil, refuse(ReasonSequence, "the command is %d statements", len(f.Stmts))
	}
	r := reader{src: s, zsh: zsh}
	return r.stmt(f.Stmts[0])
}

type reader struct {
	src string
	zsh bool
}

func (r reader) stmt(st *syntax.Stmt) ([]string, error) {
	switch {
	case len(st.Comments) > 0:
		return nil, refuse(ReasonComment, "the command has a comment: #%s", clip(st.Comments[0].Text))
	case st.Background || st.Coprocess || st.Disown:
		return nil, refuse(ReasonBackground, "the command runs in the background")
	case st.Semicolon.IsValid():
		return nil, refuse(ReasonSequence, "the command ends in a separator")
	case st.Negated:
		return nil, refuse(ReasonCompound, "the command's status is negated with !")
	case len(st.Redirs) > 0:
		return nil, refuse(ReasonRedirect, "the command redirects with %s", st.Redirs[0].Op)
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return r.call(c)
	case *syntax.BinaryCmd:
		switch c.Op {
		case syntax.AndStmt, syntax.OrStmt:
			return nil, refuse(ReasonAndOr, "the command chains commands with %s", c.Op)
		case syntax.Pipe, syntax.PipeAll:
			return nil, refuse(ReasonPipe, "the command is a pipeline (%s)", c.Op)
		}
		return nil, refuse(ReasonCompound, "the command joins commands with %s", c.Op)
	case *syntax.Subshell:
		return nil, refuse(ReasonSubshell, "the command runs in a subshell")
	case *syntax.FuncDecl:
		return nil, refuse(ReasonFunction, "the command defines a function")
	case *syntax.DeclClause:
		return nil, refuse(ReasonAssignment, "the command is the declaration builtin %s", c.Variant.Value)
	case *syntax.ArithmCmd, *syntax.LetClause:
		return nil, refuse(ReasonArithmetic, "the command is arithmetic")
	case nil:
		return nil, refuse(ReasonEmpty, "the command is empty")
	default:
		return nil, refuse(ReasonCompound, "the command is a compound command (%s)", compoundName(c))
	}
}

func compoundName(c syntax.Command) string {
	switch c := c.(type) {
	case *syntax.IfClause:
		return "if"
	case *syntax.WhileClause:
		if c.Until {
			return "until"
		}
		return "while"
	case *syntax.ForClause:
		if c.Select {
			return "select"
		}
		return "for"
	case *syntax.CaseClause:
		return "case"
	case *syntax.Block:
		return "{ … }"
	case *syntax.TestClause:
		return "[[ … ]]"
	case *syntax.TimeClause:
		return "time"
	case *syntax.CoprocClause:
		return "coproc"
	}
	return fmt.Sprintf("%T", c)
}

func (r reader) call(c *syntax.CallExpr) ([]string, error) {
	if len(c.Assigns) > 0 {
		a := c.Assigns[0]
		name := "a variable"
		if a.Name != nil {
			name = a.Name.Value
		}
		return nil, refuse(ReasonAssignment, "the command assigns %s", name)
	}
	if len(c.Args) > MaxWords {
		return nil, refuse(ReasonTooLong, "the command has %d words (at most %d)", len(c.Args), MaxWords)
	}
	argv := make([]string, len(c.Args))
	for i, w := range c.Args {
		word, err := r.word(w)
		if err != nil {
			return nil, err
		}
		argv[i] = word
	}
	if argv[0] == "" {
		return nil, refuse(ReasonNoProgram, "the program's name is empty")
	}
	if err := r.program(argv[0]); err != nil {
		return nil, err
	}
	return argv, nil
}

// program refuses a program name that a shell reads as something else once it is written
// bare: a keyword, a declaration or arithmetic builtin, an assignment. Parse reaches them only
// through quoting ('if', A'x'=1), which no command needs and which a person reading it may miss.
func (r reader) program(name string) error {
	switch {
	case syntax.IsKeyword(name) || r.zsh && zshKeywords[name]:
		return refuse(ReasonCompound, "the program's name is the shell keyword %q", clip(name))
	case name == "let":
		return refuse(ReasonArithmetic, "the program is the arithmetic builtin let")
	case declarations[name]:
		return refuse(ReasonAssignment, "the program is the declaration builtin %s", name)
	case strings.Contains(name, "="):
		return refuse(ReasonAssignment, "the program's name %q reads as an assignment", clip(name))
	}
	return nil
}

var (
	declarations = map[string]bool{"declare": true, "local": true, "export": true, "readonly": true, "typeset": true, "nameref": true}
	// zshKeywords are zsh's reserved words and precommand modifiers beyond bash's keywords.
	zshKeywords = map[string]bool{"repeat": true, "foreach": true, "end": true, "always": true, "nocorrect": true, "noglob": true, "-": true}
)

// word is w after quote removal, when every part of it is literal.
func (r reader) word(w *syntax.Word) (string, error) {
	if err := r.continuation(w); err != nil {
		return "", err
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if err := unquoted(&b, p.Value, r.zsh); err != nil {
				return "", err
			}
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", refuse(ReasonDollarQuote, "$'…' quoting in %q", clip(r.text(w)))
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", refuse(ReasonDollarQuote, "$\"…\" quoting in %q", clip(r.text(w)))
			}
			for _, inner := range p.Parts {
				lit, ok := inner.(*syntax.Lit)
				if !ok {
					return "", expansion(inner, clip(r.text(w)))
				}
				if err := doubleQuoted(&b, lit.Value); err != nil {
					return "", err
				}
			}
		default:
			return "", expansion(part, clip(r.text(w)))
		}
	}
	return b.String(), nil
}

// expansion is the refusal of a word part that is not literal.
func expansion(part syntax.WordPart, word string) *Refusal {
	switch p := part.(type) {
	case *syntax.ParamExp:
		return refuse(ReasonParameter, "parameter expansion in %q", word)
	case *syntax.CmdSubst:
		return refuse(ReasonCommandSubst, "command substitution in %q", word)
	case *syntax.ArithmExp:
		return refuse(ReasonArithmetic, "arithmetic expansion in %q", word)
	case *syntax.ProcSubst:
		return refuse(ReasonProcessSubst, "process substitution in %q", word)
	case *syntax.ExtGlob:
		return refuse(ReasonGlob, "extended glob in %q", word)
	case *syntax.BraceExp:
		return refuse(ReasonBrace, "brace expansion in %q", word)
	default:
		return refuse(ReasonSyntax, "%T in %q", p, word)
	}
}

// text is the source of a node, for the words of a refusal.
func (r reader) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(r.src) || start > end {
		return ""
	}
	return r.src[start:end]
}

// continuation refuses a backslash-newline in word w that changes what a person reads: one
// inside double quotes (the shell deletes the line break shown), and one that glues the text on
// both sides of it into one word. One between words, or at a word's end, only continues the
// line; inside single quotes a backslash is only a backslash.
func (r reader) continuation(w *syntax.Word) error {
	start, end := int(w.Pos().Offset()), int(w.End().Offset())
	if start < 0 || end > len(r.src) || start > end {
		return refuse(ReasonSyntax, "a word's position is outside the command")
	}
	// where[i] says what the byte at start+i sits in: 0 unquoted, 's' single, 'd' double quotes.
	where := make([]byte, end-start)
	for _, part := range w.Parts {
		kind := byte(0)
		switch part.(type) {
		case *syntax.SglQuoted:
			kind = 's'
		case *syntax.DblQuoted:
			kind = 'd'
		default:
			continue
		}
		for i := int(part.Pos().Offset()); i < int(part.End().Offset()) && i < end; i++ {
			if i >= start {
				where[i-start] = kind
			}
		}
	}
	for i := start; i < end; i++ {
		if r.src[i] != '\\' || where[i-start] == 's' {
			continue
		}
		j := i
		for j < end && r.src[j] == '\\' && where[j-start] == where[i-start] {
			j++
		}
		// A run of backslashes escapes in pairs: an odd run's last one escapes what follows.
		if (j-i)%2 == 1 && j < end && r.src[j] == '\n' {
			switch {
			case where[j-1-start] == 'd':
				return refuse(ReasonContinuation, "a backslash-newline inside double quotes in %q", clip(r.src[start:end]))
			case j+1 < end:
				return refuse(ReasonContinuation, "a backslash-newline joins the text around it in %q", clip(r.src[start:end]))
			}
		}
		i = j - 1
	}
	return nil
}

// unquoted appends the literal value of an unquoted word piece: a backslash makes the next
// character literal; a bare character must be one no shell gives a meaning to. With zsh set, an
// = that nothing of the word (b) comes before is refused: zsh expands =cmd to cmd's path.
func unquoted(b *strings.Builder, v string, zsh bool) error {
	for i := 0; i < len(v); {
		c, size := utf8.DecodeRuneInString(v[i:])
		if c == '\\' {
			if i+1 >= len(v) {
				return refuse(ReasonSyntax, "a backslash escapes nothing at the end of %q", clip(v))
			}
			next, n := utf8.DecodeRuneInString(v[i+1:])
			if next == '\n' {
				return refuse(ReasonContinuation, "a backslash-newline inside %q", clip(v))
			}
			b.WriteRune(next)
			i += 1 + n
			continue
		}
		switch {
		case c < utf8.RuneSelf && plain[c]:
			if c == '=' && zsh && b.Len() == 0 {
				return refuse(ReasonSpecial, "zsh expands an unquoted = at the start of a word (%q)", clip(v))
			}
		case c >= utf8.RuneSelf && (unicode.IsLetter(c) || unicode.IsDigit(c)):
		default:
			return refuse(special(c), "unquoted %q in %q", c, clip(v))
		}
		b.WriteString(v[i : i+size])
		i += size
	}
	return nil
}

// plain are the ASCII characters no shell expands when unquoted (the quoter's own set:
// core.ShellWords leaves exactly these bare).
var plain = func() (t [utf8.RuneSelf]bool) {
	for _, c := range "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_@%+=:,./-" {
		t[c] = true
	}
	return t
}()

// special is the reason to refuse an unquoted character outside plain.
func special(c rune) Reason {
	switch c {
	case '*', '?', '[', ']':
		return ReasonGlob
	case '{', '}':
		return ReasonBrace
	case '~':
		return ReasonTilde
	case '#':
		return ReasonComment
	case '$':
		return ReasonParameter
	case '`':
		return ReasonCommandSubst
	}
	return ReasonSpecial
}

// doubleQuoted appends the literal value of a piece inside double quotes: a backslash escapes
// only $, `, " and itself, and stays otherwise; $ and ` start expansions and ! history
// expansion in an interactive shell, so all three are refused.
func doubleQuoted(b *strings.Builder, v string) error {
	for i := 0; i < len(v); i++ {
		c := v[i]
		switch c {
		case '\\':
			if i+1 < len(v) {
				switch v[i+1] {
				case '$', '`', '"', '\\':
					b.WriteByte(v[i+1])
					i++
					continue
				case '\n':
					return refuse(ReasonContinuation, "a backslash-newline inside double quotes")
				}
			} else {
				return refuse(ReasonSyntax, "a backslash escapes nothing at the end of %q", clip(v))
			}
		case '$':
			return refuse(ReasonParameter, "a $ inside double quotes")
		case '`':
			return refuse(ReasonCommandSubst, "a backquote inside double quotes")
		case '!':
			return refuse(ReasonSpecial, "a ! inside double quotes (history expansion)")
		}
		b.WriteByte(c)
	}
	return nil
}

// Seen is one simple command found inside a command that is not plain argv: its leading
// literal words, and whether words that are not literal (an expansion, a glob) followed them.
type Seen struct {
	Argv    []string
	Partial bool
}

// Visible returns the simple commands a command would run as far as a reader can tell, for a
// command Command refuses: each simple command anywhere in it (in a pipeline or a list, a
// subshell, a substitution, the script of a nested shell) with its leading literal words. A
// shell trampoline is replaced by the commands of its script; a command whose program is not
// literal, and a string the parser cannot read, yield nothing. What is seen here can only make
// a command's denial certain: it is never enough to allow one.
func Visible(v any) []Seen {
	var out []Seen
	switch x := v.(type) {
	case string:
		visibleScript(x, false, 0, &out)
	case []string:
		visibleArgv(Seen{Argv: x}, 0, &out)
	case []any:
		var s Seen
		for _, item := range x {
			w, ok := item.(string)
			if !ok {
				s.Partial = true
				break
			}
			s.Argv = append(s.Argv, w)
		}
		visibleArgv(s, 0, &out)
	}
	return out
}

func visibleArgv(s Seen, depth int, out *[]Seen) {
	if len(s.Argv) == 0 || s.Argv[0] == "" || checkArgv(s.Argv) != nil {
		return
	}
	if !s.Partial {
		if shell, script, ok, err := trampoline(s.Argv); err == nil && ok {
			if depth < MaxDepth {
				visibleScript(script, shell == "zsh", depth+1, out)
			}
			return
		}
	}
	*out = append(*out, s)
}

func visibleScript(src string, zsh bool, depth int, out *[]Seen) {
	if len(src) > MaxBytes || checkText(src) != nil {
		return
	}
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(src), "")
	if err != nil {
		return
	}
	r := reader{src: src, zsh: zsh}
	syntax.Walk(f, func(n syntax.Node) bool {
		c, ok := n.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		s := Seen{}
		for _, w := range c.Args {
			word, err := r.word(w)
			if err != nil {
				s.Partial = true
				break
			}
			s.Argv = append(s.Argv, word)
		}
		visibleArgv(s, depth, out)
		return true // the words may hold substitutions with commands of their own
	})
}
