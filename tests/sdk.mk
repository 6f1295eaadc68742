# SPDX-License-Identifier: MIT
# tests/sdk.mk - small MCP servers written against each official SDK, for tests/real/real_sdk.bats
# (issue 15). Sources in tests/sdk/; everything fetched or built lands in build/sdk (gitignored),
# so a second `make test` only checks time stamps.
#
#   sdk-python  a venv with mcp 2.3.0 (+ pygame for its import notice) and uv 0.13.9, from a
#               wheelhouse filled by pip with --require-hashes (tests/sdk/python/requirements*.txt);
#               a copy of the server project that `uvx --from` and `uv run` are pointed at, its uv
#               cache warmed so that the tests run uv with --offline --no-index
#   sdk-go      github.com/modelcontextprotocol/go-sdk (go.mod/go.sum), built static
#               (CGO_ENABLED=0) and dynamic (cgo)
#   sdk-rust    rmcp (Cargo.lock), and tokio-writer beside it (tests/guard/guard_threads.bats), release build (unoptimised, opt-level 0: half the build time), stdio server features only
#   sdk-java    io.modelcontextprotocol.sdk:mcp (pom.xml, exact versions, checksums enforced):
#               the jars copied by the dependency plugin, the server compiled with javac
#   test-sdk    the above, then bats tests/real/real_sdk.bats
#
# Tool chains (sdk-toolchains; each is the machine's own when it is new enough, else installed by
# these rules, which say what they install):
#   go      1.25 or later for the go-sdk: the machine's go (PATH, /usr/local/go), else the pinned
#           toolchain below: the Go module golang.org/toolchain (what GOTOOLCHAIN fetches), taken
#           from the Go module proxy by whatever go the machine has (Debian 12's golang-go 1.19 on a
#           fresh one), checked against its SHA-256 and unpacked once under build/toolchains
#   rustc   1.88 or later for rmcp: Debian 12's rustc-web/cargo-web (1.96, in bookworm-security)
#   javac   17 or later and mvn: openjdk-17-jdk-headless, maven
#   venv    python3 -m venv: python3-venv

SDK_OUT    := $(abspath build/sdk)
SDK_SRC    := tests/sdk
SDK_PY     := $(SDK_OUT)/py
SDK_PYTHON ?= python3
SDK_UVFLAGS = --no-config --offline --no-index --find-links $(SDK_PY)/wheels \
              --cache-dir $(SDK_PY)/uv-cache --python $(SDK_PY)/venv/bin/python --no-python-downloads
SDK_GOENV   = GOMODCACHE=$(SDK_OUT)/gomod GOCACHE=$(SDK_OUT)/gocache GOFLAGS=-mod=readonly \
              GOTOOLCHAIN=local
SDK_CARGO   = CARGO_HOME=$(SDK_OUT)/cargo CARGO_TARGET_DIR=$(SDK_OUT)/rust-target cargo
SDK_MVN     = mvn -B -q -Dstyle.color=never --strict-checksums -Dmaven.repo.local=$(SDK_OUT)/m2

SDK_PY_SRC  := $(SDK_SRC)/python/pyproject.toml $(wildcard $(SDK_SRC)/python/noisy_mcp/*.py)
SDK_PY_REQ  := $(SDK_SRC)/python/requirements.txt $(SDK_SRC)/python/requirements-tools.txt

sdk-deps: sdk-python sdk-go sdk-rust sdk-java

GO_MIN      = 1.25
GO_PIN      = 1.27.3
GO_ARCH    := $(patsubst x86_64,amd64,$(patsubst aarch64,arm64,$(shell uname -m)))
GO_MODULE   = golang.org/toolchain@v0.0.1-go$(GO_PIN).linux-$(GO_ARCH)
# sha256sum of the module's zip (the go command checks its h1: hash against the checksum database too)
GO_SHA256_amd64 = af4c06478303fdd1bfb335fab86c7ccb9b12e529044a946a16a1c4bcc779f8d7
GO_SHA256_arm64 = 0ec0774cad42ecf4df82691146ee0b10c303ea594f163acb1737baedd5cc2835
TOOLCHAINS := $(abspath build/toolchains)
GO_HOME     = $(TOOLCHAINS)/go$(GO_PIN).linux-$(GO_ARCH)
# The go that builds the SDK and strict-mode servers: the machine's if it is GO_MIN or later, else
# the pinned one (looked up once, when a recipe first uses it).
GO = $(eval GO := $(shell for go in "$$(command -v go)" /usr/local/go/bin/go; do \
	v=$$(GOTOOLCHAIN=local "$$go" env GOVERSION 2>/dev/null) || continue; \
	[ "$$(printf '%s\n' go$(GO_MIN) "$$v" | sort -V | head -n 1)" = go$(GO_MIN) ] && { echo "$$go"; exit; }; \
	done; echo $(GO_HOME)/bin/go))$(GO)

sdk-toolchains: go-toolchain
	@tests/need.sh sdk 'rustc>=1.88:rustc-web' 'cargo>=1.88:cargo-web' \
		'javac>=17:openjdk-17-jdk-headless' mvn:maven '$(SDK_PYTHON) -m ensurepip --version:python3-venv'

go-toolchain: $(GO)
$(GO_HOME)/bin/go:
	@tests/need.sh sdk go:golang-go python3:python3 update-ca-certificates:ca-certificates
	@echo "make: Go $(GO_MIN) or later not found: fetching the Go module $(GO_MODULE) (about 80 MB)"
	rm -rf $(GO_HOME) $(GO_HOME).tmp $(TOOLCHAINS)/gomod && mkdir -p $(GO_HOME).tmp
	cd $(TOOLCHAINS) && GOTOOLCHAIN=local GOFLAGS=-modcacherw GOMODCACHE=$(TOOLCHAINS)/gomod \
		go mod download $(GO_MODULE)
	echo '$(GO_SHA256_$(GO_ARCH))  $(TOOLCHAINS)/gomod/cache/download/golang.org/toolchain/@v/$(GO_MODULE:golang.org/toolchain@%=%).zip' | \
		sha256sum -c --quiet
	python3 -m zipfile -e $(TOOLCHAINS)/gomod/cache/download/golang.org/toolchain/@v/$(GO_MODULE:golang.org/toolchain@%=%).zip $(GO_HOME).tmp
	chmod +x $(GO_HOME).tmp/$(GO_MODULE)/bin/* $(GO_HOME).tmp/$(GO_MODULE)/pkg/tool/*/*
	mv $(GO_HOME).tmp/$(GO_MODULE) $(GO_HOME) && rm -rf $(GO_HOME).tmp $(TOOLCHAINS)/gomod
	GOTOOLCHAIN=local $@ version

sdk-python: $(SDK_PY)/.stamp
sdk-go: $(SDK_OUT)/bin/noisy-go-static $(SDK_OUT)/bin/noisy-go-cgo
sdk-rust: $(SDK_OUT)/bin/noisy-rmcp
sdk-java: $(SDK_OUT)/java/.stamp

# The wheelhouse holds exactly the hashed pins, so uv (which is run with --no-index) can only
# install those. The venv serves `python -m`; the project copy is what uv locks and syncs, so
# that nothing is written into tests/. Its lock covers this machine's platform and interpreter
# only (the wheelhouse holds no other wheels).
$(SDK_PY)/.stamp: $(SDK_PY_REQ) $(SDK_PY_SRC) tests/sdk.mk | sdk-toolchains
	rm -rf $(SDK_PY) && mkdir -p $(SDK_PY)
	$(SDK_PYTHON) -m venv $(SDK_PY)/venv
	$(SDK_PY)/venv/bin/pip download -q --require-hashes --only-binary=:all: -d $(SDK_PY)/wheels \
		$(SDK_PY_REQ:%=-r %)
	$(SDK_PY)/venv/bin/pip install -q --no-index --find-links $(SDK_PY)/wheels --require-hashes \
		$(SDK_PY_REQ:%=-r %)
	mkdir -p $(SDK_PY)/project/noisy_mcp
	cp $(SDK_SRC)/python/pyproject.toml $(SDK_PY)/project/
	$(SDK_PY)/venv/bin/python -c 'import platform; print("\n[tool.uv]\nenvironments = " \
		"[\"sys_platform == \x27linux\x27 and python_full_version == \x27%s\x27\"]" \
		% platform.python_version())' >>$(SDK_PY)/project/pyproject.toml
	cp $(SDK_SRC)/python/noisy_mcp/*.py $(SDK_PY)/project/noisy_mcp/
	cd $(SDK_PY)/project && $(SDK_PY)/venv/bin/uv sync -q $(SDK_UVFLAGS)
	$(SDK_PY)/venv/bin/uvx $(SDK_UVFLAGS) --from $(SDK_PY)/project noisy-mcp-python \
		</dev/null >/dev/null
	touch $@

$(SDK_OUT)/bin/noisy-go-static: $(SDK_SRC)/go/main.go $(SDK_SRC)/go/go.mod $(SDK_SRC)/go/go.sum | go-toolchain
	$(SDK_GOENV) CGO_ENABLED=0 $(GO) build -C $(SDK_SRC)/go -o $@ .

$(SDK_OUT)/bin/noisy-go-cgo: $(SDK_SRC)/go/main.go $(SDK_SRC)/go/go.mod $(SDK_SRC)/go/go.sum | go-toolchain
	$(SDK_GOENV) CGO_ENABLED=1 $(GO) build -C $(SDK_SRC)/go -o $@ .

$(SDK_OUT)/bin/noisy-rmcp: $(SDK_SRC)/rust/src/main.rs $(SDK_SRC)/rust/src/bin/tokio-writer.rs \
		$(SDK_SRC)/rust/Cargo.toml $(SDK_SRC)/rust/Cargo.lock | sdk-toolchains
	$(SDK_CARGO) build --release --locked -j2 --manifest-path $(SDK_SRC)/rust/Cargo.toml
	mkdir -p $(@D) && cp $(SDK_OUT)/rust-target/release/tokio-writer $(@D)/
	cp $(SDK_OUT)/rust-target/release/noisy-rmcp $@

$(SDK_OUT)/java/.stamp: $(SDK_SRC)/java/pom.xml $(wildcard $(SDK_SRC)/java/src/main/java/noisy/*.java) | sdk-toolchains
	rm -rf $(SDK_OUT)/java && mkdir -p $(SDK_OUT)/java/classes
	$(SDK_MVN) -f $(SDK_SRC)/java/pom.xml dependency:copy-dependencies \
		-DoutputDirectory=$(SDK_OUT)/java/lib
	javac -Werror -Xlint:all -d $(SDK_OUT)/java/classes -cp '$(SDK_OUT)/java/lib/*' \
		$(SDK_SRC)/java/src/main/java/noisy/*.java
	touch $@

test-sdk: test-tools all npm-deps sdk-deps
	bats tests/real/real_sdk.bats

TEST_DEPS += sdk-deps

.PHONY: sdk-toolchains go-toolchain sdk-deps sdk-python sdk-go sdk-rust sdk-java test-sdk
