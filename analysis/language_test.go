package analysis

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestLanguage(t *testing.T) {
	for _, c := range []struct{ text, want string }{
		{"How long is the warranty?", English},
		{"保修多久？", Chinese},
		{"什么是 Debian GNU/Linux？", Chinese},
		{"* 全功能的：Debian 目前包含了超过 59100 个软件包。", Chinese},
		{"Do you ship to 北京?", English},
		{"A-12345 的订单到哪了", Chinese},
		{"", English},
		{"12345", English},
	} {
		assert.Equal(t, c.want, Language(c.text), c.text)
	}
}
