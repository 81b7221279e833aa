package testfiles

import (
	"archive/zip"
	"bytes"
	"compress/flate"
	"io"
)

// ZipEntry is one file of a zip archive.
type ZipEntry struct {
	// Name is the entry's path in the archive.
	Name string
	// Body is the entry's content.
	Body string
	// Zeros, if set, is appended to Body as that many zero bytes, written
	// in chunks so that a bomb costs no memory to build.
	Zeros int64
	// Fill, if set, replaces the byte Zeros appends.
	Fill byte
}

// Zip writes entries into a deflated zip archive, in order. Fast
// compression keeps large bombs cheap to build: 200 MiB of zeros take
// about a tenth of a second and compress to about 250 KiB.
func Zip(entries ...ZipEntry) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	zw.RegisterCompressor(zip.Deflate, func(w io.Writer) (io.WriteCloser, error) {
		return flate.NewWriter(w, flate.BestSpeed)
	})
	chunk := make([]byte, 1<<20)
	for _, e := range entries {
		w, err := zw.Create(e.Name)
		must(err)
		_, err = io.WriteString(w, e.Body)
		must(err)
		if e.Zeros > 0 && e.Fill != 0 {
			for i := range chunk {
				chunk[i] = e.Fill
			}
		}
		for left := e.Zeros; left > 0; left -= int64(len(chunk)) {
			_, err = w.Write(chunk[:min(left, int64(len(chunk)))])
			must(err)
		}
		clear(chunk)
	}
	must(zw.Close())
	return buf.Bytes()
}

// StoredZip writes entries uncompressed and without a CRC, which
// archive/zip then does not check: cheap to build in a fuzz body, and a
// fuzzer's byte flips reach the content instead of failing a checksum.
// Zeros and Fill are ignored.
func StoredZip(entries ...ZipEntry) []byte {
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		w, err := zw.CreateRaw(&zip.FileHeader{Name: e.Name, Method: zip.Store,
			CompressedSize64: uint64(len(e.Body)), UncompressedSize64: uint64(len(e.Body))})
		must(err)
		_, err = io.WriteString(w, e.Body)
		must(err)
	}
	must(zw.Close())
	return buf.Bytes()
}

// StoredCopy rewrites a zip archive as StoredZip does: every entry stored
// uncompressed and without a CRC. replace, if not nil, swaps entries'
// bodies by name. It panics if data is not a readable zip archive.
func StoredCopy(data []byte, replace map[string]string) []byte {
	zr, err := zip.NewReader(bytes.NewReader(data), int64(len(data)))
	must(err)
	var entries []ZipEntry
	for _, f := range zr.File {
		body, ok := replace[f.Name]
		if !ok {
			rc, err := f.Open()
			must(err)
			b, err := io.ReadAll(rc)
			must(err)
			must(rc.Close())
			body = string(b)
		}
		entries = append(entries, ZipEntry{Name: f.Name, Body: body})
	}
	return StoredZip(entries...)
}

// DOCXBomb makes a Word document whose document part inflates to inflated
// bytes (spaces after the opening of the body), in a file about a
// thousandth of that: a decompression bomb with a valid package around it.
func DOCXBomb(inflated int64) []byte {
	return Zip(append(DOCXParts(), ZipEntry{Name: "word/document.xml", Body: DOCXDocumentOpen, Zeros: inflated, Fill: ' '})...)
}

// XLSXBomb makes a zip that starts like an Excel workbook and holds an
// entry of inflated zero bytes named like an image a workbook embeds, in
// a file about a thousandth of that.
func XLSXBomb(inflated int64) []byte {
	return Zip(ZipEntry{Name: "xl/workbook.xml", Body: "<workbook/>"},
		ZipEntry{Name: "xl/media/image1.png", Zeros: inflated})
}

// must panics on an error that only a bug in a calling test can cause.
func must(err error) {
	if err != nil {
		panic("testfiles: " + err.Error())
	}
}
