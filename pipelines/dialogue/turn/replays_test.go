package turn

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

func TestReplaysFollowsAReplyUnderWay(t *testing.T) {
	r := NewReplays(nil)
	r.start("t1", "ses_1", "msg_1")
	r.add(domain.ReplyEvent{MessageID: "msg_1", Seq: 1, Event: EventMeta}, false)
	r.add(domain.ReplyEvent{MessageID: "msg_1", Seq: 2, Event: EventDelta}, false)
	go func() {
		time.Sleep(20 * time.Millisecond)
		r.add(domain.ReplyEvent{MessageID: "msg_1", Seq: 3, Event: EventDone}, true)
	}()
	var got []int
	found, err := r.Follow(context.Background(), "t1", "ses_1", "msg_1", 1, func(ev domain.ReplyEvent) error {
		got = append(got, ev.Seq)
		return nil
	})
	require.NoError(t, err)
	assert.True(t, found)
	assert.Equal(t, []int{2, 3}, got, "the events after Last-Event-ID, the last one included")

	found, _ = r.Follow(context.Background(), "t2", "ses_1", "msg_1", 0, func(domain.ReplyEvent) error { return nil })
	assert.False(t, found, "another tenant's reply is not there")
}

func TestReplaysForgetFinishedRepliesAfterTheirTTL(t *testing.T) {
	now := time.Unix(1000, 0)
	r := NewReplays(func() time.Time { return now })
	r.start("t1", "s", "msg_old")
	r.add(domain.ReplyEvent{MessageID: "msg_old", Seq: 1, Event: EventDone}, true)
	now = now.Add(ReplayTTL + time.Second)
	r.start("t1", "s", "msg_new")
	found, _ := r.Follow(context.Background(), "t1", "s", "msg_old", 0, func(domain.ReplyEvent) error { return nil })
	assert.False(t, found)
}

func TestReplaysForgetAStoredReplyAndItsFollowersStillEnd(t *testing.T) {
	r := NewReplays(nil)
	r.start("t1", "s", "msg_1")
	r.add(domain.ReplyEvent{MessageID: "msg_1", Seq: 1, Event: EventMeta}, false)
	r.forget("msg_1") // not finished: kept
	following := make(chan []int)
	go func() {
		var got []int
		_, _ = r.Follow(context.Background(), "t1", "s", "msg_1", 0, func(ev domain.ReplyEvent) error {
			got = append(got, ev.Seq)
			if ev.Seq == 1 {
				// The reply ends and is stored while this follower waits.
				r.add(domain.ReplyEvent{MessageID: "msg_1", Seq: 2, Event: EventDone}, true)
				r.forget("msg_1")
			}
			return nil
		})
		following <- got
	}()
	assert.Equal(t, []int{1, 2}, <-following, "the follower under way gets the last event")
	found, _ := r.Follow(context.Background(), "t1", "s", "msg_1", 0, func(domain.ReplyEvent) error { return nil })
	assert.False(t, found, "a stored reply is read from the store, not memory")
}

func TestParseEventID(t *testing.T) {
	m, seq, ok := ParseEventID("msg_0192:7")
	assert.True(t, ok)
	assert.Equal(t, "msg_0192", m)
	assert.Equal(t, 7, seq)
	for _, bad := range []string{"", "msg_1", "msg_1:x", "ses_1:2", "msg_1:-1"} {
		_, _, ok := ParseEventID(bad)
		assert.False(t, ok, bad)
	}
}

func TestObserverDeliversToTheSessionsWatchersOnly(t *testing.T) {
	o := NewObserver()
	a := o.Subscribe("t1", "s1")
	b := o.Subscribe("t2", "s1")
	defer b.Close()
	o.publish("t1", StageEvent{SessionID: "s1", Stage: domain.StageTrace{Stage: StageIntent}})
	select {
	case ev := <-a.Events:
		assert.Equal(t, StageIntent, ev.Stage.Stage)
	default:
		t.Fatal("the watcher got nothing")
	}
	assert.Empty(t, b.Events, "another tenant's session of the same id sees nothing")
	a.Close()
	assert.Equal(t, 0, o.Watchers("t1", "s1"))
	o.publish("t1", StageEvent{SessionID: "s1"})
}
