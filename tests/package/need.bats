#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# tests/need.sh, which installs what make test, make check and the SDK tool
# chains need: against stand-ins for id and apt-get (nothing is installed),
# it names what is missing and the command that installs it when it is not
# root, and as root fetches the package lists only when a package is still
# missing or too old after a first install.

bats_require_minimum_version 1.5.0

setup() {
    NEED="$(cd "$BATS_TEST_DIRNAME/.." && pwd)/need.sh"
    STUB="$BATS_TEST_TMPDIR/bin"
    mkdir -p "$STUB"
    # apt-get: logs its arguments; "install fakec" brings fakec 1.85, or 1.96
    # once the lists were fetched ("update").
    cat >"$STUB/apt-get" <<EOF
#!/bin/sh
echo "apt-get \$*" >>"$BATS_TEST_TMPDIR/apt.log"
case "\$*" in
update*) touch "$BATS_TEST_TMPDIR/updated" ;;
*install*fakec-pkg*)
    v=1.85.0; [ -e "$BATS_TEST_TMPDIR/updated" ] && v=1.96.0
    printf '#!/bin/sh\necho "fakec %s (Debian)"\n' "\$v" >"$STUB/fakec"; chmod +x "$STUB/fakec" ;;
esac
EOF
    chmod +x "$STUB/apt-get"
    PATH="$STUB:$PATH"
}

as_uid() {  # as_uid N: id -u prints N
    printf '#!/bin/sh\necho %s\n' "$1" >"$STUB/id"
    chmod +x "$STUB/id"
}

@test "need.sh: everything there: nothing is said, nothing is installed" {
    as_uid 1000
    run --separate-stderr "$NEED" check sh:dash 'bash>=3.0:bash' 'true x:dash'
    [ "$status" -eq 0 ]
    [ -z "$output" ] && [ -z "$stderr" ]
    [ ! -e "$BATS_TEST_TMPDIR/apt.log" ]
}

@test "need.sh: not root: names what is missing and the command that installs it; installs nothing" {
    as_uid 1000
    printf '#!/bin/sh\necho "fakec 1.85.0"\n' >"$STUB/fakec" && chmod +x "$STUB/fakec"
    run --separate-stderr "$NEED" check sh:dash nosuch-cmd:nosuch-pkg 'fakec>=1.88:fakec-pkg' 'false x:x-pkg'
    [ "$status" -eq 1 ]
    [ -z "$output" ]
    [ "$stderr" = "make check: missing: nosuch-cmd, fakec 1.88 or later (1.85.0: $STUB/fakec), (false x fails); installing them needs root: sudo apt-get install -y nosuch-pkg fakec-pkg x-pkg" ]
    [ ! -e "$BATS_TEST_TMPDIR/apt.log" ]
}

@test "need.sh: root: a package still too old after install fetches the lists and installs again" {
    as_uid 0
    run --separate-stderr "$NEED" sdk 'fakec>=1.88:fakec-pkg'
    [ "$status" -eq 0 ]
    [ "$stderr" = "make sdk: installing fakec-pkg with apt-get (missing: fakec)" ]
    [ "$(cat "$BATS_TEST_TMPDIR/apt.log")" = "apt-get install -y -q fakec-pkg
apt-get update -q
apt-get install -y -q fakec-pkg" ]
    [ "$(fakec --version)" = "fakec 1.96.0 (Debian)" ]
}

@test "need.sh: root: what apt-get cannot bring fails, naming it" {
    as_uid 0
    run --separate-stderr "$NEED" sdk 'fakec>=2.0:fakec-pkg'
    [ "$status" -eq 1 ]
    [ "${stderr##*$'\n'}" = "make sdk: still missing after apt-get install fakec-pkg: fakec 2.0 or later (1.96.0: $STUB/fakec)" ]
}
