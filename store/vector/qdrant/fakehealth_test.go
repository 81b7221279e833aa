package qdrant

import (
	"context"

	qc "github.com/qdrant/go-client/qdrant"
)

// fakeHealth is the fake's Qdrant service: the health check.
type fakeHealth struct {
	qc.UnimplementedQdrantServer
}

// HealthCheck implements qc.QdrantServer as Qdrant answers it.
func (fakeHealth) HealthCheck(context.Context, *qc.HealthCheckRequest) (*qc.HealthCheckReply, error) {
	return &qc.HealthCheckReply{Title: "qdrant - vector search engine", Version: "1.17.1"}, nil
}
