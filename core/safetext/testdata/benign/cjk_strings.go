package greet

// Messages mixes CJK text with ASCII punctuation and words.
var Messages = []string{
	"漢字とひらがなとカタカナ！",
	"「Go」のテスト：100%。",
	"中文(简体), ㄅㄆㄇㄈ",
	"한국어: 테스트 OK",
	"Größe: 3 × 4 ≤ 12 → ok",
}
