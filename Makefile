# Zimmer: the two commands that matter are `make up` (run it) and `make test` (prove it).
.PHONY: up down test bench build lint client

up:      ## start Neo4j, Redis, zimmer serve and zimmer worker; print URL, API key, logs
	@bash devtools/up.sh

down:    ## stop everything `make up` started (data is kept in .zimmer/)
	@bash devtools/down.sh

test:    ## start test Neo4j/Redis on test ports, lint, run every test
	@bash devtools/test.sh

bench:   ## benchmarks against the test Neo4j/Redis (see README)
	@bash devtools/bench.sh $(BENCH_ARGS)

client:  ## regenerate client/client.gen.go from the OpenAPI document (oapi-codegen, pinned in go.mod)
	ZIMMER_UPDATE_CLIENT=1 go test -count=1 -run TestGeneratedClientIsCurrent ./client

build:
	go build -o .zimmer/bin/zimmer ./cmd/zimmer
