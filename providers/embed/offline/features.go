package offline

import (
	"unicode"
	"unicode/utf8"
)

// Trigram boundary markers: control bytes, which never occur inside a word,
// so "^re" (a word starting with "re") differs from "re" inside a word.
const (
	markStart = 0x02
	markEnd   = 0x03
)

// extractor turns one text into feature counts. Its buffers are reused
// across texts (through the embedder's pool), which keeps Embed
// allocation-free in the steady state.
type extractor struct {
	text  []byte   // the NFKC-normalised text
	word  []byte   // the current word, lower-cased
	tri   []byte   // the current word between boundary markers
	offs  []int    // rune start offsets in tri
	keys  []uint64 // the trigram keys of the current word
	feats counts

	// Word state: whether the current word has a letter (pure numbers
	// get no trigrams: "123456" and "123457" are different orders, not
	// near-duplicates), and the previous word's hash for bigrams.
	wordHasLetter bool
	wordASCII     bool
	prevWord      uint64
	havePrev      bool

	// CJK state: the previous character of the current CJK run, or -1.
	prevCJK rune
}

// extract fills e.feats with the features of text.
func (e *extractor) extract(text string) {
	e.text = appendNFKC(e.text[:0], text)
	// A text of n bytes has at most about 1.5n features, and far fewer
	// distinct ones in real text: room for n keeps the table at most half
	// full nearly always, and it grows in the rest.
	e.feats.reset(len(e.text))
	e.word = e.word[:0]
	e.wordHasLetter, e.wordASCII = false, true
	e.havePrev = false
	e.prevCJK = -1

	b := e.text
	for i := 0; i < len(b); {
		c := b[i]
		if c < utf8.RuneSelf {
			i++
			switch {
			case 'a' <= c && c <= 'z':
				e.endCJK()
				e.word = append(e.word, c)
				e.wordHasLetter = true
			case 'A' <= c && c <= 'Z':
				e.endCJK()
				e.word = append(e.word, c+('a'-'A'))
				e.wordHasLetter = true
			case '0' <= c && c <= '9':
				e.endCJK()
				e.word = append(e.word, c)
			default:
				e.endWord()
				e.endCJK()
			}
			continue
		}
		r, size := utf8.DecodeRune(b[i:])
		i += size
		switch {
		case isCJK(r):
			e.endWord()
			e.cjk(r)
		case unicode.IsLetter(r):
			e.endCJK()
			e.word = utf8.AppendRune(e.word, unicode.ToLower(r))
			e.wordHasLetter, e.wordASCII = true, false
		case unicode.IsNumber(r) || unicode.IsMark(r):
			// Marks (combining accents, Indic vowel signs) belong to the
			// word they follow.
			e.endCJK()
			e.word = utf8.AppendRune(e.word, r)
			e.wordASCII = false
		default:
			e.endWord()
			e.endCJK()
		}
	}
	e.endWord()
}

// endWord emits the features of the word just read: the word, the bigram
// with the previous word, and its character trigrams.
func (e *extractor) endWord() {
	if len(e.word) == 0 {
		return
	}
	h := fnv1a(e.word)
	e.feats.add(mix(h^tagWord), featWord)
	if e.havePrev {
		// Multiply-then-add keeps the pair ordered: "not good" ≠ "good not".
		e.feats.add(mix(e.prevWord*fnvPrime+h+tagWordBigram), featWordBigram)
	}
	e.prevWord, e.havePrev = h, true
	if e.wordHasLetter {
		e.trigrams()
	}
	e.word = e.word[:0]
	e.wordHasLetter, e.wordASCII = false, true
}

// trigrams emits the character 3-grams of the current word between
// boundary markers: "refund" gives ^re ref efu fun und nd$. They let
// inflected forms ("refund" / "refunds" / "refunded") share most features.
func (e *extractor) trigrams() {
	keys := e.keys[:0]
	if e.wordASCII {
		// One byte per character: slide a 3-byte window packed in an
		// integer, the same packing trigramKey uses.
		w := e.word
		p := uint64(markStart)<<8 | uint64(w[0])
		for _, c := range w[1:] {
			p = (p<<8 | uint64(c)) & 0xffffff
			keys = append(keys, packedTrigramKey(p))
		}
		keys = append(keys, packedTrigramKey((p<<8|markEnd)&0xffffff))
	} else {
		e.tri = append(append(append(e.tri[:0], markStart), e.word...), markEnd)
		t := e.tri
		e.offs = e.offs[:0]
		for i := range len(t) {
			if utf8.RuneStart(t[i]) {
				e.offs = append(e.offs, i)
			}
		}
		e.offs = append(e.offs, len(t))
		for i := 0; i+3 < len(e.offs); i++ {
			keys = append(keys, trigramKey(t[e.offs[i]:e.offs[i+3]]))
		}
	}
	e.feats.addAll(keys, featTrigram)
	e.keys = keys
}

// trigramKey is the key of a trigram. It depends only on the trigram's
// bytes, so "caf" gets one key in "cafe" and in "café". The common 3-byte
// (ASCII) trigram is packed into an integer rather than hashed byte by byte.
func trigramKey(b []byte) uint64 {
	if len(b) == 3 {
		return packedTrigramKey(uint64(b[0])<<16 | uint64(b[1])<<8 | uint64(b[2]))
	}
	return mix(fnv1a(b) ^ tagTrigram)
}

// packedTrigramKey is the key of a 3-byte trigram packed big-endian into
// the low 24 bits of p. The length in bit 56 keeps it apart from the
// hashes of longer trigrams.
func packedTrigramKey(p uint64) uint64 {
	return mix((3<<56 | p) ^ tagTrigram)
}

// cjk emits a CJK character and its bigram with the previous character of
// the run. Chinese and Japanese have no spaces, so a run is not a word:
// characters and character pairs stand in for words (most Chinese words
// are one or two characters long).
func (e *extractor) cjk(r rune) {
	e.havePrev = false // a word bigram never spans a CJK run
	e.feats.add(mix(uint64(r)^tagCJKChar), featCJKChar)
	if e.prevCJK >= 0 {
		// Runes fit in 21 bits, so the pair is packed without collision.
		e.feats.add(mix((uint64(e.prevCJK)<<21|uint64(r))^tagCJKBigram), featCJKBigram)
	}
	e.prevCJK = r
}

// endCJK ends the current CJK run.
func (e *extractor) endCJK() { e.prevCJK = -1 }

// isCJK reports whether r is written without spaces between words: Han,
// Hiragana, Katakana or Hangul (the brief counts Hangul too, although
// Korean separates words; its characters are syllables, which n-grams
// handle well).
func isCJK(r rune) bool {
	switch {
	case r < 0x1100:
		return false
	case 0x4e00 <= r && r <= 0x9fff: // CJK Unified Ideographs, the common case
		return true
	case r == 0x30fc || r == 0xff70:
		// The prolonged sound mark (コーヒー) is of script Common but sits
		// inside Katakana words.
		return true
	}
	return unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul)
}
