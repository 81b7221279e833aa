package parse

import (
	"archive/zip"
	"bytes"
	"errors"
	"io"
	"strings"
)

// sniffLen is how much of the head of a file the content checks look at.
const sniffLen = 8 << 10

// Detect tells which Kind src is from its content and checks that the file
// name agrees: a PDF must be named .pdf, a Word document .docx, and so on;
// text must be named .txt, .md, .markdown or .csv, a web page .html, .htm
// or .xhtml. A name without an extension accepts whatever the content is.
//
// A web page is content that starts (after a byte order mark, white
// space, an XML declaration and comments) with <!DOCTYPE html>, <html>,
// <head> or <body>. Two mismatches are taken in the user's favour: a page
// named .txt (saved "as text" by a browser or an editor) is read as a web
// page, so its tags never reach the text; and text named .html (a page
// fragment, "<p>…</p>" with no <html>) is read as a web page, which plain
// text also parses as. A .txt that merely contains "<" stays text, and so
// do .md and .csv files, whatever they start with: Markdown may hold raw
// HTML. Extensions are compared
// case-insensitively. An empty file is ReasonEmptyFile; content of another
// kind, or a name that contradicts it, is ReasonUnsupported with a Detail
// naming what the content is.
func Detect(src Source, name string) (Kind, error) {
	size := src.Size()
	if size <= 0 {
		return "", failf(ReasonEmptyFile, nil, "The file is empty.")
	}
	head := make([]byte, min(size, sniffLen))
	if n, err := src.ReadAt(head, 0); n < len(head) {
		if err == nil || err == io.EOF {
			err = io.ErrUnexpectedEOF
		}
		return "", failf(ReasonCorrupt, err, "The file could not be read.")
	}
	kind, what, err := sniff(src, head)
	if err != nil {
		return "", err
	}
	if kind == "" {
		return "", failf(ReasonUnsupported, nil, "The file's content is not a supported kind (%s).", what)
	}
	ext := extension(name)
	if ext == "" {
		return kind, nil
	}
	named, ok := kindOfExtension(ext)
	switch {
	case ok && kind == KindHTML && ext == ".txt":
		return KindHTML, nil
	case ok && kind == KindHTML && named == KindText:
		return KindText, nil
	case ok && kind == KindText && named == KindHTML:
		return KindHTML, nil
	}
	if !ok || named != kind {
		return "", failf(ReasonUnsupported, nil, "The file's content is %s, but its name ends in %s.",
			describeKind(kind), ext)
	}
	return kind, nil
}

// sniff names the content: a Kind when it is one this package parses,
// otherwise "" and a description of what it is for the user.
func sniff(src Source, head []byte) (Kind, string, error) {
	switch {
	case bytes.HasPrefix(head, []byte("%PDF-")):
		return KindPDF, "", nil
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		return KindPNG, "", nil
	case bytes.HasPrefix(head, []byte{0xFF, 0xD8, 0xFF}):
		return KindJPEG, "", nil
	case len(head) >= 12 && bytes.HasPrefix(head, []byte("RIFF")) && string(head[8:12]) == "WEBP":
		return KindWebP, "", nil
	// PK\x05\x06 is the end record an empty archive starts with.
	case bytes.HasPrefix(head, []byte("PK\x03\x04")), bytes.HasPrefix(head, []byte("PK\x05\x06")):
		return sniffZip(src)
	}
	if what := describeBinary(head); what != "" {
		return "", what, nil
	}
	if !looksLikeText(head) {
		return "", "binary data", nil
	}
	if looksLikeHTML(head) {
		return KindHTML, "", nil
	}
	return KindText, "", nil
}

// looksLikeHTML reports whether text content is a web page: its first
// tag, past a byte order mark, white space, an XML declaration and
// comments, is <!DOCTYPE html>, <html>, <head> or <body>, in any case.
// UTF-16 pages are not recognised and stay text.
func looksLikeHTML(head []byte) bool {
	s := bytes.TrimPrefix(head, []byte{0xEF, 0xBB, 0xBF})
	for {
		s = bytes.TrimLeft(s, " \t\r\n\f")
		switch {
		case bytes.HasPrefix(s, []byte("<?")):
			end := bytes.Index(s, []byte("?>"))
			if end < 0 {
				return false
			}
			s = s[end+2:]
		case bytes.HasPrefix(s, []byte("<!--")):
			end := bytes.Index(s, []byte("-->"))
			if end < 0 {
				return false
			}
			s = s[end+3:]
		default:
			for _, tag := range [...]string{"<!doctype html", "<html", "<head", "<body"} {
				if len(s) > len(tag) && strings.EqualFold(string(s[:len(tag)]), tag) {
					// The tag name ends there: "<html>", "<html lang…", not "<htmlx".
					if c := s[len(tag)]; c == '>' || c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\f' || c == '/' {
						return true
					}
				}
			}
			return false
		}
	}
}

// sniffZip tells a Word document from an Excel workbook by their main
// parts; only the central directory is read, nothing is inflated.
func sniffZip(src Source) (Kind, string, error) {
	zr, err := zip.NewReader(src, src.Size())
	if err != nil && !errors.Is(err, zip.ErrInsecurePath) {
		return "", "", failf(ReasonCorrupt, err, "The file looks like a zip archive but cannot be read; it may be damaged or incomplete.")
	}
	var pptx, odf bool
	for _, f := range zr.File {
		switch name := strings.ToLower(strings.ReplaceAll(f.Name, `\`, "/")); name {
		case "word/document.xml":
			return KindDOCX, "", nil
		case "xl/workbook.xml":
			return KindXLSX, "", nil
		case "ppt/presentation.xml":
			pptx = true
		case "mimetype", "content.xml":
			odf = true
		}
	}
	switch {
	case pptx:
		return "", "a PowerPoint presentation", nil
	case odf:
		return "", "an OpenDocument file", nil
	}
	return "", "a zip archive without a Word or Excel document", nil
}

// describeBinary names a few binary formats users commonly upload by
// mistake, so the refusal says what the file is; "" for anything else.
func describeBinary(head []byte) string {
	switch {
	case bytes.HasPrefix(head, []byte{0xD0, 0xCF, 0x11, 0xE0, 0xA1, 0xB1, 0x1A, 0xE1}):
		// Encrypted .docx/.xlsx files are also wrapped in this container.
		return "a legacy (.doc, .xls, .ppt) or password-protected Office document"
	case bytes.HasPrefix(head, []byte("GIF87a")), bytes.HasPrefix(head, []byte("GIF89a")):
		return "a GIF image"
	case bytes.HasPrefix(head, []byte("II*\x00")), bytes.HasPrefix(head, []byte("MM\x00*")):
		return "a TIFF image"
	case bytes.HasPrefix(head, []byte{0x1F, 0x8B}):
		return "a gzip archive"
	case bytes.HasPrefix(head, []byte("Rar!\x1A\x07")):
		return "a RAR archive"
	case bytes.HasPrefix(head, []byte{'7', 'z', 0xBC, 0xAF, 0x27, 0x1C}):
		return "a 7-Zip archive"
	case bytes.HasPrefix(head, []byte("{\\rtf")):
		return "an RTF document"
	}
	return ""
}

// looksLikeText refuses binary content: NUL bytes (unless the text is
// UTF-16 with a byte order mark, where they are normal), or more than one
// byte in ten being a control character that text does not use.
func looksLikeText(head []byte) bool {
	if bytes.HasPrefix(head, []byte{0xFF, 0xFE}) || bytes.HasPrefix(head, []byte{0xFE, 0xFF}) {
		return true
	}
	if bytes.IndexByte(head, 0) >= 0 {
		return false
	}
	controls := 0
	for _, b := range head {
		if (b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\f' && b != '\v' && b != 0x1B) || b == 0x7F {
			controls++
		}
	}
	return controls*10 <= len(head)
}
