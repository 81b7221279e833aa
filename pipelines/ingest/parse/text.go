package parse

import (
	"bytes"
	"context"
	"io"
	"strings"
	"unicode/utf8"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"
)

// Encodings decodeText reports in Document.Encoding.
const (
	encUTF8        = "utf-8"
	encUTF16LE     = "utf-16le"
	encUTF16BE     = "utf-16be"
	encGB18030     = "gb18030"
	encBig5        = "big5"
	encShiftJIS    = "shift_jis"
	encWindows1252 = "windows-1252"
)

// minCJKScore is the share of a candidate's non-ASCII characters that must
// fall in its frequent-character block for the candidate to be believed.
// Text in the right encoding scores above 0.9 and Latin text read as CJK
// near 0; the wrong CJK encoding can reach 0.7 (GBK read as Big5), which
// is why bestCJK takes the highest score rather than the first success.
const minCJKScore = 0.6

// ctxCheckEvery is how many lines parseText handles between looks at ctx.
const ctxCheckEvery = 1024

// parseText decodes a plain-text file (see decodeText) and returns one
// Block per non-blank line, with Line set to its 1-based line number.
func parseText(ctx context.Context, src Source, lim Limits) (Document, error) {
	// The upload size limit already bounds the file, so reading it whole
	// is fine and lets the encoding be judged on all of it.
	data, err := io.ReadAll(io.NewSectionReader(src, 0, src.Size()))
	if err != nil {
		return Document{}, failf(ReasonCorrupt, err, "The file could not be read.")
	}
	if err := ctx.Err(); err != nil {
		return Document{}, asError(err, ReasonTimeout, "")
	}
	text, enc := decodeText(data)
	blocks, err := textLines(ctx, text)
	if err != nil {
		return Document{}, err
	}
	return Document{Kind: KindText, Blocks: blocks, Encoding: enc}, nil
}

// textLines splits text at "\n", "\r\n" and lone "\r", dropping blank
// lines but numbering every line.
func textLines(ctx context.Context, text string) ([]Block, error) {
	text = strings.TrimPrefix(text, "\uFEFF")
	var blocks []Block
	for lineNo := 1; len(text) > 0; lineNo++ {
		if lineNo%ctxCheckEvery == 0 {
			if err := ctx.Err(); err != nil {
				return nil, asError(err, ReasonTimeout, "")
			}
		}
		line := text
		i := strings.IndexAny(text, "\r\n")
		if i < 0 {
			text = ""
		} else {
			line = text[:i]
			next := i + 1
			if text[i] == '\r' && next < len(text) && text[next] == '\n' {
				next++
			}
			text = text[next:]
		}
		// NUL is never meant as text and the database refuses it.
		if strings.IndexByte(line, 0) >= 0 {
			line = strings.ReplaceAll(line, "\x00", "")
		}
		if strings.TrimSpace(line) == "" {
			continue
		}
		blocks = append(blocks, Block{Text: line, Line: lineNo})
	}
	return blocks, nil
}

// decodeText turns data into UTF-8 and names the encoding it was in, trying
// in order: a byte order mark (UTF-8, UTF-16LE/BE); valid UTF-8 (also when
// all that is wrong is a sequence cut off at the end, or a few stray
// bytes among many valid sequences); GB18030 (a superset of GBK and
// GB2312), Big5 and Shift-JIS, scored by bestCJK; and finally Windows-1252,
// which decodes anything.
func decodeText(data []byte) (string, string) {
	switch {
	case bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}):
		return strings.ToValidUTF8(string(data[3:]), "\uFFFD"), encUTF8
	case bytes.HasPrefix(data, []byte{0xFF, 0xFE}):
		return decodeWith(unicode.UTF16(unicode.LittleEndian, unicode.IgnoreBOM), data[2:]), encUTF16LE
	case bytes.HasPrefix(data, []byte{0xFE, 0xFF}):
		return decodeWith(unicode.UTF16(unicode.BigEndian, unicode.IgnoreBOM), data[2:]), encUTF16BE
	}
	if mostlyUTF8(data) {
		return strings.ToValidUTF8(string(data), "\uFFFD"), encUTF8
	}
	if s, enc, ok := bestCJK(data); ok {
		return s, enc
	}
	return decodeWith(charmap.Windows1252, data), encWindows1252
}

// decodeWith decodes data, replacing what is invalid with U+FFFD.
func decodeWith(enc encoding.Encoding, data []byte) string {
	out, err := enc.NewDecoder().Bytes(data)
	if err != nil {
		return strings.ToValidUTF8(string(data), "\uFFFD")
	}
	return string(out)
}

// mostlyUTF8 reports whether data is UTF-8: valid, valid but for a
// sequence cut off at the very end, or with at most one invalid byte per
// twenty valid multi-byte sequences (a stray Latin-1 byte in a UTF-8 log).
// Legacy CJK encodings form valid UTF-8 sequences only by chance, far less
// often than that.
func mostlyUTF8(data []byte) bool {
	if utf8.Valid(data) {
		return true
	}
	good, bad := 0, 0
	for i := 0; i < len(data); {
		if data[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, size := utf8.DecodeRune(data[i:])
		if r == utf8.RuneError && size <= 1 {
			if !utf8.FullRune(data[i:]) {
				// A sequence cut off by the end of the file.
				break
			}
			bad++
			i++
			continue
		}
		good++
		i += size
	}
	// Without a single valid sequence, a lone high byte at the end is a
	// Latin-1 "é", not a cut-off character.
	return good > 0 && good >= 20*bad
}

// cjkScheme is a legacy multi-byte encoding decodeText may try.
type cjkScheme int

// The candidates, in the order that breaks ties.
const (
	schemeGB18030 cjkScheme = iota
	schemeBig5
	schemeShiftJIS
)

// name is the scheme's Document.Encoding.
func (s cjkScheme) name() string {
	switch s {
	case schemeBig5:
		return encBig5
	case schemeShiftJIS:
		return encShiftJIS
	}
	return encGB18030
}

// encoding is the scheme's decoder.
func (s cjkScheme) encoding() encoding.Encoding {
	switch s {
	case schemeBig5:
		return traditionalchinese.Big5
	case schemeShiftJIS:
		return japanese.ShiftJIS
	}
	return simplifiedchinese.GB18030
}

// bestCJK scores GB18030, Big5 and Shift-JIS on data and decodes with the
// best one that reaches minCJKScore and decodes without an invalid
// sequence. Ties go to the earlier scheme: GB18030, Big5, Shift-JIS.
//
// Decoding success alone cannot decide: GB18030 maps nearly every byte
// pair to some character, and GBK text is mostly valid Big5 too. What
// differs is where in the code table the characters land. Real text in an
// encoding is dominated by that encoding's frequent characters, which each
// standard groups in a block (GB2312 level-1 hanzi, Big5 frequent hanzi,
// JIS level-1 kanji and kana), while text read in the wrong encoding
// scatters over rare characters, symbols and half-width katakana.
func bestCJK(data []byte) (string, string, bool) {
	schemes := [...]cjkScheme{schemeGB18030, schemeBig5, schemeShiftJIS}
	var scores [len(schemes)]float64
	for i, s := range schemes {
		scores[i] = s.score(data)
	}
	for range schemes {
		best := -1
		for i := range schemes {
			if scores[i] >= minCJKScore && (best < 0 || scores[i] > scores[best]) {
				best = i
			}
		}
		if best < 0 {
			return "", "", false
		}
		out, err := schemes[best].encoding().NewDecoder().Bytes(data)
		if err == nil && !bytes.ContainsRune(out, utf8.RuneError) {
			return string(out), schemes[best].name(), true
		}
		scores[best] = -1
	}
	return "", "", false
}

// score walks data as text in s and returns the share of its non-ASCII
// characters that are frequent in s and not embedded in a Latin word. It
// only needs the byte structure right; whether the bytes are valid is for
// the decoder to say.
func (s cjkScheme) score(data []byte) float64 {
	hits, total := 0, 0
	// afterLetter is set when the previous character was an ASCII letter.
	afterLetter := false
	for i := 0; i < len(data); {
		b := data[i]
		if b < 0x80 {
			afterLetter = isASCIILetter(b)
			i++
			continue
		}
		total++
		switch {
		case s == schemeShiftJIS && b >= 0xA1 && b <= 0xDF:
			// Half-width katakana: one byte, and rare in real text.
			i++
		case s == schemeGB18030 && i+3 < len(data) && data[i+1] >= '0' && data[i+1] <= '9':
			// A four-byte GB18030 sequence: characters outside GBK.
			i += 4
		case i+1 < len(data) && data[i+1] >= 0x40:
			if s.frequent(b, data[i+1]) && !latinEmbedded(data, i, afterLetter) {
				hits++
			}
			i += 2
		default:
			i++
		}
		afterLetter = false
	}
	if total == 0 {
		return 0
	}
	return float64(hits) / float64(total)
}

// latinEmbedded reports whether the two bytes at i, read as one
// character, have an ASCII letter as trail byte and an ASCII letter on
// either side: "don’t" or "“Smart" in Windows-1252, where a lone high
// byte sits inside a Latin word. Real CJK characters rarely do.
func latinEmbedded(data []byte, i int, afterLetter bool) bool {
	if !isASCIILetter(data[i+1]) {
		return false
	}
	return afterLetter || (i+2 < len(data) && isASCIILetter(data[i+2]))
}

// isASCIILetter reports whether b is A–Z or a–z.
func isASCIILetter(b byte) bool { return (b|0x20) >= 'a' && (b|0x20) <= 'z' }

// frequent reports whether the two-byte character lead, trail lies in the
// block of s that holds the characters real text is mostly made of:
//   - GB18030/GBK: GB2312 punctuation and full-width forms (rows
//     0xA1–0xA3) and the 3,755 level-1 hanzi (rows 0xB0–0xD7);
//   - Big5: punctuation and symbols (0xA140–0xA3BF) and the 5,401
//     frequent hanzi (0xA440–0xC67E);
//   - Shift-JIS: JIS X 0208 rows 1–8 (punctuation, full-width forms,
//     hiragana, katakana: 0x8140–0x84BE) and the 2,965 level-1 kanji
//     (0x889F–0x9872).
func (s cjkScheme) frequent(lead, trail byte) bool {
	code := uint16(lead)<<8 | uint16(trail)
	switch s {
	case schemeBig5:
		if trail > 0x7E && trail < 0xA1 {
			return false
		}
		return (code >= 0xA140 && code <= 0xA3BF) || (code >= 0xA440 && code <= 0xC67E)
	case schemeShiftJIS:
		if trail == 0x7F || trail > 0xFC {
			return false
		}
		return (code >= 0x8140 && code <= 0x84BE) || (code >= 0x889F && code <= 0x9872)
	}
	return trail >= 0xA1 && trail <= 0xFE &&
		((lead >= 0xA1 && lead <= 0xA3) || (lead >= 0xB0 && lead <= 0xD7))
}
