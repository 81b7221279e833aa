package testfiles

import (
	"bytes"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"unicode"
)

// TextScale is the scale TextPNG and TextJPEG draw at: 6 pixels a font
// pixel, letters 42 pixels high, which OCR reads like a clear screenshot.
const TextScale = 6

// TextPNG draws lines of text as a PNG image: black capitals on white in a
// bold 5×7 bitmap font at TextScale, with wide margins, which tesseract
// reads back as the same text. The font has the letters A to Z, the
// digits (zero drawn as O), '-', '.' and ':'; lower-case letters are drawn
// as capitals and any other character as a space. An empty line is a
// blank line, which OCR takes for a paragraph break. Tesseract reads words
// and numbers reliably; letter runs that are no words ("NOPQRS") less so,
// since its language model then cannot help.
func TextPNG(lines ...string) []byte { return TextPNGScale(TextScale, lines...) }

// TextPNGScale is TextPNG at another scale: each font pixel is
// scale×scale pixels. Below about 4, OCR no longer reads it reliably.
func TextPNGScale(scale int, lines ...string) []byte {
	var b bytes.Buffer
	must(png.Encode(&b, TextImage(scale, lines...)))
	return b.Bytes()
}

// TextJPEG is TextPNG's image as a JPEG of quality 90.
func TextJPEG(lines ...string) []byte {
	var b bytes.Buffer
	must(jpeg.Encode(&b, TextImage(TextScale, lines...), &jpeg.Options{Quality: 90}))
	return b.Bytes()
}

// TextImage draws what TextPNGScale encodes.
func TextImage(scale int, lines ...string) *image.Gray {
	const margin, cell, lineGap = 60, 6, 4 // cell: 5 columns and a gap
	scale = max(scale, 1)
	// Each font pixel is drawn bold, overlapping its right and lower
	// neighbours by two thirds, so that diagonal strokes (pixels touching
	// at a corner) are connected: OCR misreads X, V and the like otherwise.
	dot := scale + scale*2/3
	width := 0
	for _, l := range lines {
		width = max(width, len([]rune(l))*cell*scale)
	}
	// top[i] is the font row line i starts at; a blank line is twice as
	// high as a line of text, which tesseract needs to see a paragraph
	// break between bold lines.
	top := make([]int, len(lines)+1)
	for i, l := range lines {
		step := 7 + lineGap
		if l == "" {
			step *= 2
		}
		top[i+1] = top[i] + step
	}
	img := image.NewGray(image.Rect(0, 0, width+2*margin, top[len(lines)]*scale+2*margin))
	for i := range img.Pix {
		img.Pix[i] = 0xff
	}
	for li, l := range lines {
		for ci, r := range []rune(l) {
			for gy, row := range glyph(unicode.ToUpper(r)) {
				for gx, px := range row {
					if px != '#' {
						continue
					}
					x0 := margin + (ci*cell+gx)*scale
					y0 := margin + (top[li]+gy)*scale
					for y := y0; y < y0+dot; y++ {
						for x := x0; x < x0+dot; x++ {
							img.SetGray(x, y, color.Gray{})
						}
					}
				}
			}
		}
	}
	return img
}

// glyph is the 5×7 bitmap of r, nil for a space or a character the font
// lacks.
func glyph(r rune) []string {
	switch r {
	case 'A':
		return []string{".###.", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}
	case 'B':
		return []string{"####.", "#...#", "#...#", "####.", "#...#", "#...#", "####."}
	case 'C':
		return []string{".###.", "#...#", "#....", "#....", "#....", "#...#", ".###."}
	case 'D':
		return []string{"###..", "#..#.", "#...#", "#...#", "#...#", "#..#.", "###.."}
	case 'E':
		return []string{"#####", "#....", "#....", "####.", "#....", "#....", "#####"}
	case 'F':
		return []string{"#####", "#....", "#....", "####.", "#....", "#....", "#...."}
	case 'G':
		return []string{".###.", "#...#", "#....", "#.###", "#...#", "#...#", ".####"}
	case 'H':
		return []string{"#...#", "#...#", "#...#", "#####", "#...#", "#...#", "#...#"}
	case 'I':
		return []string{"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "#####"}
	case 'J':
		return []string{"..###", "...#.", "...#.", "...#.", "...#.", "#..#.", ".##.."}
	case 'K':
		return []string{"#...#", "#..#.", "#.#..", "##...", "#.#..", "#..#.", "#...#"}
	case 'L':
		return []string{"#....", "#....", "#....", "#....", "#....", "#....", "#####"}
	case 'M':
		return []string{"#...#", "##.##", "#.#.#", "#.#.#", "#...#", "#...#", "#...#"}
	case 'N':
		return []string{"#...#", "##..#", "##..#", "#.#.#", "#..##", "#..##", "#...#"}
	case 'O':
		return []string{".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}
	case 'P':
		return []string{"####.", "#...#", "#...#", "####.", "#....", "#....", "#...."}
	case 'Q':
		return []string{".###.", "#...#", "#...#", "#...#", "#.#.#", "#..#.", ".##.#"}
	case 'R':
		return []string{"####.", "#...#", "#...#", "####.", "#.#..", "#..#.", "#...#"}
	case 'S':
		return []string{".####", "#....", "#....", ".###.", "....#", "....#", "####."}
	case 'T':
		return []string{"#####", "..#..", "..#..", "..#..", "..#..", "..#..", "..#.."}
	case 'U':
		return []string{"#...#", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}
	case 'V':
		return []string{"#...#", "#...#", "#...#", "#...#", "#...#", ".#.#.", "..#.."}
	case 'W':
		return []string{"#...#", "#...#", "#...#", "#.#.#", "#.#.#", "#.#.#", ".#.#."}
	case 'X':
		return []string{"##.##", ".#.#.", ".#.#.", "..#..", ".#.#.", ".#.#.", "##.##"}
	case 'Y':
		return []string{"#...#", "#...#", ".#.#.", "..#..", "..#..", "..#..", "..#.."}
	case 'Z':
		return []string{"#####", "....#", "...#.", "..#..", ".#...", "#....", "#####"}
	case '0': // as O: tesseract reads a slashed zero as 6 or 8
		return []string{".###.", "#...#", "#...#", "#...#", "#...#", "#...#", ".###."}
	case '1':
		return []string{"..#..", ".##..", "..#..", "..#..", "..#..", "..#..", ".###."}
	case '2':
		return []string{".###.", "#...#", "....#", "...#.", "..#..", ".#...", "#####"}
	case '3':
		return []string{"#####", "...#.", "..#..", "...#.", "....#", "#...#", ".###."}
	case '4':
		return []string{"...#.", "..##.", ".#.#.", "#..#.", "#####", "...#.", "...#."}
	case '5':
		return []string{"#####", "#....", "####.", "....#", "....#", "#...#", ".###."}
	case '6':
		return []string{"..##.", ".#...", "#....", "####.", "#...#", "#...#", ".###."}
	case '7':
		return []string{"#####", "....#", "...#.", "..#..", ".#...", ".#...", ".#..."}
	case '8':
		return []string{".###.", "#...#", "#...#", ".###.", "#...#", "#...#", ".###."}
	case '9':
		return []string{".###.", "#...#", "#...#", ".####", "....#", "...#.", ".##.."}
	case '-':
		return []string{".....", ".....", ".....", "#####", ".....", ".....", "....."}
	case '.':
		return []string{".....", ".....", ".....", ".....", ".....", ".##..", ".##.."}
	case ':':
		return []string{".....", ".##..", ".##..", ".....", ".##..", ".##..", "....."}
	}
	return nil
}
