#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# stdiogate --check --config / --list / --fix (doctor/stdiogate-doctor) on a
# fixture HOME (tests/fixtures/doctor/home) with every client's files: clean
# servers, junk (written through libc: the default mode's guard keeps it
# off), unguarded junk (by raw system calls, check_srv's raw: only --strict
# does), one that cannot start, one that
# never answers (timed out with --timeout 1), remote ones, and project files
# from a "cloned repository" whose servers would leave a marker file if run.
# The servers are tests/bin/check_srv, found through PATH as a client would.

bats_require_minimum_version 1.5.0

load ../check_helpers
load ../doctor_helpers

FIXTURE=$ROOT/tests/fixtures/doctor

setup() { doctor_home; }


# row CLIENT SERVER REST: the table has a row CLIENT SERVER ... REST (columns
# separated by runs of spaces).
row() {
    local want="$1 +$2 +$3"
    grep -Eq "^$want *\$" <<<"$output" || { echo "no row matching: $want"; show; return 1; }
}

markers() {
    (cd "$H" && ls ran-* 2>/dev/null | tr '\n' ' ')
}

# Every configuration file of the fixture, with its checksum.
sums() {
    (cd "$H" && find . -type f ! -name 'ran-*' ! -name flaky.count -print0 | sort -z | xargs -0 sha256sum)
}

@test "doctor: --list finds every client's servers, user and project, and runs none" {
    doctor --list
    expect status 0 "$status"
    row claude-code memory "user +yes +check_srv"
    row claude-code chatty "user +yes +check_srv banner"
    row claude-code docs "user +no +not stdio \(http: https://example.com/mcp\)"
    row claude-code local-logger "local +yes +check_srv serving"
    # ${VAR:-default} expanded, as Claude Code does
    row claude-code team-clean "project +yes +check_srv"
    row claude-code from-the-repo "project +asks +sh -c 'touch \"\\\$HOME/ran-claude-project\"; exec check_srv'"
    row claude-desktop filesystem "user +yes +check_srv banner -- /home/user/Documents"
    row cursor logger "user +yes +check_srv serving"
    row cursor cursor-project "project +asks +.*"
    # a string with comment markers and escaped quotes in JSON with comments
    grep -F -- "check_srv banner -- 'http://x//y /* \"z\" */'" <<<"$output" |
        grep -Eq '^vscode +banner-in-settings +user +yes +check_srv' || { show; return 1; }
    row vscode glued "user +yes +check_srv glued"
    row vscode github "user +no +not stdio .*"
    row vscode vscode-project "project +asks +.*"
    row windsurf hosted "user +no +not stdio \(url: https://example.com/mcp\)"
    row zed old-form "user +yes +check_srv banner"
    row zed new-form "user +yes +check_srv serving raw"
    row zed postgres-context-server "user +no +no command.*"
    # Zed's project settings (.zed/settings.json context_servers): a project
    # server, run once the worktree is trusted
    row zed zed-project "project +asks +sh -c .*ran-zed-project.*"
    row codex chatty "user +yes +check_srv banner"
    row codex slow "user +yes +check_srv silent"
    row codex remote "user +no +not stdio .*"
    row gemini chatty "user +yes +check_srv banner"
    row gemini gemini-project "project +asks +.*"
    row copilot copilot-user "user +yes +check_srv"
    expect servers 31 "$(grep -c ' \(yes\|no\|asks\)  ' <<<"$output")"
    # nothing ran: no check_srv pid, no marker
    [ ! -e "$CHECK_PIDS" ]
    expect markers "" "$(markers)"
    # --dry-run without --fix is --list
    doctor --dry-run
    expect dry_run_status 0 "$status"
    [ ! -e "$CHECK_PIDS" ]
}

# JSON with comments as VS Code, Cursor and Zed read it: a trailing comma
# before an array's close, as before an object's (ind7-doctor-jsonc-array-trailing-comma:
# the file was called unreadable, exit 6, and none of its servers listed).
@test "doctor: a VS Code settings file whose args array ends with a trailing comma is read, its servers listed and checked" {
    cat >"$H/.config/Code/User/settings.json" <<'JSON'
{
  "mcp": {
    "servers": {
      "comma-args": {
        "type": "stdio",
        "command": "check_srv",
        "args": [
          "banner",
        ],
      },
    },
  },
}
JSON
    doctor --list
    expect status 0 "$status"
    row vscode comma-args "user +yes +check_srv banner"
    ! grep -q unreadable <<<"$output" || { show; return 1; }
    doctor --config "$H/.config/Code/User/settings.json" --timeout 10
    expect config_status 1 "$status"
    row vscode comma-args "junk before the first message +wrap +check_srv: starting"
}

@test "doctor: --config checks each stdio server: verdict, junk, fix; timed out is the worst status (5); unapproved project servers do not run" {
    doctor --config --timeout 1 --linger 0
    expect status 5 "$status"
    row claude-code memory "clean +none"
    row claude-code chatty "junk before the first message +wrap +check_srv: starting"
    # junk while serving that the default mode keeps off: the check's status 1, which the
    # doctor calls "junk" (its verdict for status 1), with when it came; wrapping fixes it
    row claude-code local-logger "junk while serving +wrap +log: handled tools/list"
    row cursor logger "junk while serving +wrap +log: handled tools/list"
    row claude-code team-clean "clean +none"
    row claude-code from-the-repo "not run +not approved"
    row claude-desktop missing "cannot start +- +no-such-mcp-server: command not found"
    row vscode glued "junk before the first message +wrap +Starting"
    row windsurf clean "clean +none"
    row zed old-form "junk before the first message +wrap +check_srv: starting"
    # junk while serving written past the library (raw system calls): --strict
    row zed new-form "unguarded junk while serving +wrap with --strict +log: handled tools/list"
    row codex slow "timed out +- +no answer within 1 s: raise --timeout if it is slow"
    row codex remote "not run +not stdio \(url: https://example.com/mcp\)"
    row gemini chatty "junk before the first message +wrap +check_srv: starting"
    row copilot copilot-user "clean +none"
    # the servers ran (a positive control for the markers), the project
    # ones nobody approved did not, and their commands are shown
    [ -s "$CHECK_PIDS" ]
    expect markers "" "$(markers)"
    grep -qF "  cursor cursor-project (~/work/app/.cursor/mcp.json): cd $H/work/app && sh -c 'touch \"\$HOME/ran-cursor-project\"; exec check_srv'" <<<"$output" || { show; return 1; }
    grep -q '^11 server(s) need stdiogate' <<<"$output"
    # no secret from an env anywhere
    ! grep -q secret "$BATS_TEST_TMPDIR/out.txt" "$BATS_TEST_TMPDIR/err.txt" || false
}

@test "doctor: --json gives one document; the verdicts, the checks' own documents, env names but not values" {
    doctor --config --json --timeout 1 --linger 0
    expect status 5 "$status"
    j() { jq -r "$@" "$BATS_TEST_TMPDIR/out.txt"; }
    expect schema 1 "$(j .stdiogate_doctor)"
    expect doc_status 5 "$(j .status)"
    expect files 15 "$(j '.files | length')"
    sel='.servers[] | select(.client == "codex" and .name == "chatty")'
    expect verdict "junk" "$(j "$sel | .before.verdict")"
    expect fix "default gate" "$(j "$sel | .before.fix")"
    expect check_status 1 "$(j "$sel | .before.check.verdict.status")"
    expect env_names '["CODEX_TOKEN"]' "$(j -c "$sel | .env_names")"
    expect slow "timed out 5" "$(j '.servers[] | select(.name == "slow") | "\(.before.verdict) \(.before.status)"')"
    # junk while serving: through libc the default mode fixes it (status 1); by raw system calls --strict (2)
    expect logger "junk|1|default gate|serving|gated|0 24 0" \
        "$(j '.servers[] | select(.name == "local-logger") | .before | "\(.verdict)|\(.status)|\(.fix)|\(.when | join(","))|\(.check.verdict.fixed_by)|\(.check.runs[0].stdout.junk | "\(.before_first_message) \(.serving) \(.at_exit)")"')"
    expect raw "unguarded junk|2|--strict|strict|24" \
        "$(j '.servers[] | select(.name == "new-form") | .before | "\(.verdict)|\(.status)|\(.fix)|\(.check.verdict.fixed_by)|\(.check.runs[1].stdout.junk.serving)"')"
    expect unapproved "false false null" "$(j '.servers[] | select(.name == "vscode-project") | "\(.approved) \(.ran) \(.before)"')"
    expect not_stdio "http" "$(j '.servers[] | select(.name == "github") | .transport')"
    ! grep -q secret "$BATS_TEST_TMPDIR/out.txt" || false
}

@test "doctor: --yes runs the project servers nobody approved; a FILE named explicitly runs without --yes" {
    doctor --config .cursor/mcp.json --timeout 5 --linger 0
    expect status 0 "$status"
    row cursor cursor-project "clean +none"
    expect markers "ran-cursor-project " "$(markers)"
    rm "$H/ran-cursor-project"
    doctor --config --yes --timeout 1 --linger 0
    expect status 5 "$status"
    expect markers "ran-claude-project ran-cursor-project ran-gemini-project ran-vscode-project ran-zed-project " "$(markers)"
    row claude-code from-the-repo "clean +none"
}

@test "doctor: Claude Code's approvals: enableAllProjectMcpServers in ~/.claude/settings.json, disabledMcpjsonServers wins" {
    echo '{"enableAllProjectMcpServers": true}' >"$H/.claude/settings.json"
    doctor --list
    row claude-code from-the-repo "project +yes +.*"
    row cursor cursor-project "project +asks +.*"
    sed -i 's|"disabledMcpjsonServers": \[\]|"disabledMcpjsonServers": ["from-the-repo"]|' "$H/.claude.json"
    doctor --list
    row claude-code from-the-repo "project +asks +.*"
    row claude-code team-clean "project +yes +.*"
}

@test "doctor: --fix --dry-run prints the diff and writes nothing, secrets masked" {
    before=$(sums)
    doctor --config --fix --dry-run --timeout 1 --linger 0
    expect status 5 "$status"
    expect files "$before" "$(sums)"
    grep -qxF -- "--- ~/.codex/config.toml" <<<"$output"
    grep -qxF -- "+command = \"$GATE\" # resolved through PATH" <<<"$output"
    grep -qxF -- "+      \"args\": [\"--strict\", \"check_srv\", \"serving\", \"raw\"]," <<<"$output"
    grep -qxF -- "+      \"args\": [\"check_srv\", \"serving\"]," <<<"$output"
    ! grep -qF -- "\"--strict\", \"check_srv\", \"serving\"]" <<<"$output" || false
    grep -qxF -- '       "env": {"ZED_TOKEN": "***"}' <<<"$output" || { show; return 1; }
    ! grep -q secret "$BATS_TEST_TMPDIR/out.txt" "$BATS_TEST_TMPDIR/err.txt" || false
}

# fixed_diff FILE: the diff between FILE's backup and FILE, without its header.
fixed_diff() {
    diff -u "$H/$1.stdiogate-backup" "$H/$1" | tail -n +3
}

@test "doctor: --fix wraps exactly the servers that need it, byte-identical elsewhere, parsed by the clients' parsers; a second --fix changes nothing" {
    cp -a "$H" "$BATS_TEST_TMPDIR/orig"
    doctor --config --fix --timeout 1 --linger 0
    expect status 5 "$status"
    grep -qx 'zed new-form: unguarded junk -> clean: fixed' <<<"$output" || { show; return 1; }
    grep -qx 'claude-code local-logger: junk -> clean: fixed' <<<"$output"
    grep -qx 'cursor logger: junk -> clean: fixed' <<<"$output"
    grep -qx 'codex chatty: junk -> clean: fixed' <<<"$output"
    grep -qx 'wrote ~/.codex/config.toml (the old one is ~/.codex/config.toml.stdiogate-backup)' <<<"$output"
    # every backup is the file as it was
    for f in .claude.json .config/Claude/claude_desktop_config.json .cursor/mcp.json \
             .config/Code/User/settings.json .config/Code/User/mcp.json .codeium/windsurf/mcp_config.json \
             .config/zed/settings.json .codex/config.toml .gemini/settings.json; do
        cmp "$BATS_TEST_TMPDIR/orig/$f" "$H/$f.stdiogate-backup"
    done
    # files with nothing to fix are untouched, with no backup
    cmp "$BATS_TEST_TMPDIR/orig/work/app/.mcp.json" "$H/work/app/.mcp.json"
    [ ! -e "$H/work/app/.mcp.json.stdiogate-backup" ]
    # JSON with comments: only the two lines of the entry change
    expect vscode "@@ -6,8 +6,8 @@
     \"servers\": {
       \"banner-in-settings\": {
         \"type\": \"stdio\",
-        \"command\": \"check_srv\",
-        \"args\": [\"banner\", \"--\", \"http://x//y /* \\\"z\\\" */\"], // trailing comma below
+        \"command\": \"$GATE\",
+        \"args\": [\"check_srv\", \"banner\", \"--\", \"http://x//y /* \\\"z\\\" */\"], // trailing comma below
       },
     },
   }," "$(fixed_diff .config/Code/User/settings.json)"
    expect zed_lines "-        \"path\": \"check_srv\",
-        \"args\": [\"banner\"],
-      \"command\": \"check_srv\",
-      \"args\": [\"serving\", \"raw\"],
+        \"path\": \"$GATE\",
+        \"args\": [\"check_srv\", \"banner\"],
+      \"command\": \"$GATE\",
+      \"args\": [\"--strict\", \"check_srv\", \"serving\", \"raw\"]," "$(fixed_diff .config/zed/settings.json | grep '^-'; fixed_diff .config/zed/settings.json | grep '^+')"
    expect codex "@@ -3,8 +3,9 @@
 
 [mcp_servers.chatty]
 # a server that prints a banner
-command = \"check_srv\" # resolved through PATH
+command = \"$GATE\" # resolved through PATH
 args = [
+  \"check_srv\",
   \"banner\",
 ]
 " "$(fixed_diff .codex/config.toml)"
    # the clients' parsers (the files without comments): each equals the old one with exactly these entries changed
    python3 - "$BATS_TEST_TMPDIR/orig" "$H" "$GATE" <<'PY'
import json, sys, tomllib
old, new, gate = sys.argv[1:]
def load(root, f):
    text = open(f"{root}/{f}").read()
    return tomllib.loads(text) if f.endswith(".toml") else json.loads(text)
def wrap(doc, keys, strict=False, key="command"):
    e = doc
    for k in keys:
        e = e[k]
    e["args"] = (["--strict"] if strict else []) + [e[key]] + e.get("args", [])
    e[key] = gate
cases = {
    ".claude.json": [(["mcpServers", "chatty"], False),
                     (["projects", f"{new}/work/app", "mcpServers", "local-logger"], False)],
    ".config/Claude/claude_desktop_config.json": [(["mcpServers", "filesystem"], False)],
    ".cursor/mcp.json": [(["mcpServers", "logger"], False)],
    ".codeium/windsurf/mcp_config.json": [(["mcpServers", "noisy"], False)],
    ".codex/config.toml": [(["mcp_servers", "chatty"], False)],
    ".gemini/settings.json": [(["mcpServers", "chatty"], False)],
}
for f, edits in cases.items():
    want = load(old, f)
    for keys, strict in edits:
        wrap(want, keys, strict)
    got = load(new, f)
    assert got == want, f"{f}:\n{got}\n!=\n{want}"
PY
    # the fixed entries run clean through the wrapper, and a second --fix is a no-op
    after=$(sums)
    doctor --config --fix --timeout 1 --linger 0
    expect status_again 5 "$status"
    expect unchanged "$after" "$(sums)"
    grep -qx 'nothing to fix' <<<"$output" || { show; return 1; }
    row zed new-form "clean +already wrapped"
    row cursor logger "clean +already wrapped"
    row codex chatty "clean +already wrapped"
}

@test "doctor: --fix edits a symlink's target (the link stays), keeps the mode and owner; the backup has the same" {
    mkdir "$H/dotfiles"
    mv "$H/.codeium/windsurf/mcp_config.json" "$H/dotfiles/windsurf.json"
    chmod 600 "$H/dotfiles/windsurf.json"
    # the owner too, where the tests can give the file another one (as root)
    owner=$(id -u):$(id -g)
    if [ "$(id -u)" = 0 ]; then
        chown 65534:65534 "$H/dotfiles/windsurf.json"
        owner=65534:65534
    fi
    ln -s ../../dotfiles/windsurf.json "$H/.codeium/windsurf/mcp_config.json"
    doctor --config "$H/.codeium/windsurf/mcp_config.json" --fix --linger 0
    expect status 0 "$status"
    [ -L "$H/.codeium/windsurf/mcp_config.json" ]
    expect link ../../dotfiles/windsurf.json "$(readlink "$H/.codeium/windsurf/mcp_config.json")"
    expect mode 600 "$(stat -c %a "$H/dotfiles/windsurf.json")"
    expect backup_mode 600 "$(stat -c %a "$H/dotfiles/windsurf.json.stdiogate-backup")"
    expect owner "$owner" "$(stat -c %u:%g "$H/dotfiles/windsurf.json")"
    expect backup_owner "$owner" "$(stat -c %u:%g "$H/dotfiles/windsurf.json.stdiogate-backup")"
    grep -qF "\"command\": \"$GATE\"" "$H/dotfiles/windsurf.json"
    expect leftovers "windsurf.json windsurf.json.stdiogate-backup" "$(ls "$H/dotfiles" | tr '\n' ' ' | sed 's/ $//')"
}

@test "doctor: --fix keeps the backups of earlier fixes: the next one is FILE.stdiogate-backup.N" {
    local f=$H/.codeium/windsurf/mcp_config.json
    cp "$f" "$BATS_TEST_TMPDIR/orig.json"
    echo first >"$f.stdiogate-backup"
    echo second >"$f.stdiogate-backup.1"
    doctor --config "$f" --fix --linger 0
    expect status 0 "$status"
    grep -qx 'wrote ~/.codeium/windsurf/mcp_config.json (the old one is ~/.codeium/windsurf/mcp_config.json.stdiogate-backup.2)' \
        <<<"$output" || { show; return 1; }
    expect first first "$(cat "$f.stdiogate-backup")"
    expect second second "$(cat "$f.stdiogate-backup.1")"
    cmp "$BATS_TEST_TMPDIR/orig.json" "$f.stdiogate-backup.2"
    grep -qF "\"command\": \"$GATE\"" "$f"
    [ ! -e "$f.stdiogate-backup.3" ]
}

@test "doctor: --fix writes nothing when the check through the new entry fails, and says why" {
    printf '{\n  "mcpServers": {\n    "flaky": {"command": "%s"}\n  }\n}\n' "$FIXTURE/flaky.sh" >"$H/flaky.json"
    cp "$H/flaky.json" "$H/flaky.orig"
    doctor --config "$H/flaky.json" --fix --linger 0
    cmp "$H/flaky.orig" "$H/flaky.json"
    [ ! -e "$H/flaky.json.stdiogate-backup" ]
    grep -q '^file flaky: junk -> cannot start: not fixed: through the new entry: cannot start' <<<"$output" || { show; return 1; }
    expect status 1 "$status"
}

@test "doctor: --fix refuses a file that changed since it was read" {
    printf '{"mcpServers": {"edits-its-config": {"command": "sh", "args": ["-c", "echo >>\\"$HOME/changing.json\\"; exec check_srv banner"]}}}\n' >"$H/changing.json"
    doctor --config "$H/changing.json" --fix --linger 0
    grep -q '^file edits-its-config: junk -> clean: not fixed: ~/changing.json changed since it was read; run again' <<<"$output" || { show; return 1; }
    [ ! -e "$H/changing.json.stdiogate-backup" ]
    grep -q '^{"mcpServers"' "$H/changing.json"
    ! grep -q stdiogate "$H/changing.json" || false
}

@test "doctor: a configuration that cannot be parsed: exit 6, the file named; bad options: 125" {
    echo '{"mcpServers": {' >"$H/.cursor/mcp.json"
    doctor --list
    expect status 6 "$status"
    grep -q '^stdiogate: ~/.cursor/mcp.json: cannot parse: ' "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
    row windsurf clean "user +yes +check_srv"
    doctor --config --jobs 0
    expect jobs 125 "$status"
    doctor --config --timeout 0
    expect timeout 125 "$status"
    grep -q "^stdiogate: invalid --timeout '0'" "$BATS_TEST_TMPDIR/err.txt"
    doctor --config "$H/no-such.json"
    expect missing 125 "$status"
    grep -q 'no-such.json: no such file' "$BATS_TEST_TMPDIR/err.txt"
    doctor --client cursor --config
    expect client_config 125 "$status"
    # nothing configured: said so, status 0
    mkdir "$BATS_TEST_TMPDIR/empty" && cd "$BATS_TEST_TMPDIR/empty"
    HOME=$BATS_TEST_TMPDIR/empty doctor --config
    expect empty 0 "$status"
    expect empty_report "no MCP server configured

no client configuration found" "$output"
    # a COMMAND's own --fix is not the doctor's
    doctor --json --linger 0 "$SRV" -- --fix
    expect command_fix 0 "$status"
}

# (coverage round 2 of 2026-12-07: the doctor's option errors no test made.)
# Each bad use of an option: status 125, one line that says what is wrong,
# then the usage, nothing on stdout; --help is the doctor's help, status 0;
# --list=FILE is --list FILE, and so is --list --json FILE.
@test "doctor: each bad option: 125 and the reason on stderr; --help after a doctor option; --list=FILE and --list --json FILE as --list FILE" {
    local rows=(
        "--config --jobs x|--jobs needs a number, not 'x'"
        "--config --jobs=|--jobs needs a number, not ''"
        "--config --timeout|option '--timeout' needs a value"
        "--client nosuch -- cmd|unknown client 'nosuch' (claude-code, "
        "--config --bogus|unknown option '--bogus' (try 'stdiogate --check --help')"
        "--client cursor|--client needs a COMMAND: stdiogate --check --client NAME -- COMMAND [ARG]..."
        "--config $H/.cursor/mcp.json cmd|--config takes no COMMAND (cmd); give a FILE or nothing"
    )
    local row args want bad=()
    for row in "${rows[@]}"; do
        IFS='|' read -r args want <<<"$row"
        # shellcheck disable=SC2086  # the row's words
        doctor $args
        if [ "$status" != 125 ] || [ -n "$output" ] ||
            [[ "$(head -1 "$BATS_TEST_TMPDIR/err.txt")" != "stdiogate: $want"* ]] ||
            ! grep -q '^Usage: stdiogate --check --config' "$BATS_TEST_TMPDIR/err.txt"; then
            echo "row [$args]: status $status, stdout [$output], stderr:"; cat "$BATS_TEST_TMPDIR/err.txt"
            bad+=("$args")
        fi
    done
    doctor --list --help
    [ "$status" = 0 ] && [[ "$output" == "Usage: stdiogate --check --config"* ]] || bad+=("--list --help")
    doctor --list "$H/.cursor/mcp.json"
    local spaced=$output
    doctor --list="$H/.cursor/mcp.json"
    [ "$status" = 0 ] && [ "$output" = "$spaced" ] && [[ "$output" == *check_srv* ]] || { echo "--list=FILE: $output"; bad+=("--list=FILE"); }
    # the FILE after the doctor's other options (it runs no COMMAND)
    doctor --list --json "$H/.cursor/mcp.json"
    local json=$output
    doctor --json --list "$H/.cursor/mcp.json"
    [ "$status" = 0 ] && [ "$output" = "$json" ] && [[ "$output" == *check_srv* ]] || { echo "--list --json FILE: $json"; bad+=("--list --json FILE"); }
    doctor --list "$H/.cursor/mcp.json" "$H/.cursor/mcp.json"
    [ "$status" = 125 ] && grep -qF "takes no COMMAND ($H/.cursor/mcp.json)" "$BATS_TEST_TMPDIR/err.txt" || bad+=("--list FILE FILE")
    [ "${#bad[@]}" = 0 ] || { echo "failed: ${bad[*]}"; false; }
}

# client_entry CLIENT FILE ARG...: the entry `--check --client CLIENT --json
# ARG...` prints for CLIENT, in FILE.
client_entry() {
    local client=$1 file=$2
    shift 2
    doctor --client "$client" --json --linger 0 "$@"
    jq -r --arg c "$client" '.client_entries[$c]' "$BATS_TEST_TMPDIR/out.txt" >"$file"
}

@test "doctor: --client prints each client's entry, absolute paths, parsed as the client parses it (tests/recipes.py)" {
    mkdir -p "$H/srv" && cp "$FIXTURE/flaky.sh" "$H/srv/server.sh"
    cd "$H/srv"
    # one check, every MCP client's entry (--client NAME gives the same one alone: below)
    doctor --client all --json --linger 0 check_srv banner -- ./server.sh @scope/package
    expect status 1 "$status"
    for c in claude-code claude-desktop cursor vscode windsurf zed codex gemini copilot; do
        case $c in claude-code) ext=sh ;; codex) ext=toml ;; *) ext=json ;; esac
        jq -r --arg c "$c" '.client_entries[$c]' "$BATS_TEST_TMPDIR/out.txt" >"$BATS_TEST_TMPDIR/$c.$ext"
        # check_srv through PATH, a relative script argument: both made absolute;
        # a package name with a slash (npx's @scope/package) names no file here: as it is
        expect "$c argv" "$GATE
$SRV
banner
--
$H/srv/server.sh
@scope/package" "$(python3 "$ROOT/tests/recipes.py" --stdiogate "$GATE" "$BATS_TEST_TMPDIR/$c.$ext")"
    done
    grep -qx '      "type": "stdio",' "$BATS_TEST_TMPDIR/vscode.json"
    expect copilot_fields 'local ["*"]' "$(jq -c -r '.mcpServers[] | "\(.type) \(.tools)"' "$BATS_TEST_TMPDIR/copilot.json")"
    client_entry cursor "$BATS_TEST_TMPDIR/cursor-alone.json" check_srv banner -- ./server.sh @scope/package
    cmp "$BATS_TEST_TMPDIR/cursor.json" "$BATS_TEST_TMPDIR/cursor-alone.json"
    expect only_cursor '["cursor"]' "$(jq -c '.client_entries | keys' "$BATS_TEST_TMPDIR/out.txt")"
    # junk while serving: the default mode; by raw system calls: --strict; LSP entries for Neovim and Helix
    client_entry helix "$BATS_TEST_TMPDIR/helix.toml" --protocol lsp check_srv --lsp serving
    expect helix_status 1 "$status"
    expect helix "$GATE $SRV --lsp serving" \
        "$(python3 "$ROOT/tests/recipes.py" --stdiogate "$GATE" "$BATS_TEST_TMPDIR/helix.toml" | tr '\n' ' ' | sed 's/ $//')"
    client_entry helix "$BATS_TEST_TMPDIR/helix-raw.toml" --protocol lsp check_srv --lsp serving raw
    expect helix_raw_status 2 "$status"
    expect helix_raw "$GATE --strict $SRV --lsp serving raw" \
        "$(python3 "$ROOT/tests/recipes.py" --stdiogate "$GATE" "$BATS_TEST_TMPDIR/helix-raw.toml" | tr '\n' ' ' | sed 's/ $//')"
    client_entry neovim "$BATS_TEST_TMPDIR/neovim.lua" --protocol lsp check_srv --lsp banner
    expect neovim "$GATE $SRV --lsp banner" \
        "$(python3 "$ROOT/tests/recipes.py" --stdiogate "$GATE" "$BATS_TEST_TMPDIR/neovim.lua" | tr '\n' ' ' | sed 's/ $//')"
    # --protocol before --check (stdiogate --protocol lsp --check ...: the wrapper
    # hands it on first), its value a separate word: still the doctor's run
    status=0
    timeout "$CHECK_BOUND" "$GATE" --protocol lsp --check --client neovim --json --linger 0 check_srv --lsp banner \
        >"$BATS_TEST_TMPDIR/out.txt" 2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
    expect neovim_protocol_first_status 1 "$status"
    jq -r '.client_entries.neovim' "$BATS_TEST_TMPDIR/out.txt" >"$BATS_TEST_TMPDIR/neovim-first.lua"
    cmp "$BATS_TEST_TMPDIR/neovim.lua" "$BATS_TEST_TMPDIR/neovim-first.lua"
    # clean: the command as it is, absolute; all: every MCP client, and no LSP one
    doctor --client all --linger 0 check_srv
    expect clean_status 0 "$status"
    grep -qxF "claude mcp add check_srv -- $SRV" <<<"$output" || { show; return 1; }
    expect headers "claude-code claude-desktop cursor vscode windsurf zed codex gemini copilot" \
        "$(sed -n 's/^# \([a-z-]*\): .*/\1/p' <<<"$output" | tr '\n' ' ' | sed 's/ $//')"
    # nothing fixes it: no entry; a client of the other protocol: refused
    doctor --client cursor --linger 0 no-such-mcp-server
    expect missing_status 4 "$status"
    grep -q '^no entry: ' <<<"$output"
    ! grep -q mcpServers <<<"$output" || false
    doctor --client neovim check_srv
    expect neovim_mcp 125 "$status"
    grep -q 'neovim runs LSP servers, not MCP ones: add --protocol lsp' "$BATS_TEST_TMPDIR/err.txt"
}

# A launcher's last argument is the server's own (a path, a port): the name is
# what the launcher runs, as the user would name it.
@test "doctor: --client names a launched server by its package, module, image or script, not its last argument" {
    # launchers that run a clean server whatever their arguments (nothing fetched, nothing run)
    mkdir "$H/launch"
    local l row cmd want="" got=""
    for l in npx bunx uvx uv pipx npm pnpm node python3 deno docker podman java go env sh bash; do
        printf '#!/bin/sh\nexec "%s"\n' "$SRV" >"$H/launch/$l"
        chmod +x "$H/launch/$l"
    done
    while IFS='|' read -r row cmd; do
        eval "set -- $cmd"
        l=$1 && shift
        client_entry cursor "$BATS_TEST_TMPDIR/cursor.json" -- "$H/launch/$l" "$@"
        want+="$row|$cmd"$'\n'
        got+="$(jq -r '.mcpServers | keys | join(",")' "$BATS_TEST_TMPDIR/cursor.json")|$cmd"$'\n'
    done <<'EOF'
server-filesystem|npx -y @modelcontextprotocol/server-filesystem /tmp
pkg|npx -y pkg@1.2.3
pkg|npx -y @scope/pkg@latest --flag value
pkg|bunx pkg@1 arg
mcp-server-git|uvx mcp-server-git --repository /repo
mcp-server-fetch|uvx --from mcp-server-fetch==1.0 mcp-server-fetch --ignore-robots-txt
server|uv run server.py
weather|uv --directory /srv/weather run weather.py --verbose
weather|uv run --with mcp python weather.py
mcp-server-time|uv tool run mcp-server-time --local-timezone UTC
pkg|pipx run pkg arg
mcp-server-fetch|pipx run --spec mcp-server-fetch==1.0 mcp-server-fetch arg
pkg|npm exec -- pkg --flag
pkg|npm exec --yes -- pkg@2 arg
pkg|pnpm dlx pkg arg
srv|node srv.js --port 80
srv|node -r dotenv/config /app/srv.mjs
node|node
mcp_server_fetch|python3 -m mcp_server_fetch --ignore-robots-txt
server|python3 /abs/dir/server.py --flag
server|python3 -u /abs/dir/server.py --flag x
y|deno run -A jsr:@x/y
pkg|deno run --allow-net npm:pkg@1.2 arg
fetch|docker run -i --rm mcp/fetch
x|docker run -i --rm -e KEY=VAL -v /a:/b mcp/x
github-mcp-server|podman run -i --rm --env-file /e ghcr.io/github/github-mcp-server:latest arg
srv|java -jar /opt/srv.jar --port 1
server|go run ./cmd/server -addr :80
srv|env FOO=1 node srv.js --port 80
srv|sh -c 'cd /srv && exec node srv.js --port 80'
run|bash /opt/run.sh arg
EOF
    [ "$want" = "$got" ] || { diff <(printf %s "$want") <(printf %s "$got"); return 1; }
}

@test "doctor: --client codex and helix, a server name with a dot (my.server): the TOML table key is quoted, one server of that name" {
    mkdir -p "$H/srv" && cp "$SRV" "$H/srv/my.server"
    client_entry codex "$BATS_TEST_TMPDIR/codex.toml" "$H/srv/my.server" banner
    expect codex_status 1 "$status"
    grep -qxF '[mcp_servers."my.server"]' "$BATS_TEST_TMPDIR/codex.toml" || { cat "$BATS_TEST_TMPDIR/codex.toml"; return 1; }
    expect codex "$GATE $H/srv/my.server banner" \
        "$(python3 "$ROOT/tests/recipes.py" --stdiogate "$GATE" "$BATS_TEST_TMPDIR/codex.toml" | tr '\n' ' ' | sed 's/ $//')"
    client_entry helix "$BATS_TEST_TMPDIR/helix.toml" --protocol lsp "$H/srv/my.server" --lsp serving
    expect helix_names '["my.server"]' "$(python3 -c 'import json, sys, tomllib
print(json.dumps(list(tomllib.load(open(sys.argv[1], "rb"))["language-server"])))' "$BATS_TEST_TMPDIR/helix.toml")"
}

@test "doctor: an entry run through a pinned stdiogate (npx -y stdiogate@VERSION) is already wrapped: --fix leaves it" {
    # an npx that runs the package's command from this tree (no registry)
    mkdir "$H/fetch"
    printf '#!/bin/sh\n[ "$1" = -y ] && shift\ncase $1 in stdiogate|stdiogate@*) shift ;; *) exit 127 ;; esac\nexec "%s" "$@"\n' \
        "$GATE" >"$H/fetch/npx"
    chmod +x "$H/fetch/npx"
    printf '{"mcpServers": {"pinned": {"command": "npx", "args": ["-y", "stdiogate@0.2.0", "check_srv", "banner"]}}}\n' >"$H/pinned.json"
    cp "$H/pinned.json" "$H/pinned.orig"
    PATH=$H/fetch:$PATH doctor --config "$H/pinned.json" --fix --linger 0
    row file pinned "clean +already wrapped"
    cmp "$H/pinned.orig" "$H/pinned.json" || { show; return 1; }
    # (the test can fail: the same entry unpinned is found wrapped too, a bare one is not)
    printf '{"mcpServers": {"bare": {"command": "check_srv", "args": ["banner"]}}}\n' >"$H/bare.json"
    PATH=$H/fetch:$PATH doctor --config "$H/bare.json" --linger 0
    ! grep -q 'already wrapped' <<<"$output" || { show; return 1; }
}

# The doctor writes 'uvx stdiogate ...' itself when stdiogate runs from uv's
# cache: every fetcher's form counts as wrapped (ind5-doctor-uvx-wrapper-unseen).
# pipx run, uv tool run, npm exec, pnpm dlx: the subcommand is not the package.
@test "doctor: an entry run through stdiogate by any fetcher (npx, bunx, pnpx, uvx, pipx run, uv tool run, npm exec, pnpm dlx) is already wrapped: --fix leaves it" {
    mkdir "$H/fetch"
    local f sub
    for f in npx bunx pnpx uvx pipx uv npm pnpm; do
        case $f in pipx) sub='"run", ' ;; uv) sub='"tool", "run", ' ;; npm) sub='"exec", "--yes", ' ;; pnpm) sub='"dlx", ' ;; *) sub= ;; esac
        # a fetcher that runs the package's command from this tree (no registry)
        printf '#!/bin/sh\nwhile case $1 in -y|--yes|run|tool|exec|dlx) true ;; *) false ;; esac; do shift; done\ncase $1 in stdiogate|stdiogate@*) shift ;; *) exit 127 ;; esac\nexec "%s" "$@"\n' \
            "$GATE" >"$H/fetch/$f"
        chmod +x "$H/fetch/$f"
        printf '{"mcpServers": {"fetched": {"command": "%s", "args": [%s"stdiogate", "check_srv", "banner"]}}}\n' "$f" "$sub" >"$H/$f.json"
        cp "$H/$f.json" "$H/$f.orig"
        PATH=$H/fetch:$PATH doctor --config "$H/$f.json" --fix --linger 0
        echo "fetcher $f" >&2
        row file fetched "clean +already wrapped"
        cmp "$H/$f.orig" "$H/$f.json" || { show; return 1; }
    done
}

@test "doctor: on a terminal, it asks before running each unapproved project server (y runs it, anything else skips it)" {
    # script(1) gives the doctor a terminal; the answers: y for the first asked, n, no answer,
    # anything else, then the end of input
    printf 'y\nn\n\nsure\n' | timeout "$CHECK_BOUND" script -qec \
        "'$GATE' --check --config --timeout 1 --linger 0" /dev/null >"$BATS_TEST_TMPDIR/out.txt" || true
    output=$(tr -d '\r' <"$BATS_TEST_TMPDIR/out.txt")
    grep -qF "stdiogate: run from-the-repo from ~/work/app/.mcp.json (sh -c 'touch \"\$HOME/ran-claude-project\"; exec check_srv')? [y/N]" <<<"$output" || { show; return 1; }
    expect markers "ran-claude-project " "$(markers)"
    row claude-code from-the-repo "clean +none"
    row cursor cursor-project "not run +not approved"
    row vscode vscode-project "not run +not approved"
    row gemini gemini-project "not run +not approved"
    row zed zed-project "not run +not approved"
}

@test "doctor: a launcher that times out (npx downloading on its first run) is timed out, with the advice, not junk" {
    mkdir -p "$H/bin"
    printf '#!/bin/sh\nexec check_srv silent\n' >"$H/bin/npx"
    chmod +x "$H/bin/npx"
    printf '{"mcpServers": {"memory": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}}}\n' >"$H/npx.json"
    PATH=$H/bin:$PATH doctor --config "$H/npx.json" --timeout 1 --linger 0
    expect status 5 "$status"
    row file memory "timed out +- +no answer within 1 s: raise --timeout, or run it again once npx has the package"
}

@test "doctor: --fix in TOML: an inline table is left for the user (said so), the table beside it is fixed" {
    printf '# two ways to write a server\n[mcp_servers]\ninline = { command = "check_srv", args = ["banner"] }\n\n[mcp_servers.table]\ncommand = "check_srv"\nargs = ["banner"]\n' >"$H/config.toml"
    doctor --config "$H/config.toml" --fix --linger 0
    expect status 1 "$status"
    grep -qx 'codex inline: junk -> clean: not fixed: the entry is not a \[mcp_servers.NAME\] table of its own; edit it by hand' <<<"$output" || { show; return 1; }
    grep -qx 'codex table: junk -> clean: fixed' <<<"$output"
    expect toml "# two ways to write a server
[mcp_servers]
inline = { command = \"check_srv\", args = [\"banner\"] }

[mcp_servers.table]
command = \"$GATE\"
args = [\"check_srv\", \"banner\"]" "$(cat "$H/config.toml")"
}

@test "doctor: --fix keeps CRLF line ends (TOML and JSON), an args line added where there was none" {
    printf '#!/bin/sh\nexec check_srv banner\n' >"$H/banner-server"
    chmod +x "$H/banner-server"
    printf '[mcp_servers.crlf]\r\ncommand = "%s" # a comment\r\nenv = {}\r\n' "$H/banner-server" >"$H/config.toml"
    printf '{\r\n  "mcpServers": {\r\n    "crlf": {\r\n      "command": "%s"\r\n    }\r\n  }\r\n}\r\n' "$H/banner-server" >"$H/crlf.json"
    doctor --config "$H/config.toml" --fix --linger 0
    expect toml_status 0 "$status"
    doctor --config "$H/crlf.json" --fix --linger 0
    expect json_status 0 "$status"
    expect toml "$(printf '[mcp_servers.crlf]\r\ncommand = "%s" # a comment\r\nargs = ["%s"]\r\nenv = {}\r\n' "$GATE" "$H/banner-server")" \
        "$(cat "$H/config.toml")"
    expect json "$(printf '{\r\n  "mcpServers": {\r\n    "crlf": {\r\n      "command": "%s",\r\n      "args": ["%s"]\r\n    }\r\n  }\r\n}\r\n' "$GATE" "$H/banner-server")" \
        "$(cat "$H/crlf.json")"
}

# The arguments added in front of an args list written one a line take the
# list's own line end and indent: CRLF where the file has CRLF (a bare LF
# there leaves the file with mixed line ends).
@test "doctor: --fix keeps CRLF line ends where args are one a line (JSON and TOML): the added arguments' lines end in CRLF too" {
    printf '{\r\n  "mcpServers": {\r\n    "crlf": {\r\n      "command": "check_srv",\r\n      "args": [\r\n        "banner"\r\n      ]\r\n    }\r\n  }\r\n}\r\n' \
        >"$H/crlf.json"
    printf '[mcp_servers.crlf]\r\ncommand = "check_srv"\r\nargs = [\r\n  "banner",\r\n]\r\n' >"$H/config.toml"
    doctor --config "$H/crlf.json" --fix --linger 0
    expect json_status 0 "$status"
    grep -qx 'file crlf: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    doctor --config "$H/config.toml" --fix --linger 0
    expect toml_status 0 "$status"
    grep -qx 'codex crlf: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    # byte for byte (od: $(...) would keep the \r but drop a last newline)
    expect json "$(printf '{\r\n  "mcpServers": {\r\n    "crlf": {\r\n      "command": "%s",\r\n      "args": [\r\n        "check_srv",\r\n        "banner"\r\n      ]\r\n    }\r\n  }\r\n}\r\n' "$GATE" | od -c)" \
        "$(od -c "$H/crlf.json")"
    expect toml "$(printf '[mcp_servers.crlf]\r\ncommand = "%s"\r\nargs = [\r\n  "check_srv",\r\n  "banner",\r\n]\r\n' "$GATE" | od -c)" \
        "$(od -c "$H/config.toml")"
    # no line end without its \r
    expect lines_without_cr 0 "$(cat "$H/crlf.json" "$H/config.toml" | grep -c $'[^\r]$')"
}

@test "doctor: bash completion offers the clients after --client and files after --config" {
    words() {
        bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1))
                 _stdiogate; printf "%s\n" "${COMPREPLY[@]}" | sort -u' _ "$ROOT/completion/stdiogate" "$@"
    }
    expect clients "claude-code claude-desktop" "$(words "$GATE" --check --client cl | tr '\n' ' ' | sed 's/ $//')"
    expect all all "$(words "$GATE" --check --json --client a)"
    touch my-config.json
    expect config my-config.json "$(words "$GATE" --check --config my-)"
}

@test "doctor: bad input: a project .vscode/mcp.json nested 100,000 deep is named unreadable (6) and the rest goes on; a deep args list is not a command" {
    python3 -c 'import sys; d = 100000
sys.stdout.write("{\"servers\": {\"deep\": {\"command\": \"check_srv\", \"args\": " + "[" * d + "]" * d + "}}}\n")' \
        >"$H/work/app/.vscode/mcp.json"
    doctor --list
    expect status 6 "$status"
    grep -qx 'stdiogate: ~/work/app/.vscode/mcp.json: cannot parse: nested too deep' "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
    ! grep -q Traceback "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
    row windsurf clean "user +yes +check_srv"
    row claude-code memory "user +yes +check_srv"
    # the same file named: unreadable, nothing run
    doctor --config "$H/work/app/.vscode/mcp.json" --linger 0
    expect named_status 6 "$status"
    grep -qx 'stdiogate: ~/work/app/.vscode/mcp.json: cannot parse: nested too deep' "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
    [ ! -e "$CHECK_PIDS" ]
    # deep, but not too deep for the parser: args that are not strings are not run
    python3 -c 'import sys; d = 900
sys.stdout.write("{\"mcpServers\": {\"deep\": {\"command\": \"check_srv\", \"args\": " + "[" * d + "]" * d + "},\n \"fine\": {\"command\": \"check_srv\", \"args\": [\"banner\"]}}}\n")' \
        >"$H/deep.json"
    doctor --config "$H/deep.json" --fix --linger 0
    expect deep_status 0 "$status"
    row file deep "not run +args is not a list of strings"
    grep -qx 'file fine: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["mcpServers"]["fine"]["args"][0] == "check_srv", d["mcpServers"]["fine"]' "$H/deep.json"
}

# (coverage round of 2026-12-07: the entry and file checks no test's
# configuration failed.)  Entries that are not an object, args that are a
# string, env values that are not strings are listed as not run (the rest
# of the file is); a file that is not UTF-8, not an object, or a directory
# is named unreadable with why, exit status 6.
@test "doctor: bad input: an entry not an object, args a string, env a list are not run; a file not UTF-8, not an object, a directory: status 6 and why" {
    local d=$BATS_TEST_TMPDIR
    printf '%s\n' '{"mcpServers": {"notobj": 5, "argsnotlist": {"command": "check_srv", "args": "banner"},' \
        ' "envbad": {"command": "check_srv", "env": {"A": [1]}}, "fine": {"command": "check_srv"}}}' >"$d/bad.json"
    doctor --config "$d/bad.json" --list
    expect status 0 "$status"
    row file notobj "file +no +not an object"
    row file argsnotlist "file +no +args is not a list"
    row file envbad "file +no +check_srv"
    row file fine "file +yes +check_srv"
    printf '{"mcpServers": {"a": {"command": "caf\xe9"}}}\n' >"$d/latin1.json"
    echo '[{"mcpServers": {}}]' >"$d/array.json"
    mkdir "$d/dir.json"
    local f why
    for f in latin1:'not UTF-8' array:'not an object' dir:'Is a directory'; do
        why=${f#*:} f=$d/${f%%:*}.json
        doctor --config "$f" --list
        expect "status of $f" 6 "$status"
        grep -qx "stdiogate: $f: $why" "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
        ! grep -q Traceback "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
    done
}

@test "doctor: bad input: a lone surrogate in a name or a command is shown escaped; the report, --json and --fix go on" {
    printf '{"mcpServers": {"ev\\ud800il": {"command": "check_srv", "args": ["banner"]},\n "cmd": {"command": "check_srv\\ud800"}}}\n' >"$H/surrogate.json"
    doctor --config "$H/surrogate.json" --linger 0
    expect status 4 "$status"
    ! grep -q Traceback "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
    grep -qF 'ev\ud800il' <<<"$output" || { show; return 1; }
    grep -E '^file +cmd +cannot start' <<<"$output" | grep -qF 'check_srv\ud800' || { show; return 1; }
    doctor --config "$H/surrogate.json" --list
    expect list_status 0 "$status"
    grep -qF 'check_srv\ud800' <<<"$output" || { show; return 1; }
    doctor --config "$H/surrogate.json" --json --linger 0
    expect json_status 4 "$status"
    # jq refuses a lone surrogate: it is U+FFFD there, as a decoder makes it
    expect json_name "$(printf 'ev\357\277\275il')" "$(jq -r '.servers[0].name' "$BATS_TEST_TMPDIR/out.txt")"
    doctor --config "$H/surrogate.json" --fix --linger 0
    expect fix_status 4 "$status"
    grep -qF 'file ev\ud800il: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))["mcpServers"]; assert d["ev\ud800il"]["args"] == ["check_srv", "banner"], d' "$H/surrogate.json"
}

@test "doctor: a project file's control characters cannot make the prompt or --list lie: every name and command is shown escaped (a pty)" {
    mkdir -p "$H/work/app/evil"
    # SGR 8 hides what follows, CR goes back to the line's start, OSC sets the title, a bidi override
    printf '%s\n' '{"mcpServers": {"ok\u001b]0;title\u0007": {"command": "sh",' \
        '  "args": ["-c", "\u001b[8mtouch $HOME/ran-evil\u001b[0m\r check_srv \u202eevil"]}}}' >"$H/work/app/evil/.mcp.json"
    cd "$H/work/app/evil"
    status=0
    timeout "$CHECK_BOUND" python3 "$FIXTURE/on_pty.py" "$GATE" --check --config --timeout 1 --linger 0 \
        >"$BATS_TEST_TMPDIR/tty.out" 2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
    expect status 5 "$status"
    output=$(cat "$BATS_TEST_TMPDIR/tty.out")
    grep -qF "stdiogate: run ok\\x1b]0;title\\x07 from ~/work/app/evil/.mcp.json (sh -c '\\x1b[8mtouch \$HOME/ran-evil\\x1b[0m\\x0d check_srv \\u202eevil')? [y/N] " <<<"$output" || { show; return 1; }
    # nothing raw reached the terminal: no ESC, BEL or CR, no bidi override
    expect raw 0 "$(LC_ALL=C grep -c "$(printf '[\033\007\r]')" "$BATS_TEST_TMPDIR/tty.out")"
    expect bidi 0 "$(grep -c "$(printf '\342\200\256')" "$BATS_TEST_TMPDIR/tty.out")"
    expect markers "" "$(markers)"
    grep -qF "  claude-code ok\\x1b]0;title\\x07 (~/work/app/evil/.mcp.json): cd $H/work/app/evil && sh -c '\\x1b[8mtouch" <<<"$output" || { show; return 1; }
    # --list: the same escapes, nothing raw
    doctor --list
    expect list_status 0 "$status"
    grep -E '^claude-code +ok\\x1b\]0;title\\x07 +project +asks +' "$BATS_TEST_TMPDIR/out.txt" |
        grep -qF "sh -c '\\x1b[8mtouch \$HOME/ran-evil\\x1b[0m\\x0d check_srv \\u202eevil'" || { show; return 1; }
    expect list_raw 0 "$(LC_ALL=C grep -c "$(printf '[\033\007\r]')" "$BATS_TEST_TMPDIR/out.txt")"
}

# A server whose path has an emoji (outside the BMP), an accent, both quotes,
# a backslash and a space: each format must quote it by its own rules.
odd_server() {
    ODD="$H/srv 😀 é'\"\\"
    mkdir -p "$ODD"
    printf '#!/bin/sh\nexec check_srv "$@"\n' >"$ODD/server.sh"
    chmod +x "$ODD/server.sh"
}

@test "doctor: --client quotes each format by its own rules: TOML (tomllib), Lua (lua5.4), JSON (json) and JSONC (jsonc-parser)" {
    odd_server
    client_entry codex "$BATS_TEST_TMPDIR/codex.toml" "$ODD/server.sh" banner -- "é'😀"
    expect codex_status 1 "$status"
    expect codex "$GATE|$ODD/server.sh|banner|--|é'😀" "$(python3 -c 'import sys, tomllib
e = tomllib.load(open(sys.argv[1], "rb"))["mcp_servers"]["server"]
print("|".join([e["command"], *e["args"]]))' "$BATS_TEST_TMPDIR/codex.toml")"
    client_entry helix "$BATS_TEST_TMPDIR/helix.toml" --protocol lsp "$ODD/server.sh" --lsp banner
    expect helix "$GATE|$ODD/server.sh|--lsp|banner" "$(python3 -c 'import sys, tomllib
d = tomllib.load(open(sys.argv[1], "rb"))
e = d["language-server"]["server"]
assert d["language"][0]["language-servers"] == ["server"], d
print("|".join([e["command"], *e["args"]]))' "$BATS_TEST_TMPDIR/helix.toml")"
    client_entry neovim "$BATS_TEST_TMPDIR/neovim.lua" --protocol lsp "$ODD/server.sh" --lsp banner
    expect neovim "server
$GATE
$ODD/server.sh
--lsp
banner" "$(lua5.4 "$FIXTURE/neovim.lua" "$BATS_TEST_TMPDIR/neovim.lua")"
    for c in claude-desktop cursor windsurf gemini copilot vscode zed; do
        client_entry "$c" "$BATS_TEST_TMPDIR/$c.json" "$ODD/server.sh" banner -- "é'😀"
        expect "$c" "$GATE|$ODD/server.sh|banner|--|é'😀" "$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
e = next(iter(next(iter(d.values())).values()))
print("|".join([e["command"], *e["args"]]))' "$BATS_TEST_TMPDIR/$c.json")"
    done
    for c in vscode zed; do
        expect "$c jsonc" "$(python3 -c 'import json, sys; print(json.dumps(json.load(open(sys.argv[1])), separators=(",", ":"), ensure_ascii=False))' "$BATS_TEST_TMPDIR/$c.json")" \
            "$(node "$FIXTURE/jsonc.js" "$BATS_TEST_TMPDIR/$c.json")"
    done
    client_entry claude-code "$BATS_TEST_TMPDIR/claude.sh" "$ODD/server.sh" banner -- "é'😀"
    expect claude_code "claude|mcp|add|server|--|$GATE|$ODD/server.sh|banner|--|é'😀" \
        "$(python3 -c 'import shlex, sys; print("|".join(shlex.split(open(sys.argv[1]).read())))' "$BATS_TEST_TMPDIR/claude.sh")"
    # an argument with ESC and CR: printed escaped in every format, each reading it back exactly
    odd=$(printf 'a\033[8mb\rc')
    doctor --client all --linger 0 check_srv banner -- "$odd"
    expect all_status 1 "$status"
    expect raw 0 "$(LC_ALL=C grep -c "$(printf '[\033\r]')" "$BATS_TEST_TMPDIR/out.txt")"
    client_entry claude-code "$BATS_TEST_TMPDIR/claude.sh" check_srv banner -- "$odd"
    expect claude_code_odd "$(printf '%s|' claude mcp add check_srv -- "$GATE" "$SRV" banner -- "$odd")" \
        "$(bash -c 'eval "set -- $(cat "$1")"; printf "%s|" "$@"' _ "$BATS_TEST_TMPDIR/claude.sh")"
    client_entry codex "$BATS_TEST_TMPDIR/codex.toml" check_srv banner -- "$odd"
    expect codex_odd "$odd" "$(python3 -c 'import sys, tomllib
print(tomllib.load(open(sys.argv[1], "rb"))["mcp_servers"]["check_srv"]["args"][-1], end="")' "$BATS_TEST_TMPDIR/codex.toml")"
    client_entry cursor "$BATS_TEST_TMPDIR/cursor.json" check_srv banner -- "$odd"
    expect cursor_odd "$odd" "$(python3 -c 'import json, sys
print(json.load(open(sys.argv[1]))["mcpServers"]["check_srv"]["args"][-1], end="")' "$BATS_TEST_TMPDIR/cursor.json")"
}

@test "doctor: --fix of an entry whose command has an emoji, quotes and an accent: Codex's TOML (tomllib) and VS Code's JSON with comments (jsonc-parser)" {
    odd_server
    python3 - "$H" "$ODD/server.sh" <<'PY'
import json, sys
home, server = sys.argv[1:]
def toml(s):
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"') + '"'
open(f"{home}/.codex/config.toml", "w").write(
    f"# odd\n[mcp_servers.odd]\ncommand = {toml(server)}\nargs = [\"banner\"]\n")
open(f"{home}/.config/Code/User/mcp.json", "w").write(
    '{\n  // odd\n  "servers": {\n    "odd": {"command": ' + json.dumps(server, ensure_ascii=False)
    + ', "args": ["banner"],},\n  },\n}\n')
PY
    doctor --config "$H/.codex/config.toml" --fix --linger 0
    expect codex_status 0 "$status"
    grep -qx 'codex odd: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    expect codex "$GATE|$ODD/server.sh|banner" "$(python3 -c 'import sys, tomllib
e = tomllib.load(open(sys.argv[1], "rb"))["mcp_servers"]["odd"]
print("|".join([e["command"], *e["args"]]))' "$H/.codex/config.toml")"
    doctor --config "$H/.config/Code/User/mcp.json" --fix --linger 0
    expect vscode_status 0 "$status"
    grep -qx 'vscode odd: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    expect vscode "{\"servers\":{\"odd\":{\"command\":\"$GATE\",\"args\":[\"$ODD/server.sh\",\"banner\"]}}}" \
        "$(node "$FIXTURE/jsonc.js" "$H/.config/Code/User/mcp.json" | sed 's/\\\\/\\/g; s/\\"/"/g')"
    # written as the file writes it: the accent and the emoji as they are
    grep -qF '😀 é' "$H/.config/Code/User/mcp.json"
}

@test "doctor: the table says when the junk came (before the first message, while serving, at exit) and the fix in a user's words" {
    printf '%s\n' '{"mcpServers": {' \
        '  "both": {"command": "check_srv", "args": ["banner", "atexit"]},' \
        '  "bye": {"command": "check_srv", "args": ["atexit"]},' \
        '  "raw": {"command": "check_srv", "args": ["serving", "raw"]},' \
        '  "fine": {"command": "check_srv"}}}' >"$H/phases.json"
    doctor --config "$H/phases.json" --linger 0
    expect status 2 "$status"
    expect table "CLIENT  SERVER  VERDICT                                 FIX                 DETAIL
file    both    junk before the first message, at exit  wrap                check_srv: starting
file    bye     junk at exit                            wrap                bye
file    raw     unguarded junk while serving            wrap with --strict  log: handled tools/list
file    fine    clean                                   none" "$(sed -n 1,5p "$BATS_TEST_TMPDIR/out.txt")"
}

@test "doctor: a server that exits before it answers: the last lines it wrote on stderr are shown (npx's E404), not only that it exited" {
    printf '{"mcpServers": {"gone": {"command": "%s"}, "fine": {"command": "check_srv"}}}\n' "$FIXTURE/e404.sh" >"$H/e404.json"
    doctor --config "$H/e404.json" --linger 0
    expect status 4 "$status"
    row file gone "cannot start +- +the server exited before it answered \(what it wrote last on stderr: below\)"
    expect tail "what gone (file) wrote last on stderr:
  npm error code E404
  npm error 404 Not Found - GET https://registry.example/no-such-mcp-server
  npm error 404 'no-such-mcp-server@*' is not in this registry.
  npm error A complete log of this run can be found in: /tmp/npm-cache/_logs/debug-0.log" \
        "$(sed -n '/^what gone (file) wrote last on stderr:$/,/^$/p' "$BATS_TEST_TMPDIR/out.txt" | sed '/^$/d')"
    doctor --config "$H/e404.json" --json --linger 0
    expect json_tail "npm error A complete log of this run can be found in: /tmp/npm-cache/_logs/debug-0.log" \
        "$(jq -r '.servers[0].before.stderr_tail[-1]' "$BATS_TEST_TMPDIR/out.txt")"
    # from the check's last_bytes: the end of what it wrote, escaped
    jq -r '.servers[0].before.check.runs[0].stderr.last_bytes' "$BATS_TEST_TMPDIR/out.txt" |
        grep -q 'is not in this registry\.\\nnpm error A complete log of this run can be found in: /tmp/npm-cache/_logs/debug-0\.log\\n$' || { show; return 1; }
}

@test "doctor: a server that exits before it answers with one line on stderr (node's 'Cannot find module'): that line is shown" {
    printf '#!/bin/sh\necho "Error: Cannot find module %s" >&2\nexit 1\n' "'/srv/index.js'" >"$H/nomodule.sh"
    chmod +x "$H/nomodule.sh"
    # unwrapped: the one line, then status 1
    run --separate-stderr "$H/nomodule.sh"
    [ "$status" = 1 ] && [ "$stderr" = "Error: Cannot find module '/srv/index.js'" ]
    printf '{"mcpServers": {"nomod": {"command": "%s"}}}\n' "$H/nomodule.sh" >"$H/nomod.json"
    doctor --config "$H/nomod.json" --linger 0
    expect status 4 "$status"
    row file nomod "cannot start +- +the server exited before it answered \(what it wrote last on stderr: below\)"
    # all of it was kept (the check's first and last bytes): no line is cut off
    expect tail "what nomod (file) wrote last on stderr:
  Error: Cannot find module '/srv/index.js'" \
        "$(sed -n '/^what nomod (file) wrote last on stderr:$/,/^$/p' "$BATS_TEST_TMPDIR/out.txt" | sed '/^$/d')"
    doctor --config "$H/nomod.json" --json --linger 0
    expect json_tail '["Error: Cannot find module '"'/srv/index.js'"'"]' \
        "$(jq -c '.servers[0].before.stderr_tail' "$BATS_TEST_TMPDIR/out.txt")"
}

@test "doctor: an entry's env overrides the caller's variable of the same name: the server is checked as its client runs it" {
    # noisy when SRV_MODE=noisy (a banner before the first message), clean otherwise
    printf '#!/bin/sh\nif [ "$SRV_MODE" = noisy ]; then exec check_srv banner; fi\nexec check_srv\n' >"$H/moded.sh"
    chmod +x "$H/moded.sh"
    printf '{"mcpServers": {"moded": {"command": "%s", "env": {"SRV_MODE": "noisy"}}}}\n' "$H/moded.sh" >"$H/moded.json"
    # the caller's shell has SRV_MODE=quiet: the entry's noisy wins, as in the client
    SRV_MODE=quiet doctor --config "$H/moded.json" --linger 0
    expect status 1 "$status"
    row file moded "junk before the first message +wrap +check_srv: starting"
    # the same entry without its env: the caller's quiet, clean (the test can fail)
    printf '{"mcpServers": {"moded": {"command": "%s"}}}\n' "$H/moded.sh" >"$H/moded.json"
    SRV_MODE=quiet doctor --config "$H/moded.json" --linger 0
    expect quiet_status 0 "$status"
    row file moded "clean +none"
}

# npm_layout MAIN: the npm packages laid out as npm installs them, from this
# build: the package stdiogate at MAIN (pkg/npm-launcher.sh as its
# bin/stdiogate), the platform package nested under it.
npm_layout() {
    local main=$1 cpu platform
    case $(uname -m) in x86_64) cpu=x64 ;; *) cpu=arm64 ;; esac
    platform=$main/node_modules/@stdiogate/linux-$cpu
    mkdir -p "$main/bin" "$platform/bin" "$platform/lib/stdiogate"
    cp "$ROOT/pkg/npm-launcher.sh" "$main/bin/stdiogate"
    cp "$ROOT/stdiogate" "$platform/bin/stdiogate"
    cp "$ROOT/libstdiogate.so" "$ROOT/stdiogate-check" "$ROOT/stdiogate-filter" "$platform/lib/stdiogate/"
    cp "$ROOT/doctor/stdiogate-doctor" "$platform/lib/stdiogate/"
    chmod +x "$main/bin/stdiogate"
}

# fix_with LAUNCHER FILE: LAUNCHER --check --config FILE --fix, its status
# and stdout in $status and $output (stderr in err.txt).
fix_with() {
    status=0
    "$1" --check --config "$2" --fix --linger 0 >"$BATS_TEST_TMPDIR/out.txt" \
        2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
    output=$(cat "$BATS_TEST_TMPDIR/out.txt")
}

# chatty_entry FILE: the "chatty" server's command and arguments, joined by |.
chatty_entry() {
    python3 -c 'import json, sys
e = json.load(open(sys.argv[1]))["mcpServers"]["chatty"]
print("|".join([e["command"], *e["args"]]))' "$1"
}

@test "doctor: --fix from an npm install writes npm's bin link, from npx's cache 'npx -y stdiogate', never a path inside a package" {
    printf '{"mcpServers": {"chatty": {"command": "check_srv", "args": ["banner"]}}}\n' >"$H/npm.json"
    cp "$H/npm.json" "$H/npx.json"
    # npm install -g --prefix G: G/bin/stdiogate -> ../lib/node_modules/stdiogate/bin/stdiogate
    G=$BATS_TEST_TMPDIR/g
    npm_layout "$G/lib/node_modules/stdiogate"
    mkdir -p "$G/bin" && ln -s ../lib/node_modules/stdiogate/bin/stdiogate "$G/bin/stdiogate"
    fix_with "$G/bin/stdiogate" "$H/npm.json"
    expect npm_status 0 "$status"
    grep -qx 'file chatty: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    expect npm_entry "$G/bin/stdiogate|check_srv|banner" "$(chatty_entry "$H/npm.json")"
    # --client too
    "$G/bin/stdiogate" --check --client cursor --json --linger 0 check_srv banner >"$BATS_TEST_TMPDIR/client.json" || true
    expect npm_client "$G/bin/stdiogate" "$(jq -r '.client_entries.cursor | fromjson | .mcpServers[].command' "$BATS_TEST_TMPDIR/client.json")"
    # npx: npm's cache, which npm may clear: the entry runs npx instead
    X=$BATS_TEST_TMPDIR/npm-cache/_npx/0123456789abcdef
    npm_layout "$X/node_modules/stdiogate"
    mkdir -p "$X/node_modules/.bin" && ln -s ../stdiogate/bin/stdiogate "$X/node_modules/.bin/stdiogate"
    fix_with "$X/node_modules/.bin/stdiogate" "$H/npx.json"
    expect npx_status 0 "$status"
    grep -qx 'file chatty: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    expect npx_entry "npx|-y|stdiogate|check_srv|banner" "$(chatty_entry "$H/npx.json")"
    # ... which counts as wrapped: a second --fix changes nothing
    cp "$H/npx.json" "$H/npx.fixed"
    fix_with "$X/node_modules/.bin/stdiogate" "$H/npx.json"
    cmp "$H/npx.json" "$H/npx.fixed"
    grep -qx 'nothing to fix' <<<"$output" || { show; return 1; }
    # uvx: uv's cache, likewise
    U=$BATS_TEST_TMPDIR/cache/uv/archive-v0/0123456789abcdef
    mkdir -p "$U/bin" "$U/lib/stdiogate"
    cp "$ROOT/stdiogate" "$U/bin/"
    cp "$ROOT/libstdiogate.so" "$ROOT/stdiogate-check" "$ROOT/stdiogate-filter" "$ROOT/doctor/stdiogate-doctor" "$U/lib/stdiogate/"
    XDG_CACHE_HOME=$BATS_TEST_TMPDIR/cache "$U/bin/stdiogate" --check --client cursor --json --linger 0 check_srv banner \
        >"$BATS_TEST_TMPDIR/client.json" || true
    expect uvx_client "uvx|stdiogate|$SRV|banner" \
        "$(jq -r '.client_entries.cursor | fromjson | .mcpServers[] | [.command, .args[]] | join("|")' "$BATS_TEST_TMPDIR/client.json")"
    # a plain install: the path it was run by, as before
    "$GATE" --check --client cursor --json --linger 0 check_srv banner >"$BATS_TEST_TMPDIR/client.json" || true
    expect plain_client "$GATE" "$(jq -r '.client_entries.cursor | fromjson | .mcpServers[].command' "$BATS_TEST_TMPDIR/client.json")"
}

# (coverage round 2 of 2026-12-07: no entry's cwd was missing.)  An entry's
# cwd is where its server runs (a relative command found there); a cwd that
# does not exist: "cannot start", status 4, said why, nothing run.
@test "doctor: an entry's cwd: the server runs there; a cwd that does not exist cannot start (4), said why" {
    mkdir "$H/srvdir"
    printf '#!/bin/sh\nexec check_srv\n' >"$H/srvdir/srv.sh"
    chmod 755 "$H/srvdir/srv.sh"
    printf '{"mcpServers": {"gone": {"command": "check_srv", "cwd": "%s/nope"}, "here": {"command": "./srv.sh", "cwd": "%s/srvdir"}}}\n' \
        "$H" "$H" >"$H/cwd.json"
    doctor --config "$H/cwd.json" --linger 0 --json
    expect status 4 "$status"
    expect gone "cannot start|4|cwd $H/nope: no such directory|null" \
        "$(jq -r '.servers[] | select(.name == "gone") | .before | "\(.verdict)|\(.status)|\(.detail)|\(.check)"' "$BATS_TEST_TMPDIR/out.txt")"
    expect here "clean|0" "$(jq -r '.servers[] | select(.name == "here") | .before | "\(.verdict)|\(.status)"' "$BATS_TEST_TMPDIR/out.txt")"
}

# (coverage round 2 of 2026-12-07: npm's other layouts.)  npm hoists the
# platform package beside the main one (PROJECT/node_modules/@stdiogate/
# linux-CPU): the entry is the project's bin link; a package without a bin
# link (npm --no-bin-links): the package's launcher; the platform package
# alone (no launcher to name): the path it was run by.  And uv's cache where
# UV_CACHE_DIR puts it: uvx.
client_command() {  # client_command WRAPPER: the command --client cursor prints
    "$1" --check --client cursor --json --linger 0 check_srv banner >"$BATS_TEST_TMPDIR/client.json" || true
    jq -r '.client_entries.cursor | fromjson | .mcpServers[].command' "$BATS_TEST_TMPDIR/client.json"
}

@test "doctor: --client from npm's other layouts: a hoisted platform package (the bin link), no bin link (the launcher), the platform package alone (its own path); UV_CACHE_DIR's uv cache (uvx)" {
    local cpu P Q R
    case $(uname -m) in x86_64) cpu=x64 ;; *) cpu=arm64 ;; esac
    # hoisted: P/stdiogate and P/@stdiogate/linux-CPU side by side, P/.bin
    P=$BATS_TEST_TMPDIR/hoisted/node_modules
    npm_layout "$P/stdiogate"
    mv "$P/stdiogate/node_modules/@stdiogate" "$P/"
    mkdir -p "$P/.bin" && ln -s ../stdiogate/bin/stdiogate "$P/.bin/stdiogate"
    expect hoisted "$P/.bin/stdiogate" "$(client_command "$P/.bin/stdiogate")"
    # no bin link: the launcher inside the package
    Q=$BATS_TEST_TMPDIR/nolinks/node_modules
    npm_layout "$Q/stdiogate"
    expect no_link "$Q/stdiogate/bin/stdiogate" "$(client_command "$Q/stdiogate/bin/stdiogate")"
    # the platform package alone
    R=$BATS_TEST_TMPDIR/alone/node_modules
    npm_layout "$R/stdiogate"
    mv "$R/stdiogate/node_modules/@stdiogate" "$R/" && rm -r "$R/stdiogate"
    expect alone "$R/@stdiogate/linux-$cpu/bin/stdiogate" "$(client_command "$R/@stdiogate/linux-$cpu/bin/stdiogate")"
    # uv's cache where UV_CACHE_DIR puts it: the command that fetches it again
    local U=$BATS_TEST_TMPDIR/uvcache/archive-v0/0123456789abcdef
    mkdir -p "$U/bin" "$U/lib/stdiogate"
    cp "$ROOT/stdiogate" "$U/bin/"
    cp "$ROOT/libstdiogate.so" "$ROOT/stdiogate-check" "$ROOT/stdiogate-filter" "$ROOT/doctor/stdiogate-doctor" "$U/lib/stdiogate/"
    expect uv_cache_dir uvx "$(UV_CACHE_DIR=$BATS_TEST_TMPDIR/uvcache client_command "$U/bin/stdiogate")"
}

# Zed reads context_servers from a project's .zed/settings.json too (run once
# the worktree is trusted: a project server, asked for), and runs a server
# from the project's root; a .zed/settings.json named as FILE is the same.
@test "doctor: Zed's project settings (.zed/settings.json): a project server, found or named, run from the project" {
    j() { jq -r "$@" "$BATS_TEST_TMPDIR/out.txt"; }
    local sel='.servers[] | select(.name == "zed-project")'
    doctor --list --json
    expect status 0 "$status"
    expect found "zed project false $H/work/app" "$(j "$sel | \"\(.client) \(.scope) \(.approved) \(.cwd)\"")"
    doctor --list --json "$H/work/app/.zed/settings.json"
    expect named_status 0 "$status"
    expect named "zed true $H/work/app" "$(j "$sel | \"\(.client) \(.approved) \(.cwd)\"")"
    doctor --config .zed/settings.json --timeout 5 --linger 0
    expect run_status 0 "$status"
    row zed zed-project "clean +none"
    expect markers "ran-zed-project " "$(markers)"
}

# Issue 45: the doctor run from outside the project directory (its parent,
# HOME, /) finds and treats the project's files as from inside it: --list
# --json is the same from each, and --fix of a project file whose server
# names a script relative to the project runs it there and writes the same
# entry.  (Every other test runs from the project.)
@test "doctor: run from outside the project (a subdirectory, its parent, HOME, /): the same --list, the same --fix of a project file with a relative script" {
    printf '#!/bin/sh\nexec check_srv banner\n' >"$H/work/app/server.sh"
    chmod 755 "$H/work/app/server.sh"
    printf '{\n  "mcpServers": {\n    "rel": {"command": "sh", "args": ["./server.sh"]}\n  }\n}\n' >"$H/work/app/.cursor/mcp.json"
    cp "$H/work/app/.cursor/mcp.json" "$BATS_TEST_TMPDIR/cursor.orig"
    mkdir -p "$H/work/app/sub"
    local d want_list want_fix want_file
    for d in "$H/work/app" "$H/work/app/sub" "$H/work" "$H" /; do
        cd "$d"
        cp "$BATS_TEST_TMPDIR/cursor.orig" "$H/work/app/.cursor/mcp.json"
        rm -f "$H/work/app/.cursor/mcp.json.stdiogate-backup"*
        doctor --list --json
        expect "list status from $d" 0 "$status"
        if [ -z "${want_list:-}" ]; then want_list=$output; fi
        [ "$output" = "$want_list" ] || { echo "--list --json from $d differs from the project's" >&2; diff <(echo "$want_list") <(echo "$output") >&2; false; }
        doctor --config "$H/work/app/.cursor/mcp.json" --fix --linger 0
        expect "fix status from $d" 0 "$status"
        grep -qx 'cursor rel: junk -> clean: fixed' <<<"$output" || { show; false; }
        if [ -z "${want_fix:-}" ]; then want_fix=$output want_file=$(cat "$H/work/app/.cursor/mcp.json"); fi
        expect "fix report from $d" "$want_fix" "$output"
        expect "fixed file from $d" "$want_file" "$(cat "$H/work/app/.cursor/mcp.json")"
        cmp "$BATS_TEST_TMPDIR/cursor.orig" "$H/work/app/.cursor/mcp.json.stdiogate-backup"
    done
    grep -qF "\"args\": [\"sh\", \"./server.sh\"]" <<<"$want_file"
}

# Issue 45: the mode kept by --fix, for the file and its backup, whatever
# the mode (not only 600) and the umask the doctor runs under.
@test "doctor: --fix keeps each file mode (600, 604, 640, 644, 664, 755) for the file and its backup, under umask 077 or 002" {
    local f=$H/.codeium/windsurf/mcp_config.json mode mask pair
    cp "$f" "$BATS_TEST_TMPDIR/windsurf.orig"
    # each mode once, under the umask that would change it most
    for pair in 600/002 604/077 640/077 644/077 664/077 755/077 644/002; do
        mode=${pair%/*} mask=${pair#*/}
        cp "$BATS_TEST_TMPDIR/windsurf.orig" "$f"
        rm -f "$f.stdiogate-backup"*
        chmod "$mode" "$f"
        (umask "$mask"; doctor --config "$f" --fix --linger 0; echo "$status" >"$BATS_TEST_TMPDIR/st")
        expect "status ($mode, umask $mask)" 0 "$(cat "$BATS_TEST_TMPDIR/st")"
        grep -qF "\"command\": \"$GATE\"" "$f"
        expect "mode (umask $mask)" "$mode" "$(stat -c %a "$f")"
        expect "backup mode (umask $mask)" "$mode" "$(stat -c %a "$f.stdiogate-backup")"
    done
}

# An entry turned off in its file ("disabled": true, or "enabled": false as
# Codex writes it) is listed, not run, and left alone by --fix; its twin
# turned on runs (a positive control for the markers) and is wrapped.
@test "doctor: entries turned off (disabled = true, enabled = false) are not run and not fixed; their twins turned on are" {
    local codex=$H/.codex/config.toml cursor=$H/.cursor/mcp.json
    cat >"$codex" <<'TOML'
[mcp_servers.turned-off]
command = "sh"
args = ["-c", "touch \"$HOME/ran-codex-off\"; exec check_srv banner"]
enabled = false

[mcp_servers.turned-on]
command = "sh"
args = ["-c", "touch \"$HOME/ran-codex-on\"; exec check_srv banner"]
enabled = true
TOML
    cat >"$cursor" <<'JSON'
{
  "mcpServers": {
    "off-too": {"command": "sh", "args": ["-c", "touch \"$HOME/ran-cursor-off\"; exec check_srv banner"], "disabled": true},
    "on-too": {"command": "sh", "args": ["-c", "touch \"$HOME/ran-cursor-on\"; exec check_srv banner"], "disabled": false}
  }
}
JSON
    doctor --config "$codex" --fix --timeout 10 --linger 0
    row codex turned-off "not run +disabled"
    row codex turned-on "junk before the first message +wrap +check_srv: starting"
    doctor --config "$cursor" --fix --timeout 10 --linger 0
    row cursor off-too "not run +disabled"
    row cursor on-too "junk before the first message +wrap +check_srv: starting"
    expect markers "ran-codex-on ran-cursor-on " "$(markers)"
    # --fix wrapped the twins turned on, and only them
    python3 - "$codex" "$cursor" <<'PY' || { show; cat "$codex" "$cursor"; return 1; }
import json, sys, tomllib
codex = tomllib.load(open(sys.argv[1], "rb"))["mcp_servers"]
cursor = json.load(open(sys.argv[2]))["mcpServers"]
assert codex["turned-off"]["command"] == "sh", codex
assert cursor["off-too"]["command"] == "sh", cursor
assert codex["turned-on"]["command"].endswith("stdiogate"), codex
assert cursor["on-too"]["command"].endswith("stdiogate"), cursor
PY
}
