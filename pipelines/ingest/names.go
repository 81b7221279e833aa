package ingest

import (
	"net/url"
	"path"
	"strings"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest/parse"
)

// maxNameBytes bounds a stored file name.
const maxNameBytes = 255

// CleanFileName decodes a possibly URL-encoded file name
// ("%E9%80%80%E6%AC%BE.pdf" → "退款.pdf") and keeps only its last path
// element, so a name can never point anywhere. Returns CodeValidation for
// a name that is empty or not UTF-8 after decoding.
func CleanFileName(raw string) (string, error) {
	name := raw
	if strings.Contains(name, "%") {
		if dec, err := url.PathUnescape(name); err == nil {
			name = dec
		}
	}
	name = strings.ReplaceAll(name, "\\", "/")
	name = strings.TrimSpace(path.Base(name))
	if name == "." || name == ".." || name == "/" || name == "" || !utf8.ValidString(name) || strings.ContainsAny(name, "\x00\r\n") {
		return "", domain.Invalid("fileName", "a file name is required (UTF-8, no path)")
	}
	if len(name) > maxNameBytes {
		ext := path.Ext(name)
		if len(ext) > maxNameBytes/2 {
			ext = "" // an "extension" that long is part of the name
		}
		cut := maxNameBytes - len(ext)
		for cut > 0 && !utf8.RuneStart(name[cut]) {
			cut--
		}
		name = name[:cut] + ext
	}
	return name, nil
}

// SupportedFileName reports whether a file's extension is one of the kinds
// uploads accept (.pdf, .docx, .xlsx, .txt/.md/.markdown/.csv,
// .html/.htm/.xhtml, .png, .jpg/.jpeg, .webp), case-insensitively: how a folder's files are picked
// for upload before their content is checked.
func SupportedFileName(name string) bool {
	_, ok := kindFromName(name)
	return ok
}

// kindFromName is the kind a file name claims; used only for files whose
// content cannot tell (empty or unreadable), so they fail in their job with
// a reason rather than at upload.
func kindFromName(name string) (parse.Kind, bool) { return parse.KindOfName(name) }
