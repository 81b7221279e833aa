package parse

import "strings"

// kindInfo is everything the service knows about one document kind in
// one place: the extensions a file of it is named with, how it is named
// to a user, and its parser. The contract's DocumentKind enum and the
// documents.kind CHECK constraint are checked against it by a test
// (TestKindsAgreeWithTheContractAndTheSchema); the unit builder reads a
// document's structure by kind in chunk.Units.
type kindInfo struct {
	kind        Kind
	extensions  []string
	description string
	parser      parserFunc
}

// kinds is the registry, in the contract's order.
func kinds() []kindInfo {
	return []kindInfo{
		{KindPDF, []string{".pdf"}, "a PDF document", parsePDF},
		{KindDOCX, []string{".docx"}, "a Word document", parseDOCX},
		{KindXLSX, []string{".xlsx"}, "an Excel workbook", parseXLSX},
		{KindText, []string{".txt", ".md", ".markdown", ".csv"}, "plain text", parseText},
		{KindHTML, []string{".html", ".htm", ".xhtml"}, "a web page (HTML)", parseHTML},
		{KindPNG, []string{".png"}, "a PNG image", parseImage},
		{KindJPEG, []string{".jpg", ".jpeg"}, "a JPEG image", parseImage},
		{KindWebP, []string{".webp"}, "a WebP image", parseImage},
	}
}

// Kinds lists every document kind, in the contract's order.
func Kinds() []Kind {
	ks := kinds()
	out := make([]Kind, len(ks))
	for i, k := range ks {
		out[i] = k.kind
	}
	return out
}

// KindOfName is the kind a file's name claims by its extension
// (case-insensitive; the name may be a Windows path), false when uploads
// accept no such extension.
func KindOfName(name string) (Kind, bool) { return kindOfExtension(extension(name)) }

// kindOfExtension maps an accepted extension (lower-cased, with its dot)
// to its Kind.
func kindOfExtension(ext string) (Kind, bool) {
	for _, k := range kinds() {
		for _, e := range k.extensions {
			if e == ext {
				return k.kind, true
			}
		}
	}
	return "", false
}

// describeKind names a Kind for a user.
func describeKind(k Kind) string {
	if info, ok := infoOf(k); ok {
		return info.description
	}
	return string(k)
}

// parserFor is the parser of a kind, nil for none.
func parserFor(k Kind) parserFunc {
	if info, ok := infoOf(k); ok {
		return info.parser
	}
	return nil
}

func infoOf(k Kind) (kindInfo, bool) {
	for _, info := range kinds() {
		if info.kind == k {
			return info, true
		}
	}
	return kindInfo{}, false
}

// extension returns the lower-cased extension of the last element of name,
// which may be a Windows path ("C:\fakepath\a.pdf"); "" when there is none.
func extension(name string) string {
	name = strings.TrimSpace(name)
	if i := strings.LastIndexAny(name, `/\`); i >= 0 {
		name = name[i+1:]
	}
	i := strings.LastIndexByte(name, '.')
	if i <= 0 {
		// No dot, or a dot file like ".env": no extension.
		return ""
	}
	return strings.ToLower(name[i:])
}
