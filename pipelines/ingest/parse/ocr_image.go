package parse

import (
	"bytes"
	"encoding/binary"
	"image/jpeg"
	"image/png"
	"io"
)

// maxOCRPixels bounds the images given to tesseract: a 600 dpi A4 scan is
// 35 megapixels. Leptonica holds a decoded image at 4 bytes a pixel plus
// working copies, so a small file declaring a huge canvas (an image bomb)
// would otherwise cost the machine gigabytes.
const maxOCRPixels = 50_000_000

// checkOCRImage makes sure src is a PNG, JPEG or WebP image of a size
// tesseract may be given. The format is checked here, not only by
// detection, because tesseract reads input whose format it does not
// recognise as a list of file names (or URLs) to OCR: a crafted upload
// could have it read the server's files.
func checkOCRImage(src Source) error {
	w, h, ok := ocrImageSize(src)
	if !ok {
		return failf(ReasonOCRFailed, nil, "The image is damaged or is not a PNG, JPEG or WebP image.")
	}
	if w <= 0 || h <= 0 || int64(w)*int64(h) > maxOCRPixels {
		return failf(ReasonTooLarge, nil, "The image is %d×%d pixels; at most %d megapixels can be read.",
			w, h, maxOCRPixels/1_000_000)
	}
	return nil
}

// ocrImageSize reads the dimensions from the header of a PNG, JPEG or WebP
// image; ok is false for anything else.
func ocrImageSize(src Source) (w, h int, ok bool) {
	head := make([]byte, 30)
	n, err := src.ReadAt(head, 0)
	if err != nil && err != io.EOF {
		return 0, 0, false
	}
	head = head[:n]
	r := io.NewSectionReader(src, 0, src.Size())
	switch {
	case bytes.HasPrefix(head, []byte("\x89PNG\r\n\x1a\n")):
		cfg, err := png.DecodeConfig(r)
		return cfg.Width, cfg.Height, err == nil
	case bytes.HasPrefix(head, []byte("\xff\xd8\xff")):
		cfg, err := jpeg.DecodeConfig(r)
		return cfg.Width, cfg.Height, err == nil
	case len(head) == 30 && string(head[:4]) == "RIFF" && string(head[8:12]) == "WEBP":
		return ocrWebPSize(head)
	}
	return 0, 0, false
}

// ocrWebPSize reads the canvas size from the first 30 bytes of a WebP file
// (the image package has no WebP decoder; the header is simple).
func ocrWebPSize(b []byte) (w, h int, ok bool) {
	u24 := func(p []byte) int { return int(p[0]) | int(p[1])<<8 | int(p[2])<<16 }
	switch string(b[12:16]) {
	case "VP8X": // extended: 24-bit canvas width-1 and height-1
		return u24(b[24:27]) + 1, u24(b[27:30]) + 1, true
	case "VP8L": // lossless: signature, then 14-bit width-1 and height-1
		if b[20] != 0x2f {
			return 0, 0, false
		}
		v := binary.LittleEndian.Uint32(b[21:25])
		return int(v&0x3fff) + 1, int(v>>14&0x3fff) + 1, true
	case "VP8 ": // lossy: frame tag, start code, 14-bit width and height
		if !bytes.Equal(b[23:26], []byte{0x9d, 0x01, 0x2a}) {
			return 0, 0, false
		}
		return int(binary.LittleEndian.Uint16(b[26:28]) & 0x3fff), int(binary.LittleEndian.Uint16(b[28:30]) & 0x3fff), true
	}
	return 0, 0, false
}
