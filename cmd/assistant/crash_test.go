package main

import (
	"context"
	"net"
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/cs-assistant/assistant/domain"
)

// A job held by a worker that died (its lease was never renewed) is taken
// over by a live worker once the lease expires, and finishes.
func TestAJobOfADeadWorkerIsTakenOver(t *testing.T) {
	e := newEnv(t)
	kb := e.createKB("", "acme", "support")["id"].(string)
	e.app.stopBackground() // no live worker for now
	e.app.background.Wait()

	r := e.upload(upload{kbID: kb, partName: "a.txt", content: []byte("a line about refunds\nand one about shipping\n")})
	require.Equal(t, http.StatusAccepted, r.Status, "%s", r.Body)
	jobID := r.JSON(t)["job"].(map[string]any)["id"].(string)
	// A worker claims it and dies: the lease is left to expire.
	job, ok, err := e.app.store.ClaimJob(t.Context(), domain.JobClaim{Owner: "dead-worker", Lease: time.Second})
	require.NoError(t, err)
	require.True(t, ok)
	require.Equal(t, jobID, job.ID)

	e.app.startBackground(context.Background()) // a live worker comes up
	t.Cleanup(func() { e.app.stopBackground(); e.app.background.Wait() })
	done := e.waitJob("acme", jobID)
	assert.Equal(t, "succeeded", done["state"])
	assert.EqualValues(t, 2, done["attempts"], "the dead worker's attempt and the live one's")
}

// freeAddr is a loopback address with a port that was free a moment ago.
func freeAddr(t *testing.T) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	return ln.Addr().String()
}
