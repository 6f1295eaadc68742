# SPDX-License-Identifier: MIT
# stub_helpers.bash - for tests/wrapper.bats and tests/mutants_check.bats.
#
#   stub_tree   (from setup_file) exports REPO (this tree) and STUB
#               ($BATS_FILE_TMPDIR/stub): a copy of the wrapper and of
#               stdiogate-check beside an empty libstdiogate.so, a library
#               that does nothing, so that a test sees what the wrapper did

stub_tree() {
    REPO="$(cd "$BATS_TEST_DIRNAME/.." && pwd)"
    STUB="$BATS_FILE_TMPDIR/stub"
    export REPO STUB
    mkdir -p "$STUB"
    cp "$REPO/stdiogate" "$REPO/stdiogate-check" "$STUB/"
    cc -shared -fPIC -o "$STUB/libstdiogate.so" -x c /dev/null
}
