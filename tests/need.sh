#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/need.sh - install the Debian packages that bring what a make target
# needs, when it is missing (make test-tools, make check, lint, the SDK
# tool chains).
#
# usage: tests/need.sh WHAT NEED:PACKAGE...
#   WHAT     the make target that needs them, named in the messages
#   NEED     COMMAND         the command is in PATH
#            COMMAND>=MIN    ... and the first version number that
#                            `COMMAND --version` prints is MIN or later
#            'SHELL TEST'    (has a space) the test succeeds: python3 -m ensurepip --version
#   PACKAGE  the Debian package that brings it
# Nothing is done when every NEED is met.  Otherwise, as root, the packages
# of the unmet ones are installed with apt-get in one go, a line on stderr
# says which and why, and each NEED is checked again; the package lists are
# fetched (apt-get update) only if that fails or leaves one unmet.  Not root, or no apt-get: a
# message names what is missing and the command that installs it, and
# nothing is installed.
# Exit status: 0 when every NEED is met in the end, 1 otherwise.
set -u

what=$1
shift

# version_of COMMAND: the first version number its --version prints.
version_of() {
    "$1" --version 2>&1 | grep -o -m 1 '[0-9][0-9]*\.[0-9][0-9.]*' | head -n 1
}

# unmet NEED: prints why NEED is not met; false when it is met.
unmet() {
    case $1 in
    *' '*) sh -c "$1" >/dev/null 2>&1 && return 1; echo "($1 fails)" ;;
    *'>='*)
        command -v "${1%>=*}" >/dev/null 2>&1 || { echo "${1%>=*}"; return 0; }
        v=$(version_of "${1%>=*}")
        [ -n "$v" ] && [ "$(printf '%s\n' "${1#*>=}" "$v" | sort -V | head -n 1)" = "${1#*>=}" ] &&
            return 1
        echo "${1%>=*} ${1#*>=} or later (${v:-no version}: $(command -v "${1%>=*}"))" ;;
    *) command -v "$1" >/dev/null 2>&1 && return 1; echo "$1" ;;
    esac
}

# check NEED:PACKAGE...: sets missing (what is missing, comma-separated) and
# packages (theirs, each once).
check() {
    missing='' packages=''
    for need; do
        why=$(unmet "${need%:*}") || continue
        missing="${missing:+$missing, }$why"
        case " $packages " in *" ${need##*:} "*) ;; *) packages="$packages ${need##*:}" ;; esac
    done
}

check "$@"
[ -n "$missing" ] || exit 0
if ! command -v apt-get >/dev/null 2>&1; then
    echo "make $what: missing: $missing; install them with your package manager (Debian packages:$packages)" >&2
    exit 1
fi
if [ "$(id -u)" -ne 0 ]; then
    echo "make $what: missing: $missing; installing them needs root: sudo apt-get install -y$packages" >&2
    exit 1
fi
echo "make $what: installing$packages with apt-get (missing: $missing)" >&2
# shellcheck disable=SC2086
apt_install() { DEBIAN_FRONTEND=noninteractive apt-get install -y -q $packages; }
# Package lists never fetched, or old: a package unknown, or known only in a
# version too old.  Fetched once, then installed again.
if apt_install; then check "$@"; fi
if [ -n "$missing" ]; then
    apt-get update -q && apt_install
    check "$@"
fi
[ -z "$missing" ] && exit 0
echo "make $what: still missing after apt-get install$packages: $missing" >&2
exit 1
