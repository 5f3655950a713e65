# betplan's build, test and release chores. `make test` is what CI runs.
GO        ?= go
STATICCHECK_VERSION := v0.8.2
ACTIONLINT_VERSION  := v1.7.7
# The release tools, built from source by the Go module proxy into .tools/
# (a directory per version, so a bump reinstalls): no binary downloads.
GORELEASER_VERSION      := v2.15.1
CYCLONEDX_GOMOD_VERSION := v1.10.0
GORELEASER      := $(CURDIR)/.tools/goreleaser@$(GORELEASER_VERSION)/goreleaser
CYCLONEDX_GOMOD := $(CURDIR)/.tools/cyclonedx-gomod@$(CYCLONEDX_GOMOD_VERSION)/cyclonedx-gomod
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
COMMIT    ?= $(shell git rev-parse HEAD 2>/dev/null)
# The commit's time, not the clock's: the same commit builds the same binary.
BUILD_DATE ?= $(shell TZ=UTC git log -1 --format=%cd --date=format-local:%Y-%m-%dT%H:%M:%SZ 2>/dev/null)
PKG       := github.com/betplan/betplan/cli
LDFLAGS   := -X $(PKG).version=$(VERSION) -X $(PKG).commit=$(COMMIT) -X $(PKG).date=$(BUILD_DATE)

.PHONY: all setup build test scale lint bench demo schema fuzz clean tools dist release-check serve-chaos serve-idle

all: build

# Everything the tests use beyond Go (xmllint, Chromium, curl, wget, PostgreSQL) and the modules.
setup:
	bash .ci/setup

build:
	$(GO) build -ldflags "$(LDFLAGS)" -o bin/betplan .

test:
	@unformatted=$$(gofmt -l $$(git ls-files '*.go' 2>/dev/null || find . -name '*.go')); \
	  if [ -n "$$unformatted" ]; then echo "gofmt needed on:"; echo "$$unformatted"; exit 1; fi
	@# go test vets each package with every check go vet runs (-vet=all),
	@# packages without tests too, within the race build: on an empty build
	@# cache every dependency is compiled once, and a package's tests start
	@# as soon as it is vetted, not after the whole tree. A race binary need
	@# not sleep a second as it exits (the race is reported either way). The
	@# command package runs 8 of its parallel tests at once (cli/main_test.go): most
	@# wait on the processes they start.
	GORACE="atexit_sleep_ms=10 $(GORACE)" $(GO) test -race -vet=all -timeout 15m ./...

# The lint tools, built once at their pinned versions into bin/tools.
TOOLS := $(CURDIR)/bin/tools/staticcheck-$(STATICCHECK_VERSION)-actionlint-$(ACTIONLINT_VERSION)

$(TOOLS)/staticcheck:
	GOBIN=$(TOOLS) GOFLAGS= $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

$(TOOLS)/actionlint:
	GOBIN=$(TOOLS) GOFLAGS= $(GO) install github.com/rhysd/actionlint/cmd/actionlint@$(ACTIONLINT_VERSION)

# staticcheck loads the packages as the race build compiled them (make
# test's): without -race it compiles every dependency again (about 110s of
# CPU on an empty cache). No file of ours chooses by the race tag.
lint: $(TOOLS)/staticcheck $(TOOLS)/actionlint
	GOFLAGS="$(GOFLAGS) -race" $(TOOLS)/staticcheck ./...
	$(TOOLS)/actionlint examples/ci/.github/workflows/*.yml

# betplan serve at the service's real speed, apart from make test: the
# take-over test (two replicas on PostgreSQL, the leader killed twice and
# stopped once) under -race, then the idle measurement of 50 plans
# without it (-race would multiply the CPU it measures).
serve-chaos:
	BETPLAN_TEST_SERVE_CHAOS=1 GORACE="atexit_sleep_ms=10 $(GORACE)" $(GO) test -race -count=1 -timeout 20m -run '^TestServeTakeOverAtRealSpeed$$' -v ./cli

# A measurement, not a test CI runs: 50 idle plans' CPU and memory under
# serve, without -race (about five minutes).
serve-idle:
	BETPLAN_TEST_SERVE_IDLE=1 $(GO) test -count=1 -timeout 15m -run '^TestServeIdleWithFiftyPlans$$' -v ./cli

# The scale runs at the size their figures are stated for, once each (make
# test runs the same code small): 1,000 open bets and fifty plans of 20 bets
# on one account, each held to the polling rule.
scale:
	$(GO) test -race -count=1 -run '^$$' -bench 'BenchmarkRunPerBet/1000|BenchmarkManyPlans/50x20' -benchtime 1x ./engine

# Benchmarks count allocations and bytes, list reads a tick and how long
# after a result the run sees it; compare runs with benchstat.
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
	$(GO) run . schema history > schema/history.schema.json
	$(GO) run . schema explain > schema/explain.schema.json

# A short fuzzing pass over what parses untrusted bytes.
fuzz:
	$(GO) test ./plan -run '^$$' -fuzz FuzzLoad -fuzztime 30s
	$(GO) test ./apiclient -run '^$$' -fuzz FuzzDecode -fuzztime 30s
	$(GO) test ./engine -run '^$$' -fuzz FuzzJournalReplay -fuzztime 30s

# The release tools at their pinned versions.
tools: $(GORELEASER) $(CYCLONEDX_GOMOD)

$(GORELEASER):
	GOBIN=$(@D) GOFLAGS= $(GO) install github.com/goreleaser/goreleaser/v2@$(GORELEASER_VERSION)

$(CYCLONEDX_GOMOD):
	GOBIN=$(@D) GOFLAGS= $(GO) install github.com/CycloneDX/cyclonedx-gomod/cmd/cyclonedx-gomod@$(CYCLONEDX_GOMOD_VERSION)

# A snapshot of the release in dist/: the archives of every platform, an
# SBOM per archive and checksums.txt. One commit gives the same checksums.txt
# on every run.
dist: tools
	$(DIST_GIT_ENV) PATH="$(dir $(CYCLONEDX_GOMOD)):$$PATH" $(GORELEASER) release --snapshot --clean

# GoReleaser reads the commit and its time only where the clone has a
# remote; a clone without one names the project's, for this command only.
DIST_GIT_ENV := $(if $(shell git remote 2>/dev/null),,GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=remote.origin.url GIT_CONFIG_VALUE_0=https://github.com/betplan/betplan.git)

# The release as a user meets it: goreleaser check, the release binary's
# version, and install.sh against dist/ served on loopback. Needs `make dist`.
release-check: tools
	GORELEASER="$(GORELEASER)" $(GO) test -count=1 -tags release -run . ./internal/release

clean:
	rm -rf bin dist
