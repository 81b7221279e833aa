package parse

import (
	"bytes"
	"mime"
	"strings"
	"unicode/utf8"

	"golang.org/x/net/html"
	"golang.org/x/net/html/charset"
	"golang.org/x/text/encoding/simplifiedchinese"
)

// htmlPrescanLen is how much of a page's head is searched for a declared
// charset. The HTML standard says 1024 bytes; pages that put a long
// <style> or a comment banner before their <meta> are common enough to
// look further.
const htmlPrescanLen = 4 << 10

// decodeHTML turns a page into UTF-8 and names the encoding it was in:
// a byte order mark first, then the charset the page declares (<meta
// charset>, <meta http-equiv="Content-Type">, or an XHTML <?xml
// encoding?>), then decodeText's guess, as for a text file.
//
// Two declarations are corrected, as browsers do: "utf-16" in a <meta>
// (the bytes read so far were ASCII, so it cannot be) means UTF-8, and
// GBK/GB2312 are read as GB18030, their superset. A page declared Latin-1
// or Windows-1252 whose bytes are valid UTF-8 with non-ASCII characters
// is UTF-8: a server template declaring the wrong charset is more common
// than Latin-1 text that happens to be valid UTF-8.
func decodeHTML(data []byte) (string, string) {
	if hasBOM(data) {
		return decodeText(data)
	}
	label := declaredCharset(data[:min(len(data), htmlPrescanLen)])
	if label == "" {
		return decodeText(data)
	}
	enc, name := charset.Lookup(label)
	switch {
	case enc == nil:
		return decodeText(data)
	case strings.HasPrefix(name, "utf-16"), name == encUTF8:
		return strings.ToValidUTF8(string(data), "\uFFFD"), encUTF8
	case name == "gbk" || name == encGB18030:
		return decodeWith(simplifiedchinese.GB18030, data), encGB18030
	case name == encWindows1252 && utf8.Valid(data) && hasNonASCII(data):
		return string(data), encUTF8
	}
	return decodeWith(enc, data), name
}

// hasBOM reports whether data starts with a UTF-8 or UTF-16 byte order mark.
func hasBOM(data []byte) bool {
	return bytes.HasPrefix(data, []byte{0xEF, 0xBB, 0xBF}) ||
		bytes.HasPrefix(data, []byte{0xFF, 0xFE}) || bytes.HasPrefix(data, []byte{0xFE, 0xFF})
}

// hasNonASCII reports whether any byte of data is above 0x7F.
func hasNonASCII(data []byte) bool {
	for _, b := range data {
		if b >= 0x80 {
			return true
		}
	}
	return false
}

// declaredCharset returns the charset label head declares, "" if none:
// from an XML declaration at the very start, or the first <meta charset>
// or <meta http-equiv="Content-Type" content="…; charset=…"> before
// <body>. The tokenizer only needs the bytes ASCII-compatible, which every
// encoding a page can declare this way is.
func declaredCharset(head []byte) string {
	z := html.NewTokenizer(bytes.NewReader(head))
	for first := true; ; first = false {
		switch z.Next() {
		case html.ErrorToken:
			return ""
		case html.CommentToken:
			// The tokenizer reads "<?xml …?>" as a bogus comment.
			if first {
				if label := xmlEncoding(string(z.Text())); label != "" {
					return label
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			tok := z.Token()
			switch tok.Data {
			case "body":
				return ""
			case "meta":
				if label := metaCharset(tok); label != "" {
					return label
				}
			}
		}
	}
}

// metaCharset reads the charset of a <meta> tag, "" when it declares none.
func metaCharset(tok html.Token) string {
	var httpEquiv, content string
	for _, a := range tok.Attr {
		switch strings.ToLower(a.Key) {
		case "charset":
			return strings.TrimSpace(a.Val)
		case "http-equiv":
			httpEquiv = strings.ToLower(strings.TrimSpace(a.Val))
		case "content":
			content = a.Val
		}
	}
	if httpEquiv != "content-type" {
		return ""
	}
	if _, params, err := mime.ParseMediaType(content); err == nil {
		return params["charset"]
	}
	return ""
}

// xmlEncoding reads encoding="…" from the text of an XML declaration
// ("?xml version="1.0" encoding="UTF-8"?"), "" when there is none.
func xmlEncoding(decl string) string {
	rest, ok := strings.CutPrefix(decl, "?xml")
	if !ok {
		return ""
	}
	i := strings.Index(rest, "encoding")
	if i < 0 {
		return ""
	}
	rest = strings.TrimLeft(rest[i+len("encoding"):], " \t\r\n=")
	if rest == "" || (rest[0] != '"' && rest[0] != '\'') {
		return ""
	}
	quote := rest[0]
	end := strings.IndexByte(rest[1:], quote)
	if end < 0 {
		return ""
	}
	return rest[1 : 1+end]
}
