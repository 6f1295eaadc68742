# SPDX-License-Identifier: MIT
# tests/strict.mk - what the strict-mode tests (tests/strict/strict_*.bats) need: the
# filter, perl, and a static Go server (CGO_ENABLED=0) built under build/
# with its build cache there too, by the go the SDK servers use (GO,
# tests/sdk.mk: the machine's if it is new enough, else the pinned toolchain).
TEST_TOOLS += perl:perl
STRICT_GO_BIN = build/strict/strict_go
STRICT_GO_SRC = tests/fixtures/strict_go/main.go tests/fixtures/strict_go/go.mod

strict-go: $(STRICT_GO_BIN)

$(STRICT_GO_BIN): $(STRICT_GO_SRC) | go-toolchain
	@mkdir -p build/strict build/go-cache
	cd tests/fixtures/strict_go && \
	CGO_ENABLED=0 GOTOOLCHAIN=local GOPROXY=off GOFLAGS=-buildvcs=false \
		GOCACHE=$(CURDIR)/build/go-cache GOPATH=$(CURDIR)/build/gopath \
		$(GO) build -trimpath -o $(CURDIR)/$@ .

TEST_DEPS += $(FILTER) strict-go

.PHONY: strict-go

# `make lint` also runs cppcheck and clang-tidy on the filter (same flags and
# check set as the library's; gcc and clang builds: `make all check-clang`).
lint: lint-strict
lint-strict: | lint-deps
	cppcheck $(CPPCHECK_FLAGS) $(FILTER_SRC)
	@for f in $(FILTER_SRC); do \
		echo "clang-tidy $$f"; \
		clang-tidy --quiet --checks='$(TIDY_CHECKS)' --warnings-as-errors='*' $$f -- -D_GNU_SOURCE || exit 1; \
	done

.PHONY: lint-strict
