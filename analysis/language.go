package analysis

import "unicode"

// Languages the service answers and hands off in.
const (
	English = "en"
	Chinese = "zh"
)

// Language tells the language of a customer's message from its script:
// Chinese when Han characters make up at least a fifth of its letters
// (a Chinese message often carries a product code or an English brand),
// else English. Text without letters is English.
func Language(s string) string {
	han, letters := 0, 0
	for _, r := range s {
		switch {
		case unicode.Is(unicode.Han, r):
			han++
			letters++
		case unicode.IsLetter(r):
			letters++
		}
	}
	if han > 0 && han*5 >= letters {
		return Chinese
	}
	return English
}
