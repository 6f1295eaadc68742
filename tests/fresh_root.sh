#!/bin/sh
# SPDX-License-Identifier: MIT
# tests/fresh_root.sh - run make targets in a clean clone on a fresh Debian 12
# (make test-fresh): what the README promises to a machine with only make,
# gcc and git.
#
# usage: tests/fresh_root.sh DIR [COMMAND]...
#   DIR     where the roots are kept: DIR/base, made once by debootstrap
#           (bookworm, --variant=minbase, with the apt sources a Debian 12
#           install has: bookworm, bookworm-updates, bookworm-security), then
#           apt-get install make gcc git; and DIR/root, a new copy of it for
#           each run
#   COMMAND shell commands, run one after the other in the clone, each
#           timed (default: 'make demo' 'make test', the README's)
# The committed HEAD of this tree is cloned with git into DIR/root/src, and
# the commands run there as root under chroot, in a private mount namespace
# (the root bound onto itself, /proc, /sys and /dev bound in), with a login's bare environment: the rules
# install everything else themselves, from Debian and the language
# registries.  The host's own CA certificates (/usr/local/share/ca-certificates)
# are copied into the base, for a network whose TLS goes through a proxy
# that signs with them.  The mirror is the first non-security one in this
# machine's apt sources, unless MIRROR is set.  Needs root and the network.
# Each command's time and status go to stderr and DIR/times.
# Exit status: 0 if every command passed, 1 if one failed (the rest still
# run) or the root cannot be made, 2 on usage errors.
set -eu

[ $# -ge 1 ] || { sed -n '2,/^set -eu/p' "$0" | sed '$d' >&2; exit 2; }
dir=$(mkdir -p "$1" && cd "$1" && pwd)
shift
[ $# -gt 0 ] || set -- 'make demo' 'make test'
src=$(cd "$(dirname "$0")/.." && pwd)

mirror_of_apt() {
    cat /etc/apt/sources.list /etc/apt/sources.list.d/*.list /etc/apt/sources.list.d/*.sources 2>/dev/null |
        sed -n 's/^URIs:[[:space:]]*//p; s/^deb[[:space:]]\{1,\}\(\[[^]]*\][[:space:]]*\)\{0,1\}\([^[:space:]]*\).*/\2/p' |
        tr ' ' '\n' | grep -v -e security -e '^$' | head -n 1
}

make_base() {
    command -v debootstrap >/dev/null || "$src/tests/need.sh" test-fresh debootstrap:debootstrap
    mirror=${MIRROR:-$(mirror_of_apt)}
    [ -n "$mirror" ] || { echo "fresh_root.sh: no apt mirror found; set MIRROR" >&2; exit 1; }
    rm -rf "$dir/base.tmp"
    echo "fresh_root.sh: debootstrap bookworm from $mirror into $dir/base (log: $dir/debootstrap.log)" >&2
    if ! debootstrap --variant=minbase bookworm "$dir/base.tmp" "$mirror" \
            >"$dir/debootstrap.log" 2>&1; then
        tail -n 5 "$dir/debootstrap.log" >&2
        echo "fresh_root.sh: debootstrap failed" >&2
        exit 1
    fi
    security=$(echo "$mirror" | sed 's|/debian/*$|/debian-security|')
    cat >"$dir/base.tmp/etc/apt/sources.list" <<EOF
deb $mirror bookworm main
deb $mirror bookworm-updates main
deb $security bookworm-security main
EOF
    mkdir -p "$dir/base.tmp/usr/local/share/ca-certificates"
    cp -p /usr/local/share/ca-certificates/*.crt "$dir/base.tmp/usr/local/share/ca-certificates/" 2>/dev/null || true
    cp /etc/resolv.conf "$dir/base.tmp/etc/resolv.conf"
    # As a user installs them: with what they recommend (gcc: libc6-dev; git: ca-certificates).
    if ! chroot "$dir/base.tmp" sh -c 'apt-get update -q && apt-get install -y -q make gcc git' \
            >>"$dir/debootstrap.log" 2>&1; then
        tail -n 5 "$dir/debootstrap.log" >&2
        echo "fresh_root.sh: apt-get install make gcc git failed" >&2
        exit 1
    fi
    rm -rf "$dir/base"
    mv "$dir/base.tmp" "$dir/base"
}

[ -d "$dir/base" ] || make_base
echo "fresh_root.sh: a new root from $dir/base; clone of $(git -C "$src" rev-parse --short HEAD)" >&2
rm -rf "$dir/root"
cp -a "$dir/base" "$dir/root"
git clone -q --no-hardlinks "$src" "$dir/root/src"
: >"$dir/times"

# shellcheck disable=SC2016
exec unshare --mount --propagation private sh -c '
    root=$1 times=$2; shift 2
    # The root made a mount point of its own: tests that unshare a mount
    # namespace in the chroot need "/" to be one.
    mount --rbind "$root" "$root"
    mount -t proc proc "$root/proc"
    mount -t sysfs sys "$root/sys"
    mount --rbind /dev "$root/dev"
    status=0
    for command; do
        start=$(date +%s)
        if chroot "$root" /usr/bin/env -i HOME=/root TERM=dumb \
                PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin \
                sh -c "cd /src && $command" sh; then
            result=passed
        else
            result=failed status=1
        fi
        echo "$command: $result in $(($(date +%s) - start)) s" | tee -a "$times" >&2
    done
    exit $status
' sh "$dir/root" "$dir/times" "$@"
