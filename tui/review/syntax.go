package review

import (
	"path"
	"strings"
	"sync"

	"github.com/alecthomas/chroma/v2"
)

// The diff is highlighted with chroma's lexer engine and token types, but with lexers and
// styles defined here rather than chroma's registries: those parse every bundled lexer and
// style when the program starts (20–70 ms, measured with GODEBUG=inittrace=1), a cost every
// `reasonixctl --mcp` launch would pay before answering tools/list. The rules below cover the
// languages a task usually touches; chroma compiles a lexer's rules on its first use.

// lexerByName picks the lexer for a file by its name, or nil for plain text.
func lexerByName(name string) chroma.Lexer {
	base := path.Base(name)
	ext := strings.ToLower(path.Ext(base))
	switch {
	case base == "Makefile" || base == "makefile" || base == "GNUmakefile" || ext == ".mk":
		return syntax("make")
	case base == "Dockerfile" || strings.HasPrefix(base, "Dockerfile."):
		return syntax("shell")
	}
	switch ext {
	case ".go":
		return syntax("go")
	case ".md", ".markdown", ".mdx":
		return syntax("markdown")
	case ".json", ".jsonc":
		return syntax("json")
	case ".yaml", ".yml":
		return syntax("yaml")
	case ".toml", ".ini", ".cfg", ".conf":
		return syntax("toml")
	case ".sh", ".bash", ".zsh", ".ksh", ".env":
		return syntax("shell")
	case ".py", ".pyi":
		return syntax("python")
	case ".js", ".mjs", ".cjs", ".jsx", ".ts", ".tsx", ".mts", ".cts":
		return syntax("js")
	case ".rs":
		return syntax("rust")
	case ".c", ".h", ".cc", ".cpp", ".cxx", ".hpp", ".hh", ".java", ".kt", ".kts", ".cs", ".swift", ".scala", ".dart", ".proto":
		return syntax("c")
	}
	return nil
}

var (
	lexersMu sync.Mutex
	lexerSet = map[string]chroma.Lexer{}
)

func syntax(lang string) chroma.Lexer {
	lexersMu.Lock()
	defer lexersMu.Unlock()
	if l, ok := lexerSet[lang]; ok {
		return l
	}
	l := chroma.Coalesce(chroma.MustNewLexer(&chroma.Config{Name: lang}, func() chroma.Rules { return rulesFor(lang) }))
	lexerSet[lang] = l
	return l
}

// words2 matches any of the space-separated words whole; no words match nothing (an empty
// alternative would match the empty string and stall the lexer).
func words2(ws string) string {
	if strings.TrimSpace(ws) == "" {
		return `(?!)`
	}
	return `\b(` + strings.Join(strings.Fields(ws), "|") + `)\b`
}

// codeRules are the rules shared by C-like languages: comments in // and /* */, strings,
// numbers, calls, operators and punctuation, with the language's keywords, types and constants.
func codeRules(keywords, types, constants string, extra ...chroma.Rule) chroma.Rules {
	root := append([]chroma.Rule{
		{Pattern: `\n`, Type: chroma.TextWhitespace},
		{Pattern: `[ \t]+`, Type: chroma.TextWhitespace},
		{Pattern: `//[^\n]*`, Type: chroma.CommentSingle},
		{Pattern: `/\*`, Type: chroma.CommentMultiline, Mutator: chroma.Push("comment")},
	}, extra...)
	root = append(root,
		chroma.Rule{Pattern: `"(\\.|[^"\\\n])*"?`, Type: chroma.LiteralString},
		chroma.Rule{Pattern: `'(\\.|[^'\\\n])*'?`, Type: chroma.LiteralStringChar},
		chroma.Rule{Pattern: "`[^`]*`?", Type: chroma.LiteralStringBacktick},
		chroma.Rule{Pattern: `\b(0[xX][0-9a-fA-F_]+|0[bB][01_]+|\d[\d_]*(\.\d+)?([eE][-+]?\d+)?)\b`, Type: chroma.LiteralNumber},
		chroma.Rule{Pattern: words2(keywords), Type: chroma.Keyword},
		chroma.Rule{Pattern: words2(types), Type: chroma.KeywordType},
		chroma.Rule{Pattern: words2(constants), Type: chroma.KeywordConstant},
		chroma.Rule{Pattern: `[A-Za-z_$][\w$]*(?=\s*\()`, Type: chroma.NameFunction},
		chroma.Rule{Pattern: `[A-Za-z_$][\w$]*`, Type: chroma.Name},
		chroma.Rule{Pattern: `[-+*/%&|^!=<>?:~.@#]+`, Type: chroma.Operator},
		chroma.Rule{Pattern: `[(){}\[\];,]`, Type: chroma.Punctuation},
		chroma.Rule{Pattern: `.`, Type: chroma.Text},
	)
	return chroma.Rules{
		"root":    root,
		"comment": {{Pattern: `\*/`, Type: chroma.CommentMultiline, Mutator: chroma.Pop(1)}, {Pattern: `[^*]+|\*`, Type: chroma.CommentMultiline}},
	}
}

// hashRules are the rules of languages with # comments (shell, Python, YAML, TOML, make).
func hashRules(keywords, constants string, extra ...chroma.Rule) chroma.Rules {
	root := append([]chroma.Rule{
		{Pattern: `\n`, Type: chroma.TextWhitespace},
		{Pattern: `[ \t]+`, Type: chroma.TextWhitespace},
		{Pattern: `#[^\n]*`, Type: chroma.CommentSingle},
	}, extra...)
	root = append(root,
		chroma.Rule{Pattern: `"(\\.|[^"\\\n])*"?`, Type: chroma.LiteralString},
		chroma.Rule{Pattern: `'[^'\n]*'?`, Type: chroma.LiteralString},
		chroma.Rule{Pattern: `\$\{[^}\n]*\}|\$\(|\$[A-Za-z_]\w*|\$[0-9@#?*!$-]`, Type: chroma.NameVariable},
		chroma.Rule{Pattern: `\b\d+(\.\d+)?\b`, Type: chroma.LiteralNumber},
		chroma.Rule{Pattern: words2(keywords), Type: chroma.Keyword},
		chroma.Rule{Pattern: words2(constants), Type: chroma.KeywordConstant},
		chroma.Rule{Pattern: `[A-Za-z_][\w-]*(?=\s*\()`, Type: chroma.NameFunction},
		chroma.Rule{Pattern: `[A-Za-z_][\w-]*`, Type: chroma.Name},
		chroma.Rule{Pattern: `[-+*/%&|^!=<>?:~.@;]+`, Type: chroma.Operator},
		chroma.Rule{Pattern: `[(){}\[\],]`, Type: chroma.Punctuation},
		chroma.Rule{Pattern: `.`, Type: chroma.Text},
	)
	return chroma.Rules{"root": root}
}

func rulesFor(lang string) chroma.Rules {
	switch lang {
	case "go":
		return codeRules(
			"break case chan const continue default defer else fallthrough for func go goto if import interface map package range return select struct switch type var",
			"any bool byte comparable complex64 complex128 error float32 float64 int int8 int16 int32 int64 rune string uint uint8 uint16 uint32 uint64 uintptr",
			"true false nil iota",
			chroma.Rule{Pattern: words2("append cap clear close complex copy delete imag len make max min new panic print println real recover") + `(?=\()`, Type: chroma.NameBuiltin},
		)
	case "rust":
		return codeRules(
			"as async await break const continue crate dyn else enum extern fn for if impl in let loop match mod move mut pub ref return self Self static struct super trait type unsafe use where while",
			"bool char f32 f64 i8 i16 i32 i64 i128 isize str u8 u16 u32 u64 u128 usize String Vec Option Result Box",
			"true false None Some Ok Err",
		)
	case "js":
		return codeRules(
			"as async await break case catch class const continue debugger default delete do else export extends finally for from function if import in instanceof interface let new of return static super switch this throw try type typeof var void while with yield",
			"any boolean number string symbol unknown never object bigint",
			"true false null undefined NaN Infinity",
		)
	case "c":
		return codeRules(
			"auto break case catch class const continue default delete do else enum extern final finally for friend fun goto if implements import inline interface namespace new operator override package private protected public register return sizeof static struct super switch template this throw try typedef typename union using val var virtual volatile when while",
			"bool byte char double float int long short signed unsigned void String Integer Boolean Object",
			"true false null nullptr NULL",
			chroma.Rule{Pattern: `#\s*[a-z]+[^\n]*`, Type: chroma.CommentPreproc},
		)
	case "json":
		return chroma.Rules{"root": {
			{Pattern: `\s+`, Type: chroma.TextWhitespace},
			{Pattern: `"(\\.|[^"\\\n])*"(?=\s*:)`, Type: chroma.NameTag},
			{Pattern: `"(\\.|[^"\\\n])*"?`, Type: chroma.LiteralString},
			{Pattern: `-?\d+(\.\d+)?([eE][-+]?\d+)?`, Type: chroma.LiteralNumber},
			{Pattern: words2("true false null"), Type: chroma.KeywordConstant},
			{Pattern: `//[^\n]*`, Type: chroma.CommentSingle},
			{Pattern: `[{}\[\],:]`, Type: chroma.Punctuation},
			{Pattern: `.`, Type: chroma.Text},
		}}
	case "python":
		return hashRules(
			"and as assert async await break class continue def del elif else except finally for from global if import in is lambda match case nonlocal not or pass raise return try while with yield self",
			"True False None",
			chroma.Rule{Pattern: `(?s)("""|''').*?(\1|\z)`, Type: chroma.LiteralStringDoc},
			chroma.Rule{Pattern: `@[\w.]+`, Type: chroma.NameDecorator},
		)
	case "shell":
		return hashRules(
			"if then else elif fi for while until do done case esac in function return local export readonly set unset shift exit break continue source alias cd echo printf test exec eval trap RUN FROM COPY ADD CMD ENTRYPOINT ENV WORKDIR ARG USER EXPOSE",
			"true false",
		)
	case "make":
		return hashRules("ifeq ifneq ifdef ifndef else endif include define endef export override", "",
			chroma.Rule{Pattern: `^[\w./%-]+(?=\s*:)`, Type: chroma.NameFunction},
			chroma.Rule{Pattern: `\$\([^)\n]*\)`, Type: chroma.NameVariable},
		)
	case "yaml":
		return hashRules("", "true false null yes no on off",
			chroma.Rule{Pattern: `^(\s*-?\s*)[\w./-]+(?=\s*:)`, Type: chroma.NameTag},
			chroma.Rule{Pattern: `^---|^\.\.\.`, Type: chroma.Keyword},
			chroma.Rule{Pattern: `[&*][\w-]+`, Type: chroma.NameLabel},
		)
	case "toml":
		return hashRules("", "true false",
			chroma.Rule{Pattern: `^\s*\[[^\]\n]*\]`, Type: chroma.Keyword},
			chroma.Rule{Pattern: `^\s*[\w.-]+(?=\s*=)`, Type: chroma.NameTag},
			chroma.Rule{Pattern: `;[^\n]*`, Type: chroma.CommentSingle},
		)
	case "markdown":
		return chroma.Rules{
			"root": {
				{Pattern: "^```[^\\n]*\\n", Type: chroma.LiteralStringBacktick, Mutator: chroma.Push("fence")},
				{Pattern: `^#{1,2} [^\n]*`, Type: chroma.GenericHeading},
				{Pattern: `^#{3,6} [^\n]*`, Type: chroma.GenericSubheading},
				{Pattern: `^\s*([-*+]|\d+[.)])(?= )`, Type: chroma.Keyword},
				{Pattern: `^>[^\n]*`, Type: chroma.GenericEmph},
				{Pattern: `(\*\*|__)[^\n]+?(\*\*|__)`, Type: chroma.GenericStrong},
				{Pattern: `(\*|_)[^*_\s][^\n]*?(\*|_)`, Type: chroma.GenericEmph},
				{Pattern: "`[^`\\n]+`", Type: chroma.LiteralStringBacktick},
				{Pattern: `!?\[[^\]\n]*\]`, Type: chroma.NameTag},
				{Pattern: `\([^)\s]+\)`, Type: chroma.NameAttribute},
				{Pattern: `<[^>\n]+>`, Type: chroma.NameAttribute},
				{Pattern: `[^\n*_` + "`" + `\[\]!<(#>-]+`, Type: chroma.Text},
				{Pattern: `\n`, Type: chroma.TextWhitespace},
				{Pattern: `.`, Type: chroma.Text},
			},
			"fence": {
				{Pattern: "^```[ \\t]*\\n?", Type: chroma.LiteralStringBacktick, Mutator: chroma.Pop(1)},
				{Pattern: `[^\n]*\n`, Type: chroma.LiteralStringBacktick},
			},
		}
	}
	return chroma.Rules{"root": {{Pattern: `(?s).+`, Type: chroma.Text}}}
}

// Syntax palettes, after GitHub's light and dark themes; built on first use.
var (
	darkSyntax = sync.OnceValue(func() *chroma.Style {
		return chroma.MustNewStyle("reasonixctl-dark", chroma.StyleEntries{
			chroma.Text: "#e6edf3", chroma.Comment: "italic #8b949e", chroma.CommentPreproc: "#ff7b72",
			chroma.Keyword: "#ff7b72", chroma.KeywordType: "#ffa657", chroma.KeywordConstant: "#79c0ff",
			chroma.Name: "#e6edf3", chroma.NameFunction: "bold #d2a8ff", chroma.NameBuiltin: "#ffa657",
			chroma.NameTag: "#7ee787", chroma.NameAttribute: "#79c0ff", chroma.NameVariable: "#ffa657",
			chroma.NameDecorator: "#d2a8ff", chroma.NameLabel: "#79c0ff",
			chroma.LiteralString: "#a5d6ff", chroma.LiteralNumber: "#79c0ff", chroma.Operator: "#ff7b72",
			chroma.Punctuation: "#e6edf3", chroma.GenericHeading: "bold #79c0ff", chroma.GenericSubheading: "bold #79c0ff",
			chroma.GenericStrong: "bold", chroma.GenericEmph: "italic",
		})
	})
	lightSyntax = sync.OnceValue(func() *chroma.Style {
		return chroma.MustNewStyle("reasonixctl-light", chroma.StyleEntries{
			chroma.Text: "#1f2328", chroma.Comment: "italic #59636e", chroma.CommentPreproc: "#cf222e",
			chroma.Keyword: "#cf222e", chroma.KeywordType: "#953800", chroma.KeywordConstant: "#0550ae",
			chroma.Name: "#1f2328", chroma.NameFunction: "bold #8250df", chroma.NameBuiltin: "#953800",
			chroma.NameTag: "#116329", chroma.NameAttribute: "#0550ae", chroma.NameVariable: "#953800",
			chroma.NameDecorator: "#8250df", chroma.NameLabel: "#0550ae",
			chroma.LiteralString: "#0a3069", chroma.LiteralNumber: "#0550ae", chroma.Operator: "#cf222e",
			chroma.Punctuation: "#1f2328", chroma.GenericHeading: "bold #0550ae", chroma.GenericSubheading: "bold #0550ae",
			chroma.GenericStrong: "bold", chroma.GenericEmph: "italic",
		})
	})
)
