# SPDX-License-Identifier: MIT
# Real MCP clients and servers for tests/real/real_*.bats (issue 4), pinned in tests/package-lock.json.
# `npm ci` runs when tests/node_modules is missing or older than the lockfile; npm rewrites
# tests/node_modules/.package-lock.json on every install, so it serves as the stamp.
NPM ?= npm
# A fresh Debian machine may have neither (its nodejs is 18, which these packages accept).
TEST_TOOLS += node:nodejs npm:npm

npm-deps: tests/node_modules/.package-lock.json

tests/node_modules/.package-lock.json: tests/package-lock.json tests/package.json
	cd tests && $(NPM) ci --no-audit --no-fund
	touch $@

TEST_DEPS += npm-deps

.PHONY: npm-deps
