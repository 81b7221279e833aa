package server

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestAcceptNegotiationHonoursQValues(t *testing.T) {
	cases := []struct {
		accept []string
		stream bool
	}{
		{nil, false},
		{[]string{"application/json"}, false},
		{[]string{"text/event-stream"}, true},
		{[]string{"text/event-stream, application/json"}, true},
		{[]string{"application/json", "text/event-stream"}, true},
		{[]string{"text/event-stream;q=0"}, false},
		{[]string{"text/event-stream;q=0.0"}, false},
		{[]string{"text/event-stream;q=0.000, application/json"}, false},
		{[]string{"text/event-stream;q=0.5, application/json"}, false},
		{[]string{"text/event-stream, application/json;q=0.5"}, true},
		{[]string{"text/event-stream;q=0.8, */*;q=0.1"}, true},
		{[]string{"text/event-stream;q=abc"}, false},
		{[]string{"*/*"}, false},
	}
	for _, c := range cases {
		assert.Equal(t, c.stream, acceptsEventStream(c.accept), "%q", c.accept)
	}
}
