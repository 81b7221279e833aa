package domain

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

func TestRetentionFloors(t *testing.T) {
	now := time.Date(2030, 3, 31, 10, 30, 0, 0, time.UTC)
	t.Run("a new tenant keeps monitoring 90 days and messages for good", func(t *testing.T) {
		r := DefaultRetention()
		assert.Equal(t, time.Date(2029, 12, 31, 10, 30, 0, 0, time.UTC), r.MonitoringFloor(now))
		_, ok := r.MessageFloor(now)
		assert.False(t, ok)
	})
	t.Run("message days set a message floor", func(t *testing.T) {
		days := int32(7)
		floor, ok := Retention{MonitoringDays: 1, MessageDays: &days}.MessageFloor(now)
		assert.True(t, ok)
		assert.Equal(t, time.Date(2030, 3, 24, 10, 30, 0, 0, time.UTC), floor)
	})
}
