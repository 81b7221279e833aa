// Package testfiles makes real files of every kind the service ingests, for
// tests and benchmarks: PDFs (Latin text in a standard font, Chinese text in
// a Type0 font with a ToUnicode CMap, encrypted, hostile), Word documents,
// Excel workbooks, text in legacy encodings, images of text that OCR can
// read, and zip archives, bombs included.
//
// Files are generated, not shipped as binary fixtures, so a test shows what
// is in them, and they use no font files or other assets. Everything is
// deterministic: the same arguments give the same bytes.
//
// The generators are for tests only. They panic on input they cannot
// represent (a character a legacy encoding lacks, an invalid sheet name),
// which is a bug in the calling test; they never fail otherwise. The package
// keeps no state between calls and is safe for concurrent use.
package testfiles
