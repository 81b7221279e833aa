package lexical

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTokenize(t *testing.T) {
	cases := []struct {
		in   string
		want []string
	}{
		{"", nil},
		{"  ,.!? ", nil},
		{"Hello, World!", []string{"hello", "world"}},
		{"Error 0x80070005 on Win-10", []string{"error", "0x80070005", "on", "win", "10"}},
		{"don't", []string{"don", "t"}},
		// NFKC: full-width forms, ligatures; then lower case.
		{"ＡＢＣ１２３", []string{"abc123"}},
		{"ﬁle", []string{"file"}},
		{"STRASSE Straße", []string{"strasse", "straße"}},
		// A combining accent composes with its letter.
		{"cafe\u0301 CAFÉ", []string{"café", "café"}},
		// Marks stay inside words of scripts that need them.
		{"नमस्ते दुनिया", []string{"नमस्ते", "दुनिया"}},
		{"привет Мир", []string{"привет", "мир"}},
		// CJK runs: overlapping pairs; a lone character by itself.
		{"申请退款流程", []string{"申请", "请退", "退款", "款流", "流程"}},
		{"我", []string{"我"}},
		{"我 要 退款", []string{"我", "要", "退款"}},
		{"iPhone手机坏了", []string{"iphone", "手机", "机坏", "坏了"}},
		{"退款，请联系客服。", []string{"退款", "请联", "联系", "系客", "客服"}},
		{"５号订单", []string{"5", "号订", "订单"}},
		{"コーヒーを注文", []string{"コー", "ーヒ", "ヒー", "ーを", "を注", "注文"}},
		{"ｺｰﾋｰ", []string{"コー", "ーヒ", "ヒー"}}, // half-width katakana
		{"환불 요청합니다", []string{"환불", "요청", "청합", "합니", "니다"}},
	}
	for _, c := range cases {
		assert.Equal(t, c.want, Tokenize(c.in), "%q", c.in)
	}
}
