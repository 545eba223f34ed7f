package metric

import "strings"

// porterStem stems an English word with the Porter algorithm as NLTK's
// PorterStemmer does in its default NLTK_EXTENSIONS mode, which is the
// stemmer of Google's rouge_score and of tRPC-Agent-Go's ROUGE: the
// irregular forms NLTK keeps, its 'ies'/'ied' rules for four-letter words,
// its step 1c and its extra step 2 rules.
func porterStem(word string) string {
	word = strings.ToLower(word)
	if base, ok := porterIrregular[word]; ok {
		return base
	}
	if len(word) <= 2 {
		return word
	}
	for _, step := range []func(string) string{porterStep1a, porterStep1b, porterStep1c, porterStep2, porterStep3, porterStep4, porterStep5a, porterStep5b} {
		word = step(word)
	}
	return word
}

// porterIrregular is NLTK's table of forms the rules get wrong.
var porterIrregular = map[string]string{
	"sky": "sky", "skies": "sky",
	"dying": "die", "lying": "lie", "tying": "tie",
	"news":   "news",
	"inning": "inning", "innings": "inning",
	"outing": "outing", "outings": "outing",
	"canning": "canning", "cannings": "canning",
	"howe":    "howe",
	"proceed": "proceed", "exceed": "exceed", "succeed": "succeed",
}

// consonant reports whether word[i] is a consonant: not a vowel, and a 'y'
// only at the start or after a vowel.
func consonant(word string, i int) bool {
	switch word[i] {
	case 'a', 'e', 'i', 'o', 'u':
		return false
	case 'y':
		return i == 0 || !consonant(word, i-1)
	}
	return true
}

// measure is m in [C](VC)^m[V]: the number of vowel-consonant sequences.
func measure(stem string) int {
	m := 0
	for i := 1; i < len(stem); i++ {
		if consonant(stem, i) && !consonant(stem, i-1) {
			m++
		}
	}
	return m
}

func hasVowel(stem string) bool {
	for i := range len(stem) {
		if !consonant(stem, i) {
			return true
		}
	}
	return false
}

// doubleConsonant: the word ends in two equal consonants.
func doubleConsonant(word string) bool {
	n := len(word)
	return n >= 2 && word[n-1] == word[n-2] && consonant(word, n-1)
}

// endsCVC: consonant-vowel-consonant, the last not w, x or y; or, as
// NLTK adds, a two-letter vowel-consonant word.
func endsCVC(word string) bool {
	n := len(word)
	if n >= 3 && consonant(word, n-3) && !consonant(word, n-2) && consonant(word, n-1) {
		switch word[n-1] {
		case 'w', 'x', 'y':
			return false
		}
		return true
	}
	return n == 2 && !consonant(word, 0) && consonant(word, 1)
}

// porterRule replaces a suffix when the stem left satisfies cond (nil:
// always).
type porterRule struct {
	suffix, repl string
	cond         func(stem string) bool
}

// applyRules applies the first rule whose suffix the word ends with; if its
// condition fails the word is left as it is.
func applyRules(word string, rules []porterRule) string {
	for _, r := range rules {
		if !strings.HasSuffix(word, r.suffix) {
			continue
		}
		stem := word[:len(word)-len(r.suffix)]
		if r.cond == nil || r.cond(stem) {
			return stem + r.repl
		}
		return word
	}
	return word
}

func positive(stem string) bool { return measure(stem) > 0 }
func aboveOne(stem string) bool { return measure(stem) > 1 }

func porterStep1a(w string) string {
	if len(w) == 4 && strings.HasSuffix(w, "ies") {
		return w[:1] + "ie"
	}
	return applyRules(w, []porterRule{{"sses", "ss", nil}, {"ies", "i", nil}, {"ss", "ss", nil}, {"s", "", nil}})
}

func porterStep1b(w string) string {
	switch {
	case strings.HasSuffix(w, "ied"):
		if len(w) == 4 {
			return w[:1] + "ie"
		}
		return w[:len(w)-3] + "i"
	case strings.HasSuffix(w, "eed"):
		if stem := w[:len(w)-3]; positive(stem) {
			return stem + "ee"
		}
		return w
	}
	var stem string
	switch {
	case strings.HasSuffix(w, "ed") && hasVowel(w[:len(w)-2]):
		stem = w[:len(w)-2]
	case strings.HasSuffix(w, "ing") && hasVowel(w[:len(w)-3]):
		stem = w[:len(w)-3]
	default:
		return w
	}
	for _, s := range []struct{ from, to string }{{"at", "ate"}, {"bl", "ble"}, {"iz", "ize"}} {
		if strings.HasSuffix(stem, s.from) {
			return stem[:len(stem)-len(s.from)] + s.to
		}
	}
	if doubleConsonant(stem) {
		switch stem[len(stem)-1] {
		case 'l', 's', 'z':
			return stem
		}
		return stem[:len(stem)-1]
	}
	if measure(stem) == 1 && endsCVC(stem) {
		return stem + "e"
	}
	return stem
}

func porterStep1c(w string) string {
	if strings.HasSuffix(w, "y") && len(w) > 2 && consonant(w, len(w)-2) {
		return w[:len(w)-1] + "i"
	}
	return w
}

func porterStep2(w string) string {
	if strings.HasSuffix(w, "alli") && positive(w[:len(w)-4]) {
		return porterStep2(w[:len(w)-4] + "al")
	}
	return applyRules(w, []porterRule{
		{"ational", "ate", positive}, {"tional", "tion", positive}, {"enci", "ence", positive},
		{"anci", "ance", positive}, {"izer", "ize", positive}, {"bli", "ble", positive},
		{"alli", "al", positive}, {"entli", "ent", positive}, {"eli", "e", positive},
		{"ousli", "ous", positive}, {"ization", "ize", positive}, {"ation", "ate", positive},
		{"ator", "ate", positive}, {"alism", "al", positive}, {"iveness", "ive", positive},
		{"fulness", "ful", positive}, {"ousness", "ous", positive}, {"aliti", "al", positive},
		{"iviti", "ive", positive}, {"biliti", "ble", positive}, {"fulli", "ful", positive},
		// NLTK tests the measure of the word less "ogi", keeping the 'l'.
		{"logi", "log", func(string) bool { return positive(w[:len(w)-3]) }},
	})
}

func porterStep3(w string) string {
	return applyRules(w, []porterRule{
		{"icate", "ic", positive}, {"ative", "", positive}, {"alize", "al", positive},
		{"iciti", "ic", positive}, {"ical", "ic", positive}, {"ful", "", positive}, {"ness", "", positive},
	})
}

func porterStep4(w string) string {
	ion := func(stem string) bool {
		return aboveOne(stem) && (strings.HasSuffix(stem, "s") || strings.HasSuffix(stem, "t"))
	}
	return applyRules(w, []porterRule{
		{"al", "", aboveOne}, {"ance", "", aboveOne}, {"ence", "", aboveOne}, {"er", "", aboveOne},
		{"ic", "", aboveOne}, {"able", "", aboveOne}, {"ible", "", aboveOne}, {"ant", "", aboveOne},
		{"ement", "", aboveOne}, {"ment", "", aboveOne}, {"ent", "", aboveOne}, {"ion", "", ion},
		{"ou", "", aboveOne}, {"ism", "", aboveOne}, {"ate", "", aboveOne}, {"iti", "", aboveOne},
		{"ous", "", aboveOne}, {"ive", "", aboveOne}, {"ize", "", aboveOne},
	})
}

func porterStep5a(w string) string {
	if !strings.HasSuffix(w, "e") {
		return w
	}
	stem := w[:len(w)-1]
	if m := measure(stem); m > 1 || (m == 1 && !endsCVC(stem)) {
		return stem
	}
	return w
}

func porterStep5b(w string) string {
	if strings.HasSuffix(w, "ll") && aboveOne(w[:len(w)-1]) {
		return w[:len(w)-1]
	}
	return w
}
