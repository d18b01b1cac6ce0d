# Turnstile's commands. A fresh machine needs Go 1.26, Node.js 20+ with npm, Java 17+ (for
# DynamoDB Local), and the Go module proxy and the npm registry; `make setup` installs the rest.
#
#   make demo    set up, then run the original demo locally (100 executions, limit 5) and chart it
#   make test    gofmt, go vet, staticcheck, synth + asl-validator, go test -race, the example app
#   make synth   cdk synth into cdk.out/, then one cdk.out/asl/<LogicalId>.asl.json per machine
#   make deploy  cdk deploy (needs AWS credentials)
#   make bench-sidebyside  the emulator's executions per second beside aws-local-stepfunctions
#   make soak    the reliability soak (issues 6, 16), Poll and Callback, with 5 % and 20 % of the replies lost,
#                then the soak package's tests at their large sizes (make test runs them small)

SHELL := bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help

# The pinned Node tooling. Its bin directory goes first on PATH for every recipe, so that jsii
# and the cdk CLI run on the Node 22 it holds (the system's Node 20 is end-of-life and makes jsii
# print a warning banner).
NODE_BIN := $(CURDIR)/.cdk/node_modules/.bin
export PATH := $(NODE_BIN):$(PATH)

CDK := $(NODE_BIN)/cdk
ASL_VALIDATOR := $(NODE_BIN)/asl-validator
CDK_OUT := cdk.out
ASL_OUT := $(CDK_OUT)/asl
# Extra arguments for cdk synth and cdk deploy, e.g. CDK_ARGS='-c limit=10'.
CDK_ARGS ?=
# Extra flags for turnstile simulate, e.g. SIMULATE_ARGS='--limit 3 --seed 7'.
SIMULATE_ARGS ?=
# Extra flags for the soak, e.g. SOAK_ARGS='--seeds 3 --json'.
SOAK_ARGS ?=
# Where the queue soak writes down the segment histories that fail their check.
SOAK_FAILURES ?= soak-failures
# Extra flags for cmd/sidebyside, e.g. SIDEBYSIDE_ARGS='--executions 2000 --runs 3'.
SIDEBYSIDE_ARGS ?=

GO_FILES = $(shell find . -name '*.go' -not -path './.cdk/*' -not -path './$(CDK_OUT)/*' -not -path './.git/*')
TESTDATA_ASL = $(shell find . \( -path ./.cdk -o -path ./$(CDK_OUT) -o -path ./.git \) -prune -o -path '*/testdata/*' -name '*.asl.json' -print | sort)

.PHONY: help setup node-tooling dynamodb-local demo synth deploy test fmt-check vet staticcheck validate-asl go-test example bench bench-scale bench-sidebyside soak clean

help: ## list the commands
	@grep -E '^[a-z-]+:.*## ' $(MAKEFILE_LIST) | awk -F':.*## ' '{printf "  make %-13s %s\n", $$1, $$2}'

setup: node-tooling dynamodb-local ## install the pinned Node tooling, DynamoDB Local and the Go modules
	go mod download
	@echo "setup: Go modules downloaded ($$(go version | cut -d' ' -f3))"

node-tooling: ## install .cdk/node_modules with npm ci, unless already installed from the same lockfile
	@scripts/install-node-tooling.sh

dynamodb-local: ## install AWS's DynamoDB Local (pinned) into .cdk/dynamodb-local, unless already there; needs Java 17
	@go run ./cmd/turnstile setup --dir .cdk/dynamodb-local

demo: setup ## set up, then run the original demo locally: 100 executions through a limit of 5
	go run ./cmd/turnstile simulate $(SIMULATE_ARGS)

# CDK_VALIDATION=true: cdk synth always runs the CloudFormation validator, whatever the caller's
# environment says (tests may turn it off for speed).
synth: node-tooling ## cdk synth into cdk.out/ and extract each state machine's ASL into cdk.out/asl/
	CDK_VALIDATION=true $(CDK) synth --quiet $(CDK_ARGS)
	go run ./internal/aslextract -cdk-out $(CDK_OUT) -out $(ASL_OUT)

deploy: node-tooling ## cdk deploy the demo app (needs AWS credentials)
	$(CDK) deploy $(CDK_ARGS)

test: fmt-check vet staticcheck validate-asl go-test example ## gofmt, go vet, staticcheck, asl-validator on testdata and synthesized ASL, go test -race, the example app

fmt-check: ## fail listing the Go files gofmt would change
	@unformatted="$$(gofmt -l $(GO_FILES))"; \
	if [[ -n "$$unformatted" ]]; then \
		echo "gofmt: these files are not formatted (run gofmt -w on them):"; echo "$$unformatted"; exit 1; \
	fi; echo "gofmt: ok"

# staticcheck, pinned (the module proxy serves 2026.2.2 as v0.8.2), over this module.
STATICCHECK := honnef.co/go/tools/cmd/staticcheck@v0.8.2

staticcheck: ## staticcheck ./... (pinned)
	go run $(STATICCHECK) ./...

vet: ## go vet ./..., in this module and in the example app's
	go vet ./...
	cd examples/perkey && go vet ./...

validate-asl: synth ## asl-validator on every testdata/**/*.asl.json and every synthesized cdk.out/asl/*.asl.json
	@synthesized="$$(ls $(ASL_OUT)/*.asl.json 2>/dev/null || true)"; \
	if [[ -z "$$synthesized" ]]; then echo "validate-asl: synth wrote no $(ASL_OUT)/*.asl.json" >&2; exit 1; fi; \
	args=(); for f in $(TESTDATA_ASL) $$synthesized; do args+=(--json-path "$$f"); done; \
	$(ASL_VALIDATOR) "$${args[@]}"

# -timeout 30m: go test's default of 10 minutes per package cut the end-to-end package short on
# a machine with six CPU-bound processes beside it (every test passed, three times slower).
go-test: ## go test -race -count=1 -timeout 30m ./...
	go test -race -count=1 -timeout 30m ./...

# The README's "Run your own app locally" steps, exactly (a test keeps the two the same): the
# example app, a module of its own, synthesized by the CDK CLI with cdk-nag on and run locally.
example: node-tooling ## synthesize examples/perkey (its own module) with the CDK CLI and cdk-nag, and run it locally
	cd examples/perkey && \
	cdk synth --quiet && \
	go tool turnstile simulate --cdk-out cdk.out --keys acme,globex,initech --executions 60

bench: node-tooling dynamodb-local ## the benchmarks: the demo's figures over 3 seeds, the emulator's throughput (10,000 executions), DynamoDB Local's round trips, beside aws-local-stepfunctions, and the end-to-end tests at their large sizes
	go test -count=1 -timeout 60m ./test/ -args -large
	go test -run '^$$' -bench . -benchtime 3x ./test/
	go test -run '^$$' -bench . ./emulator/ ./emulator/dynamo/ ./emulator/intrinsic/
	go test -run '^$$' -bench . -benchtime 1000x ./emulator/ddblocal/
	$(MAKE) --no-print-directory bench-sidebyside

bench-scale: node-tooling dynamodb-local ## the lock at scale (about an hour): 1,000 and 10,000 executions through limit 5, 10,000 through limit 100, 2,000 through limit 1,000, one lock with 100,000 waiters
	go run ./cmd/turnstile simulate --chart "" --no-progress --executions 1000 --expect-errors Turnstile.AcquireTimeout
	go run ./cmd/turnstile simulate --chart "" --no-progress --executions 10000 --expect-errors Turnstile.AcquireTimeout
	go run ./cmd/turnstile simulate --chart "" --no-progress --executions 10000 --limit 100 --work-time 1s --failure-rate 0
	go run ./cmd/turnstile simulate --chart "" --no-progress --executions 2000 --limit 1000 --work-time 240s
	go test -run '^$$' -bench BenchmarkQueue -benchtime 1x -timeout 2h ./lock -args -waiters 100000

bench-sidebyside: node-tooling dynamodb-local ## the emulator beside aws-local-stepfunctions: the same workloads' executions per second and the ratio
	go run ./cmd/sidebyside $(SIDEBYSIDE_ARGS)

soak: node-tooling dynamodb-local ## the reliability soak, Poll then Callback (queue): 20 seeds × 2,500 pairs with 5 %, then 20 %, of the replies lost; then the soak tests at their large sizes
	go run ./cmd/soak --reply-lost 0.05 --check-timeout 3m $(SOAK_ARGS)
	go run ./cmd/soak --reply-lost 0.20 --check-timeout 3m $(SOAK_ARGS)
	go run ./cmd/soak --strategy callback --reply-lost 0.05 --check-timeout 3m --keep-failing $(SOAK_FAILURES) $(SOAK_ARGS)
	go run ./cmd/soak --strategy callback --reply-lost 0.20 --check-timeout 3m --keep-failing $(SOAK_FAILURES) $(SOAK_ARGS)
	go test -count=1 -timeout 60m ./internal/soak/ -args -large

clean: ## remove cdk.out/
	rm -rf $(CDK_OUT)
