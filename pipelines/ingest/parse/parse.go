// Package parse turns an uploaded file into text blocks in reading order,
// each knowing where it came from (page, sheet, heading). Every parser runs
// under Limits: a deadline, bounds on what it may decompress or allocate,
// and panic recovery, so a hostile file fails with a Reason and never takes
// the service down.
package parse

import (
	"context"
	"fmt"
	"io"
	"time"
)

// Kind is a file kind, detected from the content.
type Kind string

// Kinds this package parses.
const (
	KindPDF  Kind = "pdf"
	KindDOCX Kind = "docx"
	KindXLSX Kind = "xlsx"
	KindText Kind = "text"
	KindHTML Kind = "html"
	KindPNG  Kind = "png"
	KindJPEG Kind = "jpeg"
	KindWebP Kind = "webp"
)

// Block is one piece of text in reading order.
type Block struct {
	Text string
	// Page is the 1-based PDF page; 0 for other kinds.
	Page int
	// Sheet is the xlsx sheet name; "" for other kinds.
	Sheet string
	// Heading marks a docx or HTML heading (or an xlsx header row); its
	// Level is 1..9 (1..6 for HTML h1–h6).
	Heading bool
	Level   int
	// Line is the 1-based first line of a text block in a text file; 0 otherwise.
	Line int
	// Question marks the question of a question–answer pair as the
	// document's own markup says it (an HTML <summary> or <dt>, a
	// schema.org FAQPage question, a bold docx paragraph that asks): the
	// blocks after it, up to the next question or heading, answer it.
	Question bool
	// ListItem marks an item of a list (HTML <li>, a docx list
	// paragraph): it belongs with the sentence that introduces the list.
	ListItem bool
	// Preformatted marks code or preformatted text (HTML <pre>): a block
	// kept whole, never cut into sentences.
	Preformatted bool
	// Lang is the language the document declares for the block (an HTML
	// lang attribute, "zh-CN", "en"); "" when it declares none.
	Lang string
}

// Document is what a parser makes of a file.
type Document struct {
	Kind   Kind
	Blocks []Block
	// Encoding is the detected text encoding of a text file or web page
	// ("utf-8", "gb18030", …).
	Encoding string
}

// Reasons a file cannot be parsed: stable codes shown to users as a job's
// failure reason.
const (
	ReasonEmptyFile       = "empty_file"
	ReasonUnsupported     = "unsupported_media_type"
	ReasonCorrupt         = "corrupt_file"
	ReasonEncrypted       = "encrypted_file"
	ReasonArchiveTooLarge = "archive_too_large"
	ReasonTimeout         = "parse_timeout"
	ReasonTooLarge        = "file_too_large"
	ReasonOCRUnavailable  = "ocr_unavailable"
	ReasonOCRFailed       = "ocr_failed"
	ReasonCrashed         = "parser_crashed"
	ReasonNoText          = "no_text"
)

// Error is a parse failure with a stable Reason and a human Detail.
type Error struct {
	Reason string
	Detail string
	Err    error
}

// Error implements error.
func (e *Error) Error() string {
	if e.Err != nil {
		return fmt.Sprintf("%s: %s: %v", e.Reason, e.Detail, e.Err)
	}
	return e.Reason + ": " + e.Detail
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

func failf(reason string, err error, format string, args ...any) *Error {
	return &Error{Reason: reason, Detail: fmt.Sprintf(format, args...), Err: err}
}

// Limits bound one parse.
type Limits struct {
	// Timeout bounds the whole parse.
	Timeout time.Duration
	// MaxDecompressed bounds the bytes read out of a zip container (docx,
	// xlsx), counted as they are inflated, not as the archive claims.
	MaxDecompressed int64
	// MaxEntries bounds the number of entries of a zip container.
	MaxEntries int
	// MaxInflateRatio bounds decompressed/compressed for a zip container.
	MaxInflateRatio float64
	// MaxPages bounds the pages read from a PDF.
	MaxPages int
	// OCRCommand is the tesseract binary ("" = look up "tesseract" on PATH).
	OCRCommand string
	// OCRLanguages is tesseract's -l argument, e.g. "eng+chi_sim".
	OCRLanguages string
	// PDF is the engine PDFs are parsed with, started once by the service;
	// nil makes each PDF start its own (about 0.1 s each, 3.5 s without a
	// compile cache).
	PDF *PDFEngine
}

// DefaultLimits are the limits the service runs with.
func DefaultLimits() Limits {
	return Limits{
		Timeout:         2 * time.Minute,
		MaxDecompressed: 100 << 20,
		MaxEntries:      10000,
		MaxInflateRatio: 100,
		MaxPages:        5000,
		OCRLanguages:    "eng+chi_sim",
	}
}

// Source is an uploaded file: random access and its size.
type Source interface {
	io.ReaderAt
	Size() int64
}

// parserFunc parses one kind.
type parserFunc func(ctx context.Context, src Source, lim Limits) (Document, error)
