# SPDX-License-Identifier: MIT
# packaging.mk - what a release ships beside the program, and the targets
# around it (included by the Makefile):
#
#   stdiogate.1     the man page, from stdiogate.1.in (version and date filled in)
#   install         also installs the man page and the bash completion
#   make dist       stdiogate-VERSION.tar.gz: the tracked files (git ls-files)
#   make deb        the Debian package (build/deb/), lintian, tests/package/deb.bats
#   make check      a fast subset of the tests for the edit-build-test loop
#   make clean      also removes what the tests, fuzzing, benchmarks and packaging made

MANDIR      ?= $(PREFIX)/share/man/man1
datadir     ?= $(PREFIX)/share
BASHCOMPDIR ?= $(datadir)/bash-completion/completions
# The date of this version's entry in CHANGELOG.md ("## 0.1.0 - 2026-12-01").
RELEASE_DATE := $(shell sed -n 's/^## $(VERSION) - //p' CHANGELOG.md)
DIST        = stdiogate-$(VERSION)
DEB_DIR     = build/deb

all: stdiogate.1

stdiogate.1: stdiogate.1.in stdiogate CHANGELOG.md
	sed -e 's/@VERSION@/$(VERSION)/g' -e 's/@DATE@/$(RELEASE_DATE)/g' stdiogate.1.in >$@

install: install-docs
install-docs: install-check stdiogate.1
	install -d "$(DESTDIR)$(MANDIR)" "$(DESTDIR)$(BASHCOMPDIR)"
	install -m 644 stdiogate.1 "$(DESTDIR)$(MANDIR)/stdiogate.1"
	install -m 644 completion/stdiogate "$(DESTDIR)$(BASHCOMPDIR)/stdiogate"

uninstall: uninstall-docs
uninstall-docs:
	rm -f "$(DESTDIR)$(MANDIR)/stdiogate.1" "$(DESTDIR)$(BASHCOMPDIR)/stdiogate"

# The tracked files, owned by root, dated by the last commit, in name order,
# gzip storing no time: the same tree gives the same tarball.
dist:
	git ls-files -z | tar --null -T - --sort=name --owner=0 --group=0 --numeric-owner \
		--mtime=@$$(git log -1 --format=%ct) --transform 's|^|$(DIST)/|' -cf - | gzip -n -9 >$(DIST).tar.gz
	@echo "$(DIST).tar.gz"

# Built from the release tarball in build/deb, so that the source tree stays clean.
DEB_TOOLS = dpkg-buildpackage:dpkg-dev dh:debhelper lintian:lintian
deb: dist examples | test-tools
	@for tool in $(DEB_TOOLS); do \
		command -v "$${tool%%:*}" >/dev/null && continue; \
		apt-get install -y "$${tool#*:}" || \
			{ apt-get update && apt-get install -y "$${tool#*:}"; } || exit 1; \
	done
	rm -rf $(DEB_DIR) && mkdir -p $(DEB_DIR)
	tar -xzf $(DIST).tar.gz -C $(DEB_DIR)
	cd $(DEB_DIR)/$(DIST) && dpkg-buildpackage -us -uc -b
	lintian --fail-on error,warning --display-info $(DEB_DIR)/*.changes
	DEB_DIR=$(CURDIR)/$(DEB_DIR) bats tests/package/deb.bats

# The wrapper, the gate's read paths and junk kinds, diagnostics, exec and spawn,
# end of input: 129 tests, no npm, no fuzzer; 19 s on 2 cores, one file per CPU
# (CHECK_JOBS=1: one by one).  It installs only what these files and the
# fixtures use (CHECK_TOOLS: shellcheck for wrapper.bats, node for one test of
# tree_eof.bats, g++ for the C++ fixture), not the whole of TEST_TOOLS.
CHECK_TESTS ?= wrapper core_junk core_read_paths core_diagnostics tree_exec_spawn tree_eof
CHECK_JOBS ?= $(CPUS)
CHECK_TOOLS = bats:bats python3:python3 parallel:parallel shellcheck:shellcheck node:nodejs g++:g++
check-tools:
	@tests/need.sh check $(CHECK_TOOLS)
check: check-tools all fixtures examples
	bats $(call bats_jobs,$(CHECK_JOBS)) $(CHECK_TESTS:%=tests/%.bats)

clean: clean-more
clean-more:
	rm -rf build protocol/bin protocol/out protocol/corpus protocol/artifacts bench/bin bench/out \
		tests/node_modules stdiogate.1 stdiogate-*.tar.gz
	rm -rf debian/.debhelper debian/stdiogate debian/files debian/debhelper-build-stamp \
		debian/*.debhelper.log debian/*.substvars
	find . -name __pycache__ -type d -prune -exec rm -rf {} +

.PHONY: install-docs uninstall-docs dist deb check-tools check clean-more
