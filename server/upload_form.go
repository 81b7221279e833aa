package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"mime/multipart"
	"unicode/utf8"

	"github.com/cs-assistant/assistant/domain"
	"github.com/cs-assistant/assistant/pipelines/ingest"
)

// uploadFormSlack is the room an upload's body gets beyond the file limit,
// for the form's other parts and its boundaries.
const uploadFormSlack = 256 << 10

// maxFileName is the contract's maxLength of the form's fileName.
const maxFileName = 1024

// maxFormField bounds each text part of the upload form.
const maxFormField = 64 << 10

// readUploadForm streams the upload form: the file is read up to maxFile
// bytes and refused (413) past that while streaming; the text parts are
// small and bounded. Unknown parts are refused.
func readUploadForm(r *multipart.Reader, maxFile int64) (ingest.Upload, error) {
	var u ingest.Upload
	var haveFile, haveKB bool
	var fileName, partName string
	metadata := []byte("{}")
	for {
		part, err := r.NextPart()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return u, formError(err)
		}
		switch part.FormName() {
		case "file":
			data, err := io.ReadAll(io.LimitReader(part, maxFile+1))
			if err != nil {
				return u, formError(err)
			}
			if int64(len(data)) > maxFile {
				return u, domain.Errorf(domain.CodePayloadTooLarge, "The file is over %d bytes.", maxFile)
			}
			if err := checkUTF8("file", part.FileName()); err != nil {
				return u, err
			}
			u.Content, haveFile, partName = data, true, part.FileName()
		case "kbId":
			v, err := readField(part)
			if err != nil {
				return u, err
			}
			if !domain.ValidID(domain.PrefixKnowledgeBase, v) {
				return u, domain.Invalid("kbId", "must be a knowledge base id (kb_ and 32 hex digits)")
			}
			u.KBID, haveKB = v, true
		case "metadata":
			v, err := readField(part)
			if err != nil {
				return u, err
			}
			metadata = []byte(v)
		case "fileName":
			if fileName, err = readField(part); err != nil {
				return u, err
			}
			if err := checkUTF8("fileName", fileName); err != nil {
				return u, err
			}
			if utf8.RuneCountInString(fileName) > maxFileName {
				return u, domain.Invalid("fileName", fmt.Sprintf("is over %d characters", maxFileName))
			}
		case "proposeMetadata":
			v, err := readField(part)
			if err != nil {
				return u, err
			}
			switch v {
			case "true":
				u.ProposeMetadata = true
			case "false":
			default:
				return u, domain.Invalid("proposeMetadata", "must be true or false")
			}
		default:
			return u, domain.Invalid(part.FormName(), "unknown form part; the form takes file, kbId, metadata, fileName and proposeMetadata")
		}
	}
	switch {
	case !haveFile:
		return u, domain.Invalid("file", "is required")
	case !haveKB:
		return u, domain.Invalid("kbId", "is required")
	}
	if err := checkJSON(metadata, "metadata"); err != nil {
		return u, err
	}
	if err := json.Unmarshal(metadata, &u.Metadata); err != nil || u.Metadata == nil {
		return u, domain.Invalid("metadata", "must be a JSON object")
	}
	u.FileName = fileName
	if u.FileName == "" {
		u.FileName = partName
	}
	return u, nil
}

func readField(part *multipart.Part) (string, error) {
	data, err := io.ReadAll(io.LimitReader(part, maxFormField+1))
	if err != nil {
		return "", formError(err)
	}
	if len(data) > maxFormField {
		return "", domain.Invalid(part.FormName(), "is over 64 KiB")
	}
	return string(data), nil
}

// formError tells a body over the limit or past its deadline from a
// broken form.
func formError(err error) error { return bodyReadError(err, "multipart form") }
