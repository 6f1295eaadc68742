#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/glibc_root.sh - run the read-path tests on another glibc, in a Debian
# root made by debootstrap (make test-glibc-new, make test-glibc-old).
#
# usage: tests/glibc_root.sh SUITE DIR BATS-FILE...
#   SUITE      a Debian suite: trixie (glibc 2.41), bullseye (glibc 2.31)
#   DIR        where the root is kept (DIR/root, made once and reused)
#   BATS-FILE  test files, relative to the source tree
# The source tree (git ls-files) is copied to DIR/root/src; the library and
# fixtures are built there by the root's own compiler, and the test files run
# there, under chroot in a private mount namespace (/proc and /dev bound in).
# A fixture that does not build on that glibc is reported, and only the
# tests that use it fail.
# The mirror is the first non-security one in this machine's apt sources,
# unless MIRROR is set.  Needs root.  Exit status: that of bats (1 if the
# root cannot be made, 2 on usage errors).
set -eu

[ $# -ge 3 ] || { sed -n '2,/^set -eu/p' "$0" | sed '$d' >&2; exit 2; }
suite=$1 dir=$2
shift 2
src=$(cd "$(dirname "$0")/.." && pwd)
packages=gcc,g++,make,bats,python3,binutils,libc6-dev

# shellcheck source=tests/debian_root.sh
. "$src/tests/debian_root.sh"
debian_root glibc_root.sh "$suite" "$dir" "$packages"

rm -rf "$dir/root/src"
mkdir -p "$dir/root/src"
(cd "$src" && git ls-files -z -co --exclude-standard | grep -zv '^build/' | tar --null -T - -c) |
    tar -x -C "$dir/root/src"

# shellcheck disable=SC2016
exec unshare --mount --propagation private sh -c '
    root=$1; shift
    mount -t proc proc "$root/proc"
    mount --rbind /dev "$root/dev"
    exec chroot "$root" /bin/sh -c "
        cd /src && ldd --version | head -n 1 &&
        make -s all &&
        { make -s -k fixtures || echo \"glibc_root.sh: fixtures above do not build on this glibc\" >&2; } &&
        echo \"libstdiogate.so needs: \$(objdump -T libstdiogate.so | grep -o \"GLIBC_[0-9.]*\" | sort -uV | tail -n 1)\" &&
        bats \"\$@\"" sh "$@"
' sh "$dir/root" "$@"
