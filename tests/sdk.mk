# SPDX-License-Identifier: MIT
# tests/sdk.mk - small MCP servers written against each official SDK, for tests/real_sdk.bats
# (issue 15). Sources in tests/sdk/; everything fetched or built lands in build/sdk (gitignored),
# so a second `make test` only checks time stamps.
#
#   sdk-python  a venv with mcp 2.3.0 (+ pygame for its import notice) and uv 0.13.9, from a
#               wheelhouse filled by pip with --require-hashes (tests/sdk/python/requirements*.txt);
#               a copy of the server project that `uvx --from` and `uv run` are pointed at, its uv
#               cache warmed so that the tests run uv with --offline --no-index
#   sdk-go      github.com/modelcontextprotocol/go-sdk (go.mod/go.sum), built static
#               (CGO_ENABLED=0) and dynamic (cgo)
#   sdk-rust    rmcp (Cargo.lock), release build, stdio server features only
#   sdk-java    io.modelcontextprotocol.sdk:mcp (pom.xml, exact versions, checksums enforced):
#               the jars copied by the dependency plugin, the server compiled with javac
#   test-sdk    the above, then bats tests/real_sdk.bats
#
# Tool chains: go, cargo, javac (17+) and mvn come with the machine (the project's machines and CI
# have them); Debian's go and cargo are too old for these SDKs (go 1.25, rust 1.88), so they are
# not in TEST_TOOLS. python3 is there already.

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

sdk-python: $(SDK_PY)/.stamp
sdk-go: $(SDK_OUT)/bin/noisy-go-static $(SDK_OUT)/bin/noisy-go-cgo
sdk-rust: $(SDK_OUT)/bin/noisy-rmcp
sdk-java: $(SDK_OUT)/java/.stamp

# The wheelhouse holds exactly the hashed pins, so uv (which is run with --no-index) can only
# install those. The venv serves `python -m`; the project copy is what uv locks and syncs, so
# that nothing is written into tests/. Its lock covers this machine's platform and interpreter
# only (the wheelhouse holds no other wheels).
$(SDK_PY)/.stamp: $(SDK_PY_REQ) $(SDK_PY_SRC) tests/sdk.mk
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

$(SDK_OUT)/bin/noisy-go-static: $(SDK_SRC)/go/main.go $(SDK_SRC)/go/go.mod $(SDK_SRC)/go/go.sum
	$(SDK_GOENV) CGO_ENABLED=0 go build -C $(SDK_SRC)/go -o $@ .

$(SDK_OUT)/bin/noisy-go-cgo: $(SDK_SRC)/go/main.go $(SDK_SRC)/go/go.mod $(SDK_SRC)/go/go.sum
	$(SDK_GOENV) CGO_ENABLED=1 go build -C $(SDK_SRC)/go -o $@ .

$(SDK_OUT)/bin/noisy-rmcp: $(SDK_SRC)/rust/src/main.rs $(SDK_SRC)/rust/Cargo.toml $(SDK_SRC)/rust/Cargo.lock
	$(SDK_CARGO) build --release --locked -j2 --manifest-path $(SDK_SRC)/rust/Cargo.toml
	mkdir -p $(@D) && cp $(SDK_OUT)/rust-target/release/noisy-rmcp $@

$(SDK_OUT)/java/.stamp: $(SDK_SRC)/java/pom.xml $(wildcard $(SDK_SRC)/java/src/main/java/noisy/*.java)
	rm -rf $(SDK_OUT)/java && mkdir -p $(SDK_OUT)/java/classes
	$(SDK_MVN) -f $(SDK_SRC)/java/pom.xml dependency:copy-dependencies \
		-DoutputDirectory=$(SDK_OUT)/java/lib
	javac -Werror -Xlint:all -d $(SDK_OUT)/java/classes -cp '$(SDK_OUT)/java/lib/*' \
		$(SDK_SRC)/java/src/main/java/noisy/*.java
	touch $@

test-sdk: test-tools all npm-deps sdk-deps
	bats tests/real_sdk.bats

TEST_DEPS += sdk-deps

.PHONY: sdk-deps sdk-python sdk-go sdk-rust sdk-java test-sdk
