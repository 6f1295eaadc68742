# SPDX-License-Identifier: MIT
# stub_helpers.bash - for tests/wrapper/wrapper.bats, tests/check/mutants_check.bats and
# tests/setups/setups_wrapper.bats (taken).
#
#   stub_tree   (from setup_file) exports REPO (this tree) and STUB
#               ($BATS_FILE_TMPDIR/stub): a copy of the wrapper and of
#               stdiogate-check beside an empty libstdiogate.so, a library
#               that does nothing, so that a test sees what the wrapper did

stub_tree() {
    REPO="$(cd "$BATS_TEST_DIRNAME/../.." && pwd)"
    STUB="$BATS_FILE_TMPDIR/stub"
    export REPO STUB
    mkdir -p "$STUB"
    cp "$REPO/stdiogate" "$REPO/stdiogate-check" "$STUB/"
    cc -shared -fPIC -o "$STUB/libstdiogate.so" -x c /dev/null
}

# taken CMD...: CMD with descriptors 3 to 9 all open, so that the wrapper
# gets stdiogate-check's answer through $(...) instead of on one of them.
taken() { "$@" 3</dev/null 4</dev/null 5</dev/null 6</dev/null 7</dev/null 8</dev/null 9</dev/null; }
