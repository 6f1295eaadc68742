#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# stdiogate --check against the real MCP servers pinned in tests/package-lock.json
# (server-everything, server-filesystem, server-memory) and a real SDK server with
# the startup noise users report (tests/integration/fixtures/noisy-server.cjs: a
# console.log banner and dotenv 17's notice).  What docs/CHECK.md says they get.

load ../integration/real_helpers
load ../check_helpers

setup() {
    real_setup
}

# every_run_clean: the three runs clean, every request answered.
every_run_clean() {
    expect clean "true true true" "$(q '[.runs[].clean | tostring] | join(" ")')"
    expect unanswered 0 "$(q '[.runs[].requests[] | select(.outcome != "result")] | length')"
}

@test "check real: server-everything is clean (status 0); it advertises tools, prompts and resources" {
    check --linger 1 --timeout 30 --call echo --args '{"message":"checked"}' -- "$BIN/mcp-server-everything"
    expect status 0 "$status"
    every_run_clean
    expect methods "initialize tools/list prompts/list resources/list ping tools/call" \
        "$(q '[.runs[0].requests[].method] | join(" ")')"
    # its startup line goes to stderr by itself
    [ "$(q .runs[0].stderr.bytes)" -gt 0 ]
    expect script_interpreter "$NODE" "$(q .program.script_interpreter)"
}

@test "check real: server-filesystem is clean (status 0), list_directory answered" {
    mkdir -p files && echo hello >files/a.txt
    check --linger 1 --timeout 30 --call list_directory --args "{\"path\":\"$PWD/files\"}" \
        -- "$BIN/mcp-server-filesystem" "$PWD/files"
    expect status 0 "$status"
    every_run_clean
    expect call "tools/call result" "$(q '.runs[0].requests[-1] | "\(.method) \(.outcome)"')"
}

@test "check real: server-memory is clean (status 0)" {
    MEMORY_FILE_PATH=$PWD/memory.jsonl check --linger 1 --timeout 30 -- "$BIN/mcp-server-memory"
    expect status 0 "$status"
    every_run_clean
}

@test "check real: an SDK server with a banner and dotenv's notice: status 1, fixed by the default mode" {
    check --linger 1 --timeout 30 -- "$NODE" "$FIX/noisy-server.cjs"
    expect status 1 "$status"
    expect phase before_first_message "$(q .runs[0].stdout.stretches[0].phase)"
    [[ "$(q .runs[0].stdout.stretches[0].first_bytes)" == "Noisy MCP server starting (banner on stdout)\n"* ]]
    expect gated_clean true "$(q .runs[1].clean)"
    expect config "[\"$NODE\",\"$FIX/noisy-server.cjs\"]" "$(q -c .verdict.config.args)"
    # quiet, it is clean
    check --linger 0 --timeout 30 -- "$NODE" "$FIX/noisy-server.cjs" --quiet
    expect quiet 0 "$status"
}

@test "check real: docs/CHECK.md's example is what the command prints today (numbers aside)" {
    local readme=$BATS_TEST_TMPDIR/readme.txt
    # the block after the "$ ./stdiogate --check -- node ..." line, up to its fence
    sed -n '/^\$ \.\/stdiogate --check -- node tests\/integration\/fixtures\/noisy-server.cjs$/,/^```$/p' \
        "$ROOT/docs/CHECK.md" | sed '1d;$d' >"$readme"
    [ -s "$readme" ]
    status=0
    (cd "$ROOT" && timeout "$CHECK_BOUND" ./stdiogate --check -- node tests/integration/fixtures/noisy-server.cjs) \
        >"$BATS_TEST_TMPDIR/check.txt" || status=$?
    expect status 1 "$status"
    # byte counts and times vary (dotenv's tip is chosen at random): compare without digits;
    # the entry's absolute paths are the example's checkout, /home/me/stdiogate
    diff <(sed 's/[0-9][0-9.]*/N/g' "$readme") \
        <(sed "s|$(realpath "$ROOT")/|/home/me/stdiogate/|g; s/[0-9][0-9.]*/N/g" "$BATS_TEST_TMPDIR/check.txt")
}

@test "check real: pylsp with no --protocol is checked as LSP (its name says so), clean in every run (issue 44)" {
    command -v pylsp >/dev/null || { echo "no pylsp (python3-pylsp, in TEST_TOOLS)"; false; }
    check --linger 0 --timeout 30 -- pylsp
    expect status 0 "$status"
    expect protocol "lsp command" "$(q '"\(.protocol) \(.protocol_source)"')"
    expect methods "initialize shutdown" "$(q '[.runs[0].requests[].method] | join(" ")')"
    every_run_clean
    # as MCP (a JSON line), it gets no answer: what the check did without its name
    check --linger 0 --timeout 2 --protocol mcp -- pylsp
    expect as_mcp 5 "$status"
}
