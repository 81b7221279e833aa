package parse

import "context"

// parseImage reads the text of a PNG, JPEG or WebP image with the Tesseract
// OCR CLI, one Block per paragraph.
func parseImage(ctx context.Context, src Source, lim Limits) (Document, error) {
	bin, err := ocrBinary(lim)
	if err != nil {
		return Document{}, err
	}
	if err := checkOCRImage(src); err != nil {
		return Document{}, err
	}
	out, err := runTesseract(ctx, bin, src, lim)
	if err != nil {
		return Document{}, err
	}
	var doc Document
	for _, p := range ocrParagraphs(out) {
		doc.Blocks = append(doc.Blocks, Block{Text: p})
	}
	return doc, nil
}
