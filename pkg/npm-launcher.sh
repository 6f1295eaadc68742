#!/bin/sh
# SPDX-License-Identifier: MIT
# stdiogate's npm command: execs the stdiogate wrapper of the platform package
# (@stdiogate/linux-x64 or -arm64) that npm installed as an optional
# dependency of this one, where Node would find it: nested under it (npm
# install -g), beside it (npx, a project's node_modules) or higher up.  It
# execs: nothing of it stays in front of the server.  It forks only to
# resolve npm's bin symlink and for uname.
case $0 in
    /*) self=$0 ;;
    *) self=$PWD/${0#./} ;;
esac
if [ -L "$self" ]; then
    self=$(readlink -f -- "$self") || exit 125
fi
package=${self%/bin/*}
case $(uname -m) in
    x86_64) cpu=x64 ;;
    aarch64|arm64) cpu=arm64 ;;
    *) echo "stdiogate: no npm package for this machine ($(uname -m)): build it from source" >&2
       exit 125 ;;
esac
# Where Node would find it: node_modules under this package, then under each
# directory above that holds this one in a node_modules.
dir=$package
while :; do
    platform=$dir/node_modules/@stdiogate/linux-$cpu
    [ -x "$platform/bin/stdiogate" ] && exec "$platform/bin/stdiogate" "$@"
    case $dir in
        */node_modules/*) dir=${dir%/node_modules/*} ;;
        *) break ;;
    esac
done
# npm installs the platform package as an optional dependency of this one,
# and goes on without it when it cannot have it: say so, and how to add it.
version=$(sed -n 's/^  "version": "\(.*\)",$/\1/p' "$package/package.json" 2>/dev/null)
echo "stdiogate: the package @stdiogate/linux-$cpu (stdiogate's programs for this machine) is not installed beside $package" >&2
echo "stdiogate: npm went on without it (it is an optional dependency: npm could not get it, or was told --omit=optional); install it too:" >&2
echo "stdiogate:   npm install -g @stdiogate/linux-$cpu@${version:-VERSION}   (or the file stdiogate-linux-$cpu-${version:-VERSION}.tgz of the release)" >&2
exit 125
