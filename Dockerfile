# syntax=docker/dockerfile:1
# Multi-stage build: a static binary on a distroless base, running as
# non-root. Not built in this repository's CI (no Docker engine there); kept
# correct by reading.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/assistant ./cmd/assistant \
 && mkdir -p /out/data

FROM gcr.io/distroless/static-debian12:nonroot
COPY --from=build /out/assistant /assistant
# The data dir holds the generated default key file; owned by the nonroot user (65532).
COPY --from=build --chown=65532:65532 /out/data /data
ENV ASSISTANT_ADDR=0.0.0.0:8080 \
    ASSISTANT_DATA_DIR=/data \
    XDG_CACHE_HOME=/data/cache \
    LOG_FORMAT=json
USER nonroot:nonroot
EXPOSE 8080
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["/assistant", "healthcheck"]
ENTRYPOINT ["/assistant"]
