# betplan's build, test and release chores. `make test` is what CI runs.
GO        ?= go
STATICCHECK_VERSION := v0.8.2
ACTIONLINT_VERSION  := v1.7.7
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -X main.version=$(VERSION)

.PHONY: all setup build test scale lint bench demo schema fuzz clean

all: build

# Everything the tests use beyond Go (xmllint, Chromium, PostgreSQL) and the modules.
setup:
	bash .ci/setup

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/betplan .

test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	@# vet with -race reads the packages the race build compiles: on an
	@# empty build cache every dependency is compiled once, not twice.
	$(GO) vet -race ./...
	@# go vet ran every check go test would; a race binary need not sleep
	@# a second as it exits (the race is reported either way).
	GORACE="atexit_sleep_ms=10 $(GORACE)" $(GO) test -race -vet=off -timeout 15m ./...

# The lint tools, built once at their pinned versions into bin/tools.
TOOLS := $(CURDIR)/bin/tools/staticcheck-$(STATICCHECK_VERSION)-actionlint-$(ACTIONLINT_VERSION)

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) GOFLAGS= $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(TOOLS)/actionlint:
	GOBIN=$(TOOLS) GOFLAGS= $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

# staticcheck loads the packages as the race build compiled them (make
# test's): without -race it compiles every dependency again (about 110s of
# CPU on an empty cache). Only race_on_test.go and race_off_test.go
# choose by the race tag.
lint: $(TOOLS)/staticcheck $(TOOLS)/actionlint
	GOFLAGS="$(GOFLAGS) -race" $(TOOLS)/staticcheck ./...
	$(TOOLS)/actionlint examples/ci/.github/workflows/*.yml

# The scale tests at the size their figures are stated for (make test runs
# them small): a 1,000-bet plan and fifty plans of 20 bets on one account.
scale:
	BETPLAN_FULL_SCALE=1 $(GO) test -race -count=1 -run 'TestThousandBetPlanCallsPerBet|TestFiftyPlansShareReads' ./engine

# Benchmarks count allocations and bytes; compare runs with benchstat.
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./...

# The main job on the embedded simulated service: a whole plan in under a minute.
demo:
	$(GO) run . run --sim examples/saturday-card.yaml

# Regenerate the committed JSON Schemas from the Go types.
schema:
	$(GO) run . schema plan > schema/plan.schema.json
	$(GO) run . schema config > schema/config.schema.json
	$(GO) run . schema report > schema/report.schema.json
	$(GO) run . schema diff > schema/diff.schema.json

# A short fuzzing pass over what parses untrusted bytes.
fuzz:
	$(GO) test ./plan -run '^$$' -fuzz FuzzLoad -fuzztime 30s
	$(GO) test ./apiclient -run '^$$' -fuzz FuzzDecode -fuzztime 30s
	$(GO) test ./engine -run '^$$' -fuzz FuzzJournalReplay -fuzztime 30s

clean:
	rm -rf bin
