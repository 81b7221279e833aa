package parse

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/text/encoding/charmap"
	"golang.org/x/text/encoding/japanese"
	"golang.org/x/text/encoding/simplifiedchinese"
	"golang.org/x/text/encoding/traditionalchinese"
	"golang.org/x/text/encoding/unicode"

	"github.com/cs-assistant/assistant/internal/testfiles"
)

// Sample texts in the scripts the encodings are for.
const (
	sampleSimplified = "退款政策\n客户在收到商品后七天内可以申请无理由退货，退款将在审核通过后三个工作日内原路返回。\n" +
		"如有疑问，请联系在线客服或拨打客服热线。"
	sampleTraditional = "退款政策\n客戶在收到商品後七天內可以申請無理由退貨，退款將在審核通過後三個工作日內原路返回。\n" +
		"如有疑問，請聯繫線上客服或撥打客服專線。"
	sampleJapanese = "返金ポリシー\nお客様は商品到着後七日以内であれば、理由を問わず返品を申し込むことができます。\n" +
		"ご不明な点がございましたら、カスタマーサポートまでお問い合わせください。"
)

func TestDecodeTextRecoversTheOriginalString(t *testing.T) {
	tests := []struct {
		name     string
		data     []byte
		want     string
		encoding string
	}{
		{"ASCII", []byte("hello, world"), "hello, world", "utf-8"},
		{"UTF-8", []byte("naïve café — 中文 ✓"), "naïve café — 中文 ✓", "utf-8"},
		{"UTF-8 with BOM", append([]byte{0xEF, 0xBB, 0xBF}, "BOM: 你好"...), "BOM: 你好", "utf-8"},
		{"UTF-16LE with BOM", testfiles.Encode(unicode.UTF16(unicode.LittleEndian, unicode.UseBOM), "Hello 世界\nline 2"), "Hello 世界\nline 2", "utf-16le"},
		{"UTF-16BE with BOM", testfiles.Encode(unicode.UTF16(unicode.BigEndian, unicode.UseBOM), "Hello 世界"), "Hello 世界", "utf-16be"},
		{"GBK simplified Chinese", testfiles.GBK(sampleSimplified), sampleSimplified, "gb18030"},
		{"GB18030 with a character outside GBK", testfiles.Encode(simplifiedchinese.GB18030, sampleSimplified+"𠀀"), sampleSimplified + "𠀀", "gb18030"},
		{"short GBK", testfiles.GBK("你好"), "你好", "gb18030"},
		{"GBK CSV with ASCII", testfiles.GBK("id,姓名,城市\n1,张三,北京\n2,李四,上海\n"), "id,姓名,城市\n1,张三,北京\n2,李四,上海\n", "gb18030"},
		{"Big5 traditional Chinese", testfiles.Encode(traditionalchinese.Big5, sampleTraditional), sampleTraditional, "big5"},
		{"short Big5", testfiles.Encode(traditionalchinese.Big5, "你好，謝謝"), "你好，謝謝", "big5"},
		{"Shift-JIS Japanese", testfiles.Encode(japanese.ShiftJIS, sampleJapanese), sampleJapanese, "shift_jis"},
		{"short Shift-JIS", testfiles.Encode(japanese.ShiftJIS, "ありがとう"), "ありがとう", "shift_jis"},
		{"Windows-1252", testfiles.Encode(charmap.Windows1252, "café"), "café", "windows-1252"},
		{"Windows-1252 German", testfiles.Encode(charmap.Windows1252, "Größe und Maße – 5 €"), "Größe und Maße – 5 €", "windows-1252"},
		{"Windows-1252 French", testfiles.Encode(charmap.Windows1252, "Le délai de rétractation est de 14 jours à compter de la réception."),
			"Le délai de rétractation est de 14 jours à compter de la réception.", "windows-1252"},
		{"Windows-1252 curly apostrophes (valid Shift-JIS bytes)", testfiles.Encode(charmap.Windows1252, "We’re sorry, but it’s not possible; don’t worry."),
			"We’re sorry, but it’s not possible; don’t worry.", "windows-1252"},
		{"GBK mixed with Latin words", testfiles.GBK("请使用Excel或Word打开iPhone手机里的文件"), "请使用Excel或Word打开iPhone手机里的文件", "gb18030"},
		{"Big5 mixed with Latin words", testfiles.Encode(traditionalchinese.Big5, "請使用Excel或Word打開iPhone手機裡的檔案"), "請使用Excel或Word打開iPhone手機裡的檔案", "big5"},
		{"Shift-JIS mixed with Latin words", testfiles.Encode(japanese.ShiftJIS, "ExcelやWordでiPhoneのファイルを開いてください"), "ExcelやWordでiPhoneのファイルを開いてください", "shift_jis"},
		{"UTF-8 cut off mid-character", []byte("中文")[:5], "中\uFFFD", "utf-8"},
		{"UTF-8 with one stray Latin-1 byte", append([]byte(strings.Repeat("中文内容", 10)), 0xE9), strings.Repeat("中文内容", 10) + "\uFFFD", "utf-8"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, enc := decodeText(tt.data)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.encoding, enc)
		})
	}
}

func TestCJKScoresSeparateTheEncodings(t *testing.T) {
	gbk := testfiles.GBK(sampleSimplified)
	big5 := testfiles.Encode(traditionalchinese.Big5, sampleTraditional)
	sjis := testfiles.Encode(japanese.ShiftJIS, sampleJapanese)
	for _, tt := range []struct {
		name  string
		data  []byte
		right cjkScheme
	}{{"gbk", gbk, schemeGB18030}, {"big5", big5, schemeBig5}, {"sjis", sjis, schemeShiftJIS}} {
		for _, s := range []cjkScheme{schemeGB18030, schemeBig5, schemeShiftJIS} {
			score := s.score(tt.data)
			if s == tt.right {
				assert.Greater(t, score, 0.9, "%s read as %s", tt.name, s.name())
			} else {
				assert.Less(t, score, minCJKScore, "%s read as %s", tt.name, s.name())
			}
		}
	}
}

func TestParseTextGivesOneBlockPerNonBlankLine(t *testing.T) {
	tests := []struct {
		name string
		text string
		want []Block
	}{
		{"mixed newlines", "one\r\ntwo\rthree\nfour", []Block{{Text: "one", Line: 1}, {Text: "two", Line: 2}, {Text: "three", Line: 3}, {Text: "four", Line: 4}}},
		{"blank lines keep their numbers", "\n\ntitle\n   \n\tbody text  \r\n\r\n", []Block{{Text: "title", Line: 3}, {Text: "\tbody text  ", Line: 5}}},
		{"trailing newline", "only\n", []Block{{Text: "only", Line: 1}}},
		{"NUL bytes are dropped", "a\x00b\n", []Block{{Text: "ab", Line: 1}}},
		{"BOM is dropped", "\uFEFFfirst\nsecond", []Block{{Text: "first", Line: 1}, {Text: "second", Line: 2}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			doc, err := Parse(context.Background(), KindText, bytes.NewReader([]byte(tt.text)), DefaultLimits())
			require.NoError(t, err)
			assert.Equal(t, KindText, doc.Kind)
			assert.Equal(t, "utf-8", doc.Encoding)
			assert.Equal(t, tt.want, doc.Blocks)
		})
	}
}

func TestParseTextDecodesLegacyEncodingsLineByLine(t *testing.T) {
	data := testfiles.GBK("第一行\r\n\r\n第三行：退款")
	doc, err := Parse(context.Background(), KindText, bytes.NewReader(data), DefaultLimits())
	require.NoError(t, err)
	assert.Equal(t, "gb18030", doc.Encoding)
	assert.Equal(t, []Block{{Text: "第一行", Line: 1}, {Text: "第三行：退款", Line: 3}}, doc.Blocks)
}

func TestParseTextOfBlankLinesIsNoText(t *testing.T) {
	_, err := Parse(context.Background(), KindText, bytes.NewReader([]byte("\n \r\n\t\n")), DefaultLimits())
	requireReason(t, err, ReasonNoText)
}

func TestParseTextStopsWhenTheContextEnds(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := parseText(ctx, bytes.NewReader([]byte(strings.Repeat("line\n", 5000))), DefaultLimits())
	requireReason(t, err, ReasonTimeout)
}

func FuzzParseText(f *testing.F) {
	f.Add([]byte("hello\nworld"))
	f.Add([]byte("\xEF\xBB\xBFbom\r\nline"))
	f.Add([]byte{0xFF, 0xFE, 'h', 0, 'i', 0, 0x0A})
	f.Add([]byte{0xFE, 0xFF, 0, 'h', 0})
	f.Add(testfiles.GBK(sampleSimplified))
	f.Add(testfiles.Encode(traditionalchinese.Big5, sampleTraditional))
	f.Add(testfiles.Encode(japanese.ShiftJIS, sampleJapanese))
	f.Add(testfiles.Encode(charmap.Windows1252, "café"))
	f.Add([]byte{0x81, 0x30, 0x81})
	f.Add([]byte{0xE4, 0xB8})
	f.Add([]byte("\r\r\n\n\x00"))
	f.Fuzz(func(t *testing.T, data []byte) {
		fuzzParse(t, KindText, data)
		got, enc := decodeText(data)
		if !utf8.ValidString(got) {
			t.Fatalf("decoded %s text is not valid UTF-8: %q", enc, got)
		}
	})
}
