package testfiles

// A tiny PDF writer. It writes what real producers write for the cases that
// matter: the standard Helvetica font for Latin text, a Type0 font with
// Identity-H encoding, CID glyph codes and a ToUnicode CMap for Chinese,
// and the standard security handler (RC4, 40 bits) for encryption.

import (
	"bytes"
	"compress/zlib"
	"crypto/md5"
	"crypto/rc4"
	"encoding/binary"
	"fmt"
	"strings"
)

// PDF makes a PDF whose page i shows the lines pages[i], one text line
// each, in the standard Helvetica font (WinAnsi encoding: Latin-1 text).
// An empty page has no text. Parentheses and backslashes are escaped.
func PDF(pages [][]string) []byte {
	return latinPDFWith(&pdfWriter{}, pages, "")
}

// CJKPDF makes a PDF whose page i shows the lines pages[i] in a Type0 font
// with Identity-H encoding, as PDF producers write Chinese text. Each
// distinct character gets a CID in order of appearance, unrelated to its
// code point, so only the ToUnicode CMap can turn the glyph codes back into
// text. No font program is embedded: text extraction needs none, and real
// producers' subsets are just glyphs.
func CJKPDF(pages [][]string) []byte {
	w := &pdfWriter{}
	cids := map[rune]int{}
	var order []rune
	for _, lines := range pages {
		for _, l := range lines {
			for _, r := range l {
				if _, ok := cids[r]; !ok {
					cids[r] = len(order) + 1
					order = append(order, r)
				}
			}
		}
	}

	var cm strings.Builder
	cm.WriteString("/CIDInit /ProcSet findresource begin\n12 dict begin\nbegincmap\n" +
		"/CIDSystemInfo << /Registry (Adobe) /Ordering (UCS) /Supplement 0 >> def\n" +
		"/CMapName /Adobe-Identity-UCS def\n/CMapType 2 def\n" +
		"1 begincodespacerange\n<0000> <FFFF>\nendcodespacerange\n")
	for start := 0; start < len(order); start += 100 { // at most 100 per block
		chunk := order[start:min(start+100, len(order))]
		fmt.Fprintf(&cm, "%d beginbfchar\n", len(chunk))
		for _, r := range chunk {
			fmt.Fprintf(&cm, "<%04X> <%s>\n", cids[r], utf16Hex(r))
		}
		cm.WriteString("endbfchar\n")
	}
	cm.WriteString("endcmap\nCMapName currentdict /CMap defineresource pop\nend\nend")
	toUnicode := w.addStream("", []byte(cm.String()))

	desc := w.add("<< /Type /FontDescriptor /FontName /TestSongti /Flags 4 /FontBBox [0 -120 1000 880] " +
		"/ItalicAngle 0 /Ascent 880 /Descent -120 /CapHeight 700 /StemV 80 >>")
	cidFont := w.add(fmt.Sprintf("<< /Type /Font /Subtype /CIDFontType2 /BaseFont /TestSongti "+
		"/CIDSystemInfo << /Registry (Adobe) /Ordering (Identity) /Supplement 0 >> "+
		"/FontDescriptor %d 0 R /DW 1000 /CIDToGIDMap /Identity >>", desc))
	font := w.add(fmt.Sprintf("<< /Type /Font /Subtype /Type0 /BaseFont /TestSongti /Encoding /Identity-H "+
		"/DescendantFonts [%d 0 R] /ToUnicode %d 0 R >>", cidFont, toUnicode))

	contents := make([]int, len(pages))
	for i, lines := range pages {
		var cs strings.Builder
		cs.WriteString("BT /F1 16 Tf 22 TL 60 770 Td\n")
		for _, l := range lines {
			cs.WriteString("<")
			for _, r := range l {
				fmt.Fprintf(&cs, "%04X", cids[r])
			}
			cs.WriteString("> Tj T*\n")
		}
		cs.WriteString("ET")
		contents[i] = w.addStream("", []byte(cs.String()))
	}
	return w.finish(contents, fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", font), "")
}

// EncryptedPDF makes PDF's file, encrypted by the standard security handler
// (revision 2, RC4 with a 40-bit key) with the given passwords. An empty
// user password opens without asking: the owner password then only
// restricts printing and copying, which is common in the wild and readable
// by any extractor.
func EncryptedPDF(pages [][]string, userPassword, ownerPassword string) []byte {
	w := &pdfWriter{}
	s := newPDFSecurity(userPassword, ownerPassword)
	encDict := w.add(fmt.Sprintf("<< /Filter /Standard /V 1 /R 2 /Length 40 /O <%X> /U <%X> /P %d >>", s.o, s.u, s.p))
	w.enc = s
	return latinPDFWith(w, pages, fmt.Sprintf("/Encrypt %d 0 R /ID [<%X> <%X>]", encDict, s.id, s.id))
}

// ManyPagesPDF makes a PDF of n pages of four lines each (about 40 words
// a page, in the standard font), the first line naming the page: "Section
// i: terms and conditions".
func ManyPagesPDF(n int) []byte {
	pages := make([][]string, n)
	for i := range pages {
		pages[i] = []string{
			fmt.Sprintf("Section %d: terms and conditions", i+1),
			"The quick brown fox jumps over the lazy dog, again and again.",
			"Customers may request a refund within thirty days of delivery.",
			"Shipping costs are not refunded unless the item was defective.",
		}
	}
	return PDF(pages)
}

// ProsePDF makes a PDF of n pages of about wordsPerPage words each, in
// lines of twelve words in the standard font: the kind of text a policy
// or a manual has. Page i's text is ProseLines(i, wordsPerPage, 12), so
// pages differ and every page can be found by its own words.
func ProsePDF(n, wordsPerPage int) []byte {
	pages := make([][]string, n)
	for i := range pages {
		pages[i] = ProseLines(uint64(i+1), wordsPerPage, 12)
	}
	return PDF(pages)
}

// DenseOpsPDF makes a one-page PDF whose content stream has n
// text-showing operators: a PDF library spends a long time inside a single
// call on it, which is what tests of deadlines that fall inside one call
// need.
func DenseOpsPDF(n int) []byte {
	w := &pdfWriter{}
	font := w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	var cs bytes.Buffer
	cs.WriteString("BT /F1 1 Tf\n")
	for i := range n {
		fmt.Fprintf(&cs, "%d %d Td (ab) Tj\n", i%3-1, i%5-2)
	}
	cs.WriteString("ET")
	c := w.addStream("", cs.Bytes())
	return w.finish([]int{c}, fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", font), "")
}

// FlateBombPDF makes a one-page PDF whose Flate-compressed content stream
// inflates to about inflated bytes (whole MiBs of spaces after one line of
// text), while the file itself stays about a thousandth of that.
func FlateBombPDF(inflated int) []byte {
	var z bytes.Buffer
	zw, err := zlib.NewWriterLevel(&z, zlib.BestSpeed)
	if err != nil {
		panic(err)
	}
	_, _ = zw.Write([]byte("BT /F1 12 Tf 72 720 Td (bomb) Tj ET\n"))
	chunk := bytes.Repeat([]byte{' '}, 1<<20)
	for range inflated >> 20 {
		_, _ = zw.Write(chunk)
	}
	_ = zw.Close()
	w := &pdfWriter{}
	font := w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica >>")
	c := w.addStream("/Filter /FlateDecode", z.Bytes())
	return w.finish([]int{c}, fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", font), "")
}

// pdfWriter collects objects, numbered from 1 in the order added.
type pdfWriter struct {
	objs [][]byte
	// enc, when set, encrypts strings and streams of the objects added
	// after it.
	enc *pdfSecurity
}

// reserve returns the number of an object written later with set.
func (w *pdfWriter) reserve() int {
	w.objs = append(w.objs, nil)
	return len(w.objs)
}

func (w *pdfWriter) set(num int, body string) { w.objs[num-1] = []byte(body) }

func (w *pdfWriter) add(body string) int {
	n := w.reserve()
	w.set(n, body)
	return n
}

// addStream adds a stream object with data (encrypted when w.enc is set).
func (w *pdfWriter) addStream(dict string, data []byte) int {
	n := w.reserve()
	if w.enc != nil {
		data = w.enc.crypt(n, data)
	}
	w.objs[n-1] = fmt.Appendf(nil, "<< %s /Length %d >>\nstream\n%s\nendstream", dict, len(data), data)
	return n
}

// bytes writes the file: header, objects, cross-reference table, trailer.
func (w *pdfWriter) bytes(root int, trailer string) []byte {
	var b bytes.Buffer
	b.WriteString("%PDF-1.7\n%\xe2\xe3\xcf\xd3\n")
	offsets := make([]int, len(w.objs))
	for i, o := range w.objs {
		offsets[i] = b.Len()
		fmt.Fprintf(&b, "%d 0 obj\n%s\nendobj\n", i+1, o)
	}
	xref := b.Len()
	fmt.Fprintf(&b, "xref\n0 %d\n0000000000 65535 f \n", len(w.objs)+1)
	for _, off := range offsets {
		fmt.Fprintf(&b, "%010d 00000 n \n", off)
	}
	fmt.Fprintf(&b, "trailer\n<< /Size %d /Root %d 0 R %s >>\nstartxref\n%d\n%%%%EOF\n", len(w.objs)+1, root, trailer, xref)
	return b.Bytes()
}

// finish adds the page tree and catalog for pages (content stream objects,
// each with the resources dict res) and returns the file. Catalog and page
// tree come last, so a file cut short loses them.
func (w *pdfWriter) finish(contents []int, res string, trailer string) []byte {
	pagesNum := w.reserve()
	kids := make([]string, len(contents))
	for i, c := range contents {
		p := w.add(fmt.Sprintf("<< /Type /Page /Parent %d 0 R /MediaBox [0 0 595 842] /Resources %s /Contents %d 0 R >>", pagesNum, res, c))
		kids[i] = fmt.Sprintf("%d 0 R", p)
	}
	w.set(pagesNum, fmt.Sprintf("<< /Type /Pages /Kids [%s] /Count %d >>", strings.Join(kids, " "), len(kids)))
	root := w.add(fmt.Sprintf("<< /Type /Catalog /Pages %d 0 R >>", pagesNum))
	return w.bytes(root, trailer)
}

func latinPDFWith(w *pdfWriter, pages [][]string, trailer string) []byte {
	font := w.add("<< /Type /Font /Subtype /Type1 /BaseFont /Helvetica /Encoding /WinAnsiEncoding >>")
	contents := make([]int, len(pages))
	for i, lines := range pages {
		var cs strings.Builder
		cs.WriteString("BT /F1 12 Tf 16 TL 72 770 Td\n")
		for _, l := range lines {
			fmt.Fprintf(&cs, "(%s) Tj T*\n", pdfEscape(l))
		}
		cs.WriteString("ET")
		contents[i] = w.addStream("", []byte(cs.String()))
	}
	return w.finish(contents, fmt.Sprintf("<< /Font << /F1 %d 0 R >> >>", font), trailer)
}

func pdfEscape(s string) string {
	return strings.NewReplacer(`\`, `\\`, `(`, `\(`, `)`, `\)`).Replace(s)
}

func utf16Hex(r rune) string {
	if r < 0x10000 {
		return fmt.Sprintf("%04X", r)
	}
	r -= 0x10000
	return fmt.Sprintf("%04X%04X", 0xD800+(r>>10), 0xDC00+(r&0x3FF))
}

// pdfSecurity is the standard security handler, revision 2: RC4 with a
// 40-bit key (PDF 1.7, 7.6.3).
type pdfSecurity struct {
	key []byte
	o   []byte
	u   []byte
	p   int32
	id  []byte
}

// pdfPad is the padding string of the standard security handler.
const pdfPad = "\x28\xBF\x4E\x5E\x4E\x75\x8A\x41\x64\x00\x4E\x56\xFF\xFA\x01\x08" +
	"\x2E\x2E\x00\xB6\xD0\x68\x3E\x80\x2F\x0C\xA9\xFE\x64\x53\x69\x7A"

func padPassword(pw string) []byte {
	return append([]byte(pw), pdfPad...)[:32]
}

func rc4Crypt(key, data []byte) []byte {
	c, err := rc4.NewCipher(key)
	if err != nil {
		panic(err)
	}
	out := make([]byte, len(data))
	c.XORKeyStream(out, data)
	return out
}

func newPDFSecurity(user, owner string) *pdfSecurity {
	s := &pdfSecurity{p: -44, id: []byte("0123456789abcdef")} // -44: print and copy refused
	// Algorithm 3: O is the padded user password under a key from the owner
	// password.
	ok := md5.Sum(padPassword(owner))
	s.o = rc4Crypt(ok[:5], padPassword(user))
	// Algorithm 2: the file key.
	h := md5.New()
	h.Write(padPassword(user))
	h.Write(s.o)
	_ = binary.Write(h, binary.LittleEndian, s.p)
	h.Write(s.id)
	s.key = h.Sum(nil)[:5]
	// Algorithm 4: U is the padding under the file key.
	s.u = rc4Crypt(s.key, []byte(pdfPad))
	return s
}

// crypt encrypts (or decrypts: RC4 is symmetric) data of object num, gen 0.
func (s *pdfSecurity) crypt(num int, data []byte) []byte {
	k := append([]byte{}, s.key...)
	k = append(k, byte(num), byte(num>>8), byte(num>>16), 0, 0)
	sum := md5.Sum(k)
	return rc4Crypt(sum[:len(s.key)+5], data)
}
