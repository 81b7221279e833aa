package domain

import (
	"errors"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestValidateSlots(t *testing.T) {
	fifty := map[string]string{}
	for i := range MaxSessionSlots {
		fifty["s"+strings.Repeat("x", i)] = "v"
	}
	ok := []struct {
		name  string
		slots map[string]string
	}{
		{"no slots", nil},
		{"names and values at their limits", map[string]string{"a" + strings.Repeat("_", 63): strings.Repeat("值", MaxSlotValueLen)}},
		{"fifty slots", fifty},
	}
	for _, c := range ok {
		t.Run(c.name+" pass", func(t *testing.T) { assert.NoError(t, ValidateSlots("/slots", c.slots)) })
	}
	bad := []struct {
		name   string
		slots  map[string]string
		fields []string
	}{
		{"a name starting with a digit", map[string]string{"1abc": "x"}, []string{"/slots/1abc"}},
		{"an upper-case name", map[string]string{"Order": "x"}, []string{"/slots/Order"}},
		{"an empty name", map[string]string{"": "x"}, []string{"/slots/"}},
		{"a name of 65 characters", map[string]string{"a" + strings.Repeat("b", 64): "x"}, []string{"/slots/a" + strings.Repeat("b", 64)}},
		{"a slash in a name is escaped in the pointer", map[string]string{"a/b": "x"}, []string{"/slots/a~1b"}},
		{"a value of 501 characters", map[string]string{"order": strings.Repeat("x", 501)}, []string{"/slots/order"}},
		{"51 slots", func() map[string]string {
			m := map[string]string{"extra": "x"}
			for k, v := range fifty {
				m[k] = v
			}
			return m
		}(), []string{"/slots"}},
	}
	for _, c := range bad {
		t.Run(c.name+" fails", func(t *testing.T) {
			err := ValidateSlots("/slots", c.slots)
			require.Error(t, err)
			assert.Equal(t, CodeValidation, ErrorCodeOf(err))
			var e *Error
			require.True(t, errors.As(err, &e))
			var fields []string
			for _, f := range e.Fields {
				fields = append(fields, f.Field)
			}
			assert.Equal(t, c.fields, fields)
		})
	}
}
