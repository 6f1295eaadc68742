# SPDX-License-Identifier: MIT
# tests/lint.mk - static analysis: `make lint` (tests/lint/lint.bats runs it in `make test`).
#
#   lint-cppcheck    cppcheck on the library (shim.c and lib/*.c), and on
#                    check/*.c + common/inspect.c (warning, style, performance, portability)
#   lint-tidy        clang-tidy on the library (bugprone, cert, clang-analyzer,
#                    misc, performance, portability), every finding an error
#   lint-shell       shellcheck on the wrapper and the test helper shell files
#   lint-build       the library (and the fuzz programs) built by gcc and by clang with
#                    -Wall -Wextra -Werror, plus the fixtures compiled by clang
#                    (strict_late.c twice: its library half too)
#
# Every suppression below says why it is there.  Tools missing: lint-deps
# installs them with apt-get (cppcheck, clang-tidy, clang, shellcheck).

LINT_CFLAGS = -O2 -g -Wall -Wextra -Werror -D_GNU_SOURCE $(VERSION_DEF)
LINT_OUT    = tests/bin/lint

# cppcheck suppressions:
#  unusedStructMember   struct spawn_action (lib/internal.h) and struct io_lock
#                       (lib/glibc.c) mirror the layout of glibc's private
#                       posix_spawn file actions and FILE lock; their members
#                       exist to give them their size and offsets, not to be read.
#  knownConditionTrueFalse  in close_range (lib/fds.c), `r == 0` after
#                       r = REAL(close_range)(...), and a loop bound after a
#                       REAL(pread) in shim.c: cppcheck cannot see through the
#                       REAL() statement expression (a lazily resolved dlsym
#                       pointer) and takes r as still 0.
#  ctunullpointer       feed(NULL, 0, how) (lib/reads.c) means end of input and
#                       takes the n == 0 branch before p is used; cppcheck's
#                       whole-file analysis follows the NULL into
#                       scan_newline()/sg_detect_feed() without relating p to n.
#  variableScope        the library declares the NUM() macro's buffer and saved values
#                       at the top of a function on purpose (NUM()'s, and NUM_IN()'s
#                       for a second number in the same line).
CPPCHECK_FLAGS = --enable=warning,style,performance,portability --std=c11 \
	--error-exitcode=1 --inline-suppr -q \
	--template='{file}:{line}: {severity}: {message} [{id}]' \
	-D_GNU_SOURCE -D__linux__ -D__x86_64__ -D__GNUC__=12 $(VERSION_DEF) \
	--suppress=missingIncludeSystem \
	--suppress=unusedStructMember:lib/internal.h \
	--suppress=unusedStructMember:lib/glibc.c \
	--suppress=knownConditionTrueFalse:shim.c \
	--suppress=knownConditionTrueFalse:lib/fds.c \
	--suppress=variableScope:shim.c \
	--suppress='variableScope:lib/*.c' \
	--suppress=ctunullpointer:lib/reads.c

# clang-tidy check set.  Disabled, with the reason:
#  bugprone-easily-swappable-parameters  the interposed functions have libc's
#                       signatures; they cannot be changed.
#  bugprone-reserved-identifier, cert-dcl37-c, cert-dcl51-cpp  interposing glibc
#                       entry points (__read_chk, __uflow, __getdelim,
#                       __isoc99_scanf, _IO_getc, ...) means declaring them under
#                       their reserved names.
#  clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling
#                       asks for C11 Annex K memcpy_s/memset_s, which glibc does
#                       not provide.
#  bugprone-macro-parentheses  the flagged macros take a function name that is
#                       token-pasted (real_##f) or an argument list `(a, b)`
#                       appended to a call; parentheses would not compile.
#  performance-no-int-to-ptr  dl_iterate_phdr hands out segment addresses as
#                       integers (dlpi_addr + p_vaddr); casting them is how they
#                       are used.
TIDY_CHECKS := -*,bugprone-*,cert-*,clang-analyzer-*,misc-*,performance-*,portability-*
TIDY_CHECKS := $(TIDY_CHECKS),-bugprone-easily-swappable-parameters
TIDY_CHECKS := $(TIDY_CHECKS),-bugprone-reserved-identifier,-cert-dcl37-c,-cert-dcl51-cpp
TIDY_CHECKS := $(TIDY_CHECKS),-clang-analyzer-security.insecureAPI.DeprecatedOrUnsafeBufferHandling
TIDY_CHECKS := $(TIDY_CHECKS),-bugprone-macro-parentheses
TIDY_CHECKS := $(TIDY_CHECKS),-performance-no-int-to-ptr

# Shell files: the wrapper, .ci/run and pkg/*.sh at full strength (style included); the
# test helpers at warning level (style nits such as "useless cat" are not
# defects in test code) and without SC2034 ("appears unused"): they are
# sourced by the bats files, and the variables they set are the interface
# those files use.
# Fixture scripts named *.sh are run with sh (some have no shebang): checked
# as POSIX sh.
LINT_SH_MAIN    = stdiogate .ci/run pkg/npm-launcher.sh pkg/release_root.sh tests/debian_root.sh
LINT_SH_HELPERS = $(wildcard tests/*.bash tests/fixtures/*.bash tests/*.sh)
LINT_SH_POSIX   = $(wildcard tests/fixtures/*.sh tests/fixtures/doctor/*.sh)

lint: lint-cppcheck lint-tidy lint-shell lint-bats lint-build

# Installed before the test files start: with TEST_JOBS lint.bats and
# strict_lint.bats run side by side, and two apt-get runs at once fight over
# dpkg's lock.
TEST_DEPS += lint-deps

lint-deps:
	@tests/need.sh lint cppcheck:cppcheck clang-tidy:clang-tidy clang:clang shellcheck:shellcheck

lint-cppcheck: | lint-deps
	cppcheck $(CPPCHECK_FLAGS) $(LIB_SRC)
	cppcheck $(CPPCHECK_FLAGS) $(CHECK_SRC)

# One file a run: clang-tidy 14 given several files carries the analyzer's
# va_list model from one to the next (seen: va_arg on "an uninitialized
# va_list" in lib/exec.c's execle after shim.c, none with lib/exec.c alone).
lint-tidy: | lint-deps
	@for f in $(LIB_SRC); do \
		echo "clang-tidy $$f"; \
		clang-tidy --quiet --checks='$(TIDY_CHECKS)' --warnings-as-errors='*' $$f -- \
			-D_GNU_SOURCE -fPIC $(VERSION_DEF) || exit 1; \
	done

lint-shell: | lint-deps
	shellcheck -x $(LINT_SH_MAIN)
	shellcheck -S warning -e SC2034 $(LINT_SH_HELPERS)
	$(if $(LINT_SH_POSIX),shellcheck -S warning -e SC2034 -s sh $(LINT_SH_POSIX))

# A bare `! COMMAND` line in a test asserts nothing: bash's errexit ignores a
# negated command, so the test goes on whatever COMMAND did (fifteen such
# lines were found, each now `! COMMAND || false`).  Lines in a condition (an
# `||` list, an `if ... then`, a continued line) are left alone.
LINT_BATS = $(wildcard tests/*/*.bats tests/*.bash)
lint-bats:
	@if grep -nE '^[[:space:]]*! ' $(LINT_BATS) | grep -vE '[|][|]|then$$|[\\]$$'; then \
		echo "lint-bats: the lines above negate with a bare !, which errexit ignores: they cannot fail a test (add || false)" >&2; \
		exit 1; \
	fi

lint-build: | lint-deps
	@mkdir -p $(LINT_OUT)
	gcc   $(LINT_CFLAGS) -fPIC -shared -fvisibility=hidden -o $(LINT_OUT)/gcc-lib.so $(LIB_SRC) -ldl
	clang $(LINT_CFLAGS) -fPIC -shared -fvisibility=hidden -o $(LINT_OUT)/clang-lib.so $(LIB_SRC) -ldl
	gcc   $(LINT_CFLAGS) -o $(LINT_OUT)/gcc-check $(CHECK_SRC)
	clang $(LINT_CFLAGS) -o $(LINT_OUT)/clang-check $(CHECK_SRC)
	gcc   $(LINT_CFLAGS) -o $(LINT_OUT)/gcc-diff protocol/diff.c protocol/reference.c
	clang $(LINT_CFLAGS) -o $(LINT_OUT)/clang-diff protocol/diff.c protocol/reference.c
	@for f in tests/fixtures/*.c; do \
		case $$f in *_static.c) continue;; esac; \
		echo "clang $(LINT_CFLAGS) $$f"; \
		clang $(LINT_CFLAGS) -c -o $(LINT_OUT)/fixture.o $$f || exit 1; \
	done
	clang $(LINT_CFLAGS) -fPIC -shared -DSTRICT_LATE_LIBRARY -o $(LINT_OUT)/libstrict_late.so tests/fixtures/strict_late.c
	@rm -rf $(LINT_OUT)

.PHONY: lint lint-deps lint-cppcheck lint-tidy lint-shell lint-bats lint-build
