# SPDX-License-Identifier: MIT
# tests/real.mk - real third-party MCP servers from PyPI, for tests/real/real_servers.bats (the npm ones
# are pinned in tests/package-lock.json: tests/npm.mk). Everything fetched lands in build/real
# (gitignored), so a second `make test` only checks time stamps.
#
#   real-python  a venv with mcp-python-interpreter 1.2.3, whose tool run_python_code runs code in
#                the server's own process (a child of that code writes on the server's stdout),
#                from a wheelhouse filled by pip with --require-hashes (tests/real/requirements.txt:
#                every package pinned with its hashes, mcp 1.x)
#
# Tool chain: python3 -m venv (python3-venv on Debian), installed by tests/need.sh when missing.

REAL_OUT    := $(abspath build/real)
REAL_PY     := $(REAL_OUT)/py
REAL_PYTHON ?= python3
REAL_PY_REQ := tests/real/requirements.txt
# No cache outside build/ (the wheelhouse is the cache), no look-up of pip's own version.
REAL_PIP     = $(REAL_PY)/venv/bin/pip -q --no-cache-dir --disable-pip-version-check

real-python: $(REAL_PY)/.stamp

real-tools:
	@tests/need.sh real-python python3:python3 '$(REAL_PYTHON) -m ensurepip --version:python3-venv'

# The wheelhouse holds exactly the hashed pins: the install, with --no-index, can take only those.
# The server's --help imports it first (mcp.server.fastmcp: mcp 2 fails there).
$(REAL_PY)/.stamp: $(REAL_PY_REQ) tests/real.mk | real-tools
	rm -rf $(REAL_PY) && mkdir -p $(REAL_PY)
	$(REAL_PYTHON) -m venv $(REAL_PY)/venv
	$(REAL_PIP) download --require-hashes --only-binary=:all: -d $(REAL_PY)/wheels -r $(REAL_PY_REQ)
	$(REAL_PIP) install --no-index --find-links $(REAL_PY)/wheels --require-hashes -r $(REAL_PY_REQ)
	$(REAL_PY)/venv/bin/mcp-python-interpreter --help >/dev/null
	touch $@

TEST_DEPS += real-python

.PHONY: real-python real-tools
