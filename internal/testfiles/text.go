package testfiles

import (
	"fmt"
	"strings"

	"golang.org/x/text/encoding"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// GBK encodes s in GBK, the legacy encoding of simplified Chinese that
// Windows in China still writes text and CSV files in. It panics on a
// character GBK lacks.
func GBK(s string) []byte { return Encode(simplifiedchinese.GBK, s) }

// Encode encodes s in enc (for example charmap.Windows1252,
// traditionalchinese.Big5, japanese.ShiftJIS, or unicode.UTF16 with a
// BOM). It panics on a character enc cannot hold.
func Encode(enc encoding.Encoding, s string) []byte {
	b, err := enc.NewEncoder().Bytes([]byte(s))
	if err != nil {
		panic(fmt.Sprintf("testfiles: encode %q: %v", s, err))
	}
	return b
}

// proseWords is the vocabulary of Prose: customer-service English.
const proseWords = `account address agent answer apply approve arrive assist balance bank
basket battery billing booking cable cancel card carrier charge chat check claim colour
complaint confirm contact contract courier credit customer damage deadline delay delivery
deposit device discount dispatch document driver email exchange expire express fault fee
firmware form freight guarantee handling helpdesk holiday inspect install insurance invoice
item label language laptop ledger licence locker login loyalty manual member method modem
monitor network notice order package packaging parcel partner password payment phone pickup
plan point portal postage price printer product promotion purchase quality quote receipt
record refund region register reminder renew repair replace request reservation retailer
return review router schedule screen seller serial service setting shipment shipping size
software speaker status stock store subscription supplier support tablet tariff tax ticket
tracking transfer upgrade voucher wallet warehouse warranty website weekend wireless`

// ProseLines returns about words words of deterministic prose, seeded by
// seed, in lines of perLine words. Different seeds give different texts
// over the same vocabulary of customer-service words, so each text shares
// words with the others yet is found best by its own.
func ProseLines(seed uint64, words, perLine int) []string {
	vocab := strings.Fields(proseWords)
	perLine = max(perLine, 1)
	x := seed*0x9E3779B97F4A7C15 + 1
	next := func() int { // xorshift64*
		x ^= x >> 12
		x ^= x << 25
		x ^= x >> 27
		return int((x * 0x2545F4914F6CDD1D) >> 33)
	}
	var lines []string
	var line []string
	for i := range words {
		w := vocab[next()%len(vocab)]
		if len(line) == 0 && i%(perLine*4) == 0 {
			w = strings.ToUpper(w[:1]) + w[1:]
		}
		line = append(line, w)
		if len(line) == perLine || i == words-1 {
			lines = append(lines, strings.Join(line, " ")+".")
			line = line[:0]
		}
	}
	return lines
}
