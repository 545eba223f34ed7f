# proctor: the two commands a newcomer needs are `make run` and `make test`.
GO ?= go

.PHONY: run test build lint bench fuzz fuzz-short peers docs

# Evaluate the built-in reference agent on the built-in mock domain.
run:
	$(GO) run ./cmd/proctor run --domain mock --agent builtin

# The interoperability tests' peers: npm projects (the @a2a-js/sdk peer and
# agents built with other frameworks, each pinned by its lock file) and the
# tRPC-Agent-Go agent, a Go module of its own. Without npm, or offline, their
# tests are skipped, and say so.
INTEROP := internal/interop/testdata
NODE_PEERS := $(addprefix $(INTEROP)/,jspeer mastra voltagent adkts geminicli)
TRPCPEER := $(INTEROP)/trpcpeer
# The strict decoding test of deploy/k8s's manifests: a module of its own,
# so that the Kubernetes API modules stay out of proctor's go.mod.
K8SMANIFESTS := deploy/k8s/manifests_test

%/node_modules/.package-lock.json: %/package-lock.json
	@if command -v npm >/dev/null; then npm ci --prefix $* --no-audit --no-fund --ignore-scripts --loglevel=error; \
	else echo "npm not found: the interoperability tests against $(notdir $*) will be skipped"; fi

peers: $(addsuffix /node_modules/.package-lock.json,$(NODE_PEERS))
	@cd $(TRPCPEER) && $(GO) mod download && $(GO) build -o /dev/null . \
	|| echo "the tRPC-Agent-Go peer cannot be built (no module proxy?): its interop tests will be skipped"

# Everything CI runs: vet, the whole test suite with the race detector, and
# each benchmark once so they keep compiling and working. The benchmarks'
# figures mean nothing from one iteration on a busy machine (make bench
# measures them): their output is shown only when one fails.
# Tests that need tau2-bench's domain data skip without it (CI fails
# them instead); the last line says how many skipped and how to get it.
test: peers
	$(GO) vet ./...
	@skips=$$(mktemp) && PROCTOR_TAU2_SKIPS=$$skips $(GO) test -race -count=1 -timeout 20m ./... \
	&& n=$$(wc -l <$$skips) && rm -f $$skips \
	&& if [ "$$n" -gt 0 ]; then echo "make test: $$n tests skipped: tau2-bench's domain data was not found (get it with 'go run ./cmd/proctor domains install tau2', or set PROCTOR_TAU2_DATA to a directory holding airline/, retail/, telecom/ ...)"; fi
	cd $(K8SMANIFESTS) && $(GO) test -count=1 ./...
	@out=$$(mktemp) && if $(GO) test -run='^$$' -bench=. -benchtime=1x ./... >$$out 2>&1; \
	then echo "benchmarks: each ran once and passed (figures: make bench)"; rm -f $$out; \
	else cat $$out; rm -f $$out; exit 1; fi

# -buildvcs=auto stamps the commit (proctor --version names it) even where
# GOFLAGS turns stamping off, and builds without it outside a checkout.
build:
	$(GO) build -buildvcs=auto -o bin/proctor ./cmd/proctor

# The CLI reference, docs/cli.md, written from the commands' own help;
# cmd/proctor's TestCLIReferenceIsCurrent fails when it is stale.
docs:
	$(GO) run ./cmd/proctor docs --out docs/cli.md

lint:
	gofmt -l . | (! grep .)
	$(GO) vet ./...
	$(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...
	cd $(TRPCPEER) && $(GO) vet . && $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 .
	cd $(K8SMANIFESTS) && $(GO) vet ./... && $(GO) run honnef.co/go/tools/cmd/staticcheck@v0.8.2 ./...

# The issue's performance figures (see docs/performance.md).
bench:
	$(GO) test -run='^$$' -bench=. -benchmem -count=6 ./evaluation/ | tee bench.out

# The fuzz targets of the parsers of untrusted replies (the conformance
# suite's SSE, JSON-RPC and A2A object decoders among them), briefly: CI
# runs this. The budget is a count of executions, not a duration: go1.26's
# fuzzing coordinator can report its own -fuzztime deadline as a failure
# ("context deadline exceeded", no failing input; golang/go#75804), which a
# count never arms. Minimizing each new input is bounded by count as well:
# with the default 60 s per input the workers sat idle for most of a short
# run. 20,000 executions take 2 to 13 s per target here.
FUZZSHORT = -fuzztime=20000x -fuzzminimizetime=200x
fuzz-short:
	$(GO) test -run='^$$' -fuzz=FuzzParseReply $(FUZZSHORT) ./translation/
	$(GO) test -run='^$$' -fuzz=FuzzFromRaw $(FUZZSHORT) ./a2aclient/
	$(GO) test -run='^$$' -fuzz=FuzzRSFilter $(FUZZSHORT) ./a2aclient/
	$(GO) test -run='^$$' -fuzz=FuzzLegacyIPv4 $(FUZZSHORT) ./internal/agentdial/
	$(GO) test -run='^$$' -fuzz=FuzzProviderReply $(FUZZSHORT) ./llm/
	$(GO) test -run='^$$' -fuzz=FuzzDecodeReply $(FUZZSHORT) ./llm/openai/
	$(GO) test -run='^$$' -fuzz='^FuzzSSE$$' $(FUZZSHORT) ./conformance/
	$(GO) test -run='^$$' -fuzz='^FuzzEnvelope$$' $(FUZZSHORT) ./conformance/
	$(GO) test -run='^$$' -fuzz='^FuzzDecodeObject$$' $(FUZZSHORT) ./conformance/
	$(GO) test -run='^$$' -fuzz='^FuzzECPShapes$$' $(FUZZSHORT) ./conformance/
	$(GO) test -run='^$$' -fuzz='^FuzzTRPCSet$$' $(FUZZSHORT) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzADKSet$$' $(FUZZSHORT) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzYAMLCase$$' $(FUZZSHORT) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzYAMLMarks$$' $(FUZZSHORT) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzMetrics$$' $(FUZZSHORT) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzReadTurn$$' $(FUZZSHORT) ./rollout/
	$(GO) test -run='^$$' -fuzz='^FuzzJudgeReply$$' $(FUZZSHORT) ./scoring/metric/
	$(GO) test -run='^$$' -fuzz='^FuzzInspectCheck$$' $(FUZZSHORT) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzExporterMatchesSDK$$' $(FUZZSHORT) ./internal/tracing/
	$(GO) test -run='^$$' -fuzz='^FuzzFrameReader$$' $(FUZZSHORT) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzStepResult$$' $(FUZZSHORT) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzSplitCommand$$' $(FUZZSHORT) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzFastStep$$' $(FUZZSHORT) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzAppendStepParams$$' $(FUZZSHORT) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzExtractMeta$$' $(FUZZSHORT) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzConfigFromEnv$$' $(FUZZSHORT) ./internal/tracing/
	$(GO) test -run='^$$' -fuzz='^FuzzPages$$' $(FUZZSHORT) ./server/ui/
	$(GO) test -run='^$$' -fuzz='^FuzzDecode$$' $(FUZZSHORT) ./evaluation/shard/
	$(GO) test -run='^$$' -fuzz='^FuzzWireTrace$$' $(FUZZSHORT) ./server/ui/
	$(GO) test -run='^$$' -fuzz='^FuzzRead$$' $(FUZZSHORT) ./importer/
	$(GO) test -run='^$$' -fuzz='^FuzzGrepPattern$$' $(FUZZSHORT) ./domains/tau2/knowledge/
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' $(FUZZSHORT) ./domains/tau2/knowledge/kbresult/

FUZZTIME ?= 30s
fuzz:
	$(GO) test -run='^$$' -fuzz=FuzzParseReply -fuzztime=$(FUZZTIME) ./translation/
	$(GO) test -run='^$$' -fuzz='^FuzzRead$$' -fuzztime=$(FUZZTIME) ./importer/
	$(GO) test -run='^$$' -fuzz='^FuzzGrepPattern$$' -fuzztime=$(FUZZTIME) ./domains/tau2/knowledge/
	$(GO) test -run='^$$' -fuzz='^FuzzParse$$' -fuzztime=$(FUZZTIME) ./domains/tau2/knowledge/kbresult/
	$(GO) test -run='^$$' -fuzz=FuzzStoredEvaluation -fuzztime=$(FUZZTIME) ./store/
	$(GO) test -run='^$$' -fuzz=FuzzFromRaw -fuzztime=$(FUZZTIME) ./a2aclient/
	$(GO) test -run='^$$' -fuzz=FuzzReportedUsage -fuzztime=$(FUZZTIME) ./a2aclient/
	$(GO) test -run='^$$' -fuzz=FuzzRSFilter -fuzztime=$(FUZZTIME) ./a2aclient/
	$(GO) test -run='^$$' -fuzz=FuzzLegacyIPv4 -fuzztime=$(FUZZTIME) ./internal/agentdial/
	$(GO) test -run='^$$' -fuzz=FuzzDecode -fuzztime=$(FUZZTIME) ./internal/tau2model/
	$(GO) test -run='^$$' -fuzz=FuzzParseTasks -fuzztime=$(FUZZTIME) ./domains/
	$(GO) test -run='^$$' -fuzz=FuzzTOMLDatabase -fuzztime=$(FUZZTIME) ./domains/tau2/telecom/
	$(GO) test -run='^$$' -fuzz=FuzzHash -fuzztime=$(FUZZTIME) ./domains/tau2/internal/dbhash/
	$(GO) test -run='^$$' -fuzz=FuzzRedactURL -fuzztime=$(FUZZTIME) ./server/
	$(GO) test -run='^$$' -fuzz=FuzzStep -fuzztime=$(FUZZTIME) ./refagent/
	$(GO) test -run='^$$' -fuzz=FuzzProviderReply -fuzztime=$(FUZZTIME) ./llm/
	$(GO) test -run='^$$' -fuzz=FuzzDecodeReply -fuzztime=$(FUZZTIME) ./llm/openai/
	$(GO) test -run='^$$' -fuzz='^FuzzSSE$$' -fuzztime=$(FUZZTIME) ./conformance/
	$(GO) test -run='^$$' -fuzz='^FuzzEnvelope$$' -fuzztime=$(FUZZTIME) ./conformance/
	$(GO) test -run='^$$' -fuzz='^FuzzDecodeObject$$' -fuzztime=$(FUZZTIME) ./conformance/
	$(GO) test -run='^$$' -fuzz='^FuzzTRPCSet$$' -fuzztime=$(FUZZTIME) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzADKSet$$' -fuzztime=$(FUZZTIME) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzYAMLCase$$' -fuzztime=$(FUZZTIME) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzYAMLMarks$$' -fuzztime=$(FUZZTIME) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzMetrics$$' -fuzztime=$(FUZZTIME) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzReadTurn$$' -fuzztime=$(FUZZTIME) ./rollout/
	$(GO) test -run='^$$' -fuzz='^FuzzReadEvalSetRun$$' -fuzztime=$(FUZZTIME) ./report/
	$(GO) test -run='^$$' -fuzz='^FuzzJSONCriterion$$' -fuzztime=$(FUZZTIME) ./scoring/metric/
	$(GO) test -run='^$$' -fuzz='^FuzzTextRegex$$' -fuzztime=$(FUZZTIME) ./scoring/metric/
	$(GO) test -run='^$$' -fuzz='^FuzzJudgeReply$$' -fuzztime=$(FUZZTIME) ./scoring/metric/
	$(GO) test -run='^$$' -fuzz='^FuzzInspectCheck$$' -fuzztime=$(FUZZTIME) ./evalset/
	$(GO) test -run='^$$' -fuzz='^FuzzFrameReader$$' -fuzztime=$(FUZZTIME) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzStepResult$$' -fuzztime=$(FUZZTIME) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzSplitCommand$$' -fuzztime=$(FUZZTIME) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzFastStep$$' -fuzztime=$(FUZZTIME) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzAppendStepParams$$' -fuzztime=$(FUZZTIME) ./ecp/
	$(GO) test -run='^$$' -fuzz='^FuzzDecode$$' -fuzztime=$(FUZZTIME) ./evaluation/shard/
