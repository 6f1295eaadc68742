#!/usr/bin/env bats
# SPDX-License-Identifier: MIT
# The doctor's families (issue 45; docs/TESTING.md, "The doctor"): every
# member of each family a one-line bug would treat apart, one row each,
# named when it fails: where each client keeps its file, the forms of a
# file and of an entry, Claude Code's approvals, the clients' variables,
# every fetcher's form of an already wrapped entry, each launcher's advice
# on a timeout, the verdicts doctor.bats has no server for, --fix's edits
# in every layout of JSON, JSON with comments and TOML (byte for byte), a
# directory --fix cannot write, and the bounds of the numeric options.
# Most rows are --list --json (nothing runs); the servers are
# tests/bin/check_srv and small scripts around it, as in doctor.bats.

bats_require_minimum_version 1.5.0

load ../helpers
load ../check_helpers
load ../doctor_helpers

setup() {
    doctor_home || return 1
    # banner-srv: a server with a banner, for entries without args
    mkdir "$H/bin"
    printf '#!/bin/sh\nexec check_srv banner "$@"\n' >"$H/bin/banner-srv"
    chmod 755 "$H/bin/banner-srv"
    export PATH=$H/bin:$PATH
}

j() { jq -r "$@" "$BATS_TEST_TMPDIR/out.txt"; }

# same NAME WANT GOT: as expect, with a line-by-line diff when they differ.
same() {
    [ "$2" = "$3" ] && return 0
    echo "$1: differs (- expected, + got):"
    diff <(printf '%s\n' "$2") <(printf '%s\n' "$3") || true
    show
    return 1
}

# ---------------------------------------------------------------- where each client keeps its file

# user_file CLIENT|PATH|KEYS[|VAR=DIR]: in an empty HOME, a server "probe" in
# the file PATH (a blank in it written @) under KEYS (dotted), with VAR set to
# HOME/DIR: --list --json lists it once, with CLIENT, scope user and that
# file; CLIENT "-": no client reads the file, nothing is listed.
user_file() {
    local client path keys var e
    IFS='|' read -r client path keys var <<<"$1"
    e=$(mktemp -d "$BATS_TEST_TMPDIR/e.XXXXXX")
    path=$e/${path//@/ }
    mkdir -p "$(dirname "$path")"
    if [[ $path == *.toml ]]; then
        printf '[%s.probe]\ncommand = "check_srv"\n' "$keys" >"$path"
    else
        local k open="" close=""
        for k in ${keys//./ }; do open+="{\"$k\": " close+="}"; done
        printf '%s{"probe": {"command": "check_srv"}}%s\n' "$open" "$close" >"$path"
    fi
    [ -z "$var" ] || export "${var%%=*}=$e/${var#*=}"
    cd "$e" || return 1
    HOME=$e doctor --list --json
    expect "$1 status" 0 "$status"
    if [ "$client" = - ]; then
        expect "$1 listed" "" "$(j '.servers[] | .name')"
    else
        expect "$1 listed" "$client|user|probe|$path|check_srv" \
            "$(j '.servers[] | "\(.client)|\(.scope)|\(.name)|\(.file)|\(.command | join(" "))"')"
    fi
}

@test "doctor families: each client's user file where the client keeps it (XDG_CONFIG_HOME, CODEX_HOME, COPILOT_HOME, Code - Insiders, VSCodium): listed once with its client" {
    row_table user_file \
        "claude-code|.claude.json|mcpServers" \
        "claude-desktop|.config/Claude/claude_desktop_config.json|mcpServers" \
        "claude-desktop|xdg/Claude/claude_desktop_config.json|mcpServers|XDG_CONFIG_HOME=xdg" \
        "cursor|.cursor/mcp.json|mcpServers" \
        "vscode|.config/Code/User/mcp.json|servers" \
        "vscode|.config/Code/User/settings.json|mcp.servers" \
        "vscode|.config/Code@-@Insiders/User/mcp.json|servers" \
        "vscode|.config/Code@-@Insiders/User/settings.json|mcp.servers" \
        "vscode|.config/VSCodium/User/mcp.json|servers" \
        "vscode|xdg/Code/User/settings.json|mcp.servers|XDG_CONFIG_HOME=xdg" \
        "windsurf|.codeium/windsurf/mcp_config.json|mcpServers" \
        "zed|.config/zed/settings.json|context_servers" \
        "zed|xdg/zed/settings.json|context_servers|XDG_CONFIG_HOME=xdg" \
        "codex|.codex/config.toml|mcp_servers" \
        "codex|ch/config.toml|mcp_servers|CODEX_HOME=ch" \
        "gemini|.gemini/settings.json|mcpServers" \
        "copilot|.copilot/mcp-config.json|mcpServers" \
        "copilot|cp/mcp-config.json|mcpServers|COPILOT_HOME=cp" \
        "-|.copilot/mcp-config.json|mcpServers|COPILOT_HOME=cp" \
        "-|.config/Code/mcp.json|servers" \
        "-|.codex/config.toml|mcp_servers|CODEX_HOME=ch"
}

# VS Code's documentation names .vscode/mcp.json for a workspace's servers;
# a project's .vscode/settings.json is not where they are (a server there
# would not run in VS Code). The user's User/settings.json "mcp.servers" is
# (the older place).
@test "doctor families: a project's .vscode/settings.json (mcp.servers) is not read, in the project nor in HOME; the user's User/settings.json mcp.servers still is" {
    printf '{"mcp": {"servers": {"in-project-settings": {"command": "check_srv"}}}}\n' >"$H/work/app/.vscode/settings.json"
    mkdir -p "$H/.vscode"
    printf '{"mcp": {"servers": {"in-home-settings": {"command": "check_srv"}}}}\n' >"$H/.vscode/settings.json"
    doctor --list --json
    expect status 0 "$status"
    same vscode "user|banner-in-settings|$H/.config/Code/User/settings.json
user|glued|$H/.config/Code/User/mcp.json
user|github|$H/.config/Code/User/mcp.json
project|vscode-project|$H/work/app/.vscode/mcp.json" \
        "$(j '.servers[] | select(.client == "vscode") | "\(.scope)|\(.name)|\(.file)"')"
    expect vscode_files "$H/.config/Code/User/settings.json $H/.config/Code/User/mcp.json $H/work/app/.vscode/mcp.json" \
        "$(j '[.files[] | select(.client == "vscode") | .path] | join(" ")')"
    expect settings_servers "" "$(j '.servers[] | select(.name | test("^in-(project|home)-settings$")) | .name')"
    # the text --list: no row, no file named
    doctor --list
    expect text_status 0 "$status"
    ! grep -q -e 'in-project-settings' -e 'in-home-settings' -e '\.vscode/settings\.json' <<<"$output" || { show; return 1; }
    grep -Eq '^vscode +banner-in-settings +user +yes +check_srv' <<<"$output" || { show; return 1; }
}

# ---------------------------------------------------------------- Claude Code's approvals

# approval PROJECT SETTINGS REPO TEAM: with PROJECT in ~/.claude.json's entry
# of the project and SETTINGS in ~/.claude/settings.json (each a preset,
# below), the project's .mcp.json servers from-the-repo (the one each preset
# names) and team-clean (named by none) are approved (run) or not (ask).
approval() {
    python3 - "$H" "$1" "$2" <<'PY'
import json, sys
home, project, settings = sys.argv[1:]
presets = {"none": {}, "enabled": {"enabledMcpjsonServers": ["from-the-repo"]},
           "all": {"enableAllProjectMcpServers": True},
           "disabled": {"disabledMcpjsonServers": ["from-the-repo"]},
           "disabled+all": {"disabledMcpjsonServers": ["from-the-repo"], "enableAllProjectMcpServers": True}}
with open(f"{home}/.claude.json") as f:
    claude = json.load(f)
p = claude["projects"][f"{home}/work/app"]
for k in ("enabledMcpjsonServers", "disabledMcpjsonServers", "enableAllProjectMcpServers"):
    p.pop(k, None)
p.update(presets[project])
with open(f"{home}/.claude.json", "w") as f:
    json.dump(claude, f, indent=2)
with open(f"{home}/.claude/settings.json", "w") as f:
    json.dump(presets[settings], f)
PY
    doctor --list --json
    expect "$* status" 0 "$status"
    # (the other clients' project files: unapproved whatever Claude Code says)
    expect "$*" "cursor-project=false from-the-repo=$3 gemini-project=false team-clean=$4 vscode-project=false zed-project=false" \
        "$(j '[.servers[] | select(.scope == "project") | "\(.name)=\(.approved)"] | sort | join(" ")')"
}

@test "doctor families: Claude Code's approvals of a project server, in the project's entry or in ~/.claude/settings.json; disabled wins from either" {
    row_table approval \
        "none none false false" \
        "enabled none true false" \
        "all none true true" \
        "none enabled true false" \
        "none all true true" \
        "disabled all false true" \
        "all disabled false true" \
        "disabled+all none false true" \
        "none disabled+all false true"
}

@test "doctor families: a Claude Code local server whose project directory is gone is not run, unless its entry has a cwd of its own" {
    python3 - "$H" <<'PY'
import json, sys
home = sys.argv[1]
with open(f"{home}/.claude.json") as f:
    claude = json.load(f)
claude["projects"][f"{home}/gone"] = {"mcpServers": {
    "orphan": {"command": "check_srv"},
    "orphan-cwd": {"command": "check_srv", "cwd": home}}}
with open(f"{home}/.claude.json", "w") as f:
    json.dump(claude, f, indent=2)
PY
    doctor --list --json
    expect status 0 "$status"
    same servers "orphan|local|its project $H/gone is gone|$H/gone
orphan-cwd|local|null|$H" \
        "$(j '.servers[] | select(.name | startswith("orphan")) | "\(.name)|\(.scope)|\(.skipped)|\(.cwd)"')"
}

# ---------------------------------------------------------------- the forms of a file

# file_form NAME STATUS SERVERS: the file NAME (its text below) named to
# --list --json: exit STATUS, the servers NAME:COMMAND (words joined by
# blanks, servers by ","), no traceback.
file_form() {
    local name=$1 want_status=$2 want=${*:3} f
    want=${want#-}
    f=$BATS_TEST_TMPDIR/forms/$name
    mkdir -p "$(dirname "$f")"
    case $name in
        bom.json) printf '\357\273\277{"mcpServers": {"s": {"command": "check_srv", "args": ["banner"]}}}\n' ;;
        bom-crlf-comments.json) printf '\357\273\277// user settings\r\n{\r\n  "mcp": {"servers": {"s": {"command": "check_srv", "args": ["banner"]}}}, // mcp\r\n}\r\n' ;;
        empty.json) printf '' ;;
        blank.json) printf '\n  \n' ;;
        comments-only.json) printf '// nothing here yet\n/* none */\n' ;;
        comment-at-end.json) printf '{"mcpServers": {"s": {"command": "check_srv", "args": ["banner"]}}}\n// the end' ;;
        array-comma.json) printf '{"mcpServers": {"s": {"command": "check_srv", "args": ["banner", "x",]}}}\n' ;;
        comma-comment.json) printf '{"mcpServers": {"s": {"command": "check_srv", "args": ["banner", /* last */ ], // end\n}, }, }\n' ;;
        string-comma.json) printf '{"mcpServers": {"s": {"command": "check_srv", "args": ["a,]", "b,}"]}}}\n' ;;
        missing-key.json) printf '{"globalShortcut": ""}\n' ;;
        servers-null.json) printf '{"mcpServers": null}\n' ;;
        servers-list.json) printf '{"mcpServers": [{"command": "check_srv"}]}\n' ;;
        not-json.json) printf '{"mcpServers": {"s": {"command": "check_srv"}\n' ;;
        empty.toml) printf '' ;;
        no-table.toml) printf 'model = "o4-mini"\n' ;;
        inline.toml) printf 'mcp_servers = { s = { command = "check_srv", args = ["banner"] } }\n' ;;
        dotted.toml) printf '[mcp_servers]\ns.command = "check_srv"\ns.args = ["banner"]\n' ;;
        array-of-tables.toml) printf '[[profiles]]\nname = "a"\n\n[mcp_servers.s]\ncommand = "check_srv"\nargs = ["banner",]\n\n[[profiles]]\nname = "b"\n' ;;
        crlf.toml) printf '[mcp_servers.s]\r\ncommand = "check_srv"\r\nargs = [\r\n  "banner",\r\n]\r\n' ;;
        not-toml.toml) printf '[mcp_servers.s]\ncommand = check_srv\n' ;;
    esac >"$f"
    doctor --json --list "$f"
    expect "$name status" "$want_status" "$status"
    expect "$name servers" "$want" "$(j '[.servers[] | "\(.name):\(.command | join(" "))"] | join(",")')"
    if [ "$want_status" = 6 ]; then
        grep -q "^stdiogate: $f: cannot parse: " "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
    else
        expect "$name error" null "$(j '.files[0].error')"
    fi
    ! grep -q Traceback "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
}

@test "doctor families: each form of a file: a BOM, CRLF, empty, only comments, trailing commas in arrays and objects, a missing key, TOML's inline tables, dotted keys, arrays of tables; unparsable: 6" {
    row_table file_form \
        "bom.json 0 s:check_srv banner" \
        "bom-crlf-comments.json 0 s:check_srv banner" \
        "empty.json 0 -" \
        "blank.json 0 -" \
        "comments-only.json 0 -" \
        "comment-at-end.json 0 s:check_srv banner" \
        "array-comma.json 0 s:check_srv banner x" \
        "comma-comment.json 0 s:check_srv banner" \
        "string-comma.json 0 s:check_srv a,] b,}" \
        "missing-key.json 0 -" \
        "servers-null.json 0 -" \
        "servers-list.json 0 -" \
        "not-json.json 6 -" \
        "empty.toml 0 -" \
        "no-table.toml 0 -" \
        "inline.toml 0 s:check_srv banner" \
        "dotted.toml 0 s:check_srv banner" \
        "array-of-tables.toml 0 s:check_srv banner" \
        "crlf.toml 0 s:check_srv banner" \
        "not-toml.toml 6 -"
}

# A file the doctor may not read: as root (who reads every file) the doctor
# runs without the capabilities that let root read past a file's mode (as
# nobody it could not reach the tree where that is under a directory of
# mode 700: /root, tests/mutate.sh's copies).
@test "doctor families: a configuration file it may not read: named with why, exit 6, the other files still read" {
    local e=$BATS_TEST_TMPDIR/perm
    mkdir -p "$e/.cursor" "$e/.codeium/windsurf"
    printf '{"mcpServers": {"hidden": {"command": "check_srv"}}}\n' >"$e/.cursor/mcp.json"
    printf '{"mcpServers": {"seen": {"command": "check_srv"}}}\n' >"$e/.codeium/windsurf/mcp_config.json"
    chmod 000 "$e/.cursor/mcp.json"
    local as=()
    [ "$(id -u)" != 0 ] || as=(setpriv --bounding-set -dac_override,-dac_read_search --)
    cd "$e"
    status=0
    HOME=$e timeout "$CHECK_BOUND" "${as[@]}" "$GATE" --check --list >"$BATS_TEST_TMPDIR/out.txt" \
        2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
    output=$(cat "$BATS_TEST_TMPDIR/out.txt")
    expect status 6 "$status"
    grep -qx 'stdiogate: ~/.cursor/mcp.json: Permission denied' "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
    grep -Eq '^windsurf +seen +user +yes +check_srv$' <<<"$output" || { show; return 1; }
    ! grep -q hidden <<<"$output" || { show; return 1; }
}

# explicit_file PATH CLIENT CWD: a FILE named to --list --json (at PATH under
# a directory X, "." in CWD for X): its client from its name, and where its
# servers run (the project: X for .vscode/, .cursor/, .gemini/, else the file's directory).
explicit_file() {
    local x=$BATS_TEST_TMPDIR/x$RANDOM f
    f=$x/$1
    mkdir -p "$(dirname "$f")"
    case $1 in
        *.toml) printf '[mcp_servers.s]\ncommand = "check_srv"\n' ;;
        *.vscode/*) printf '{"servers": {"s": {"command": "check_srv"}}}\n' ;;
        *) printf '{"mcpServers": {"s": {"command": "check_srv"}}}\n' ;;
    esac >"$f"
    cd "$H" || return 1
    doctor --json --list "$f"
    expect "$1 status" 0 "$status"
    expect "$1" "$2|$(cd "$x/$3" && pwd)" "$(j '.servers[] | "\(.client)|\(.cwd)"')"
}

@test "doctor families: a FILE named: its client from its name, its servers run in its project (the parent of .vscode, .cursor, .gemini; a .claude.json's projects)" {
    row_table explicit_file \
        ".vscode/mcp.json vscode ." \
        ".cursor/mcp.json cursor ." \
        ".gemini/settings.json gemini ." \
        ".mcp.json claude-code ." \
        "zed/settings.json zed zed" \
        ".codex/config.toml codex .codex" \
        "other.json file ."
    # ~/.claude.json named: its local servers run in their projects, as discovered
    doctor --json --list "$H/.claude.json"
    expect claude_json_status 0 "$status"
    expect claude_json "chatty|claude-code|$H
local-logger|claude-code|$H/work/app" \
        "$(j '.servers[] | select(.name == "chatty" or .name == "local-logger") | "\(.name)|\(.client)|\(.cwd)"')"
}

# ---------------------------------------------------------------- the forms of an entry

@test "doctor families: each form of an entry: transports (stdio, sse, http, url, serverUrl, httpUrl), args absent or empty, no command, turned off or on, a command with blanks, env, cwd, Zed's older form" {
    local d=$BATS_TEST_TMPDIR/entries
    mkdir -p "$d"
    cat >"$d/entries.json" <<JSON
{"mcpServers": {
  "typed-stdio": {"type": "stdio", "command": "check_srv", "args": ["banner"]},
  "typed-sse": {"type": "sse", "url": "https://h/sse"},
  "typed-http": {"type": "http", "url": "https://h/mcp"},
  "url-only": {"url": "https://h/mcp"},
  "server-url": {"serverUrl": "https://h/mcp"},
  "http-url": {"httpUrl": "https://h/mcp"},
  "args-absent": {"command": "check_srv"},
  "args-empty": {"command": "check_srv", "args": []},
  "command-empty": {"command": ""},
  "command-list": {"command": ["check_srv"]},
  "disabled": {"command": "check_srv", "disabled": true},
  "enabled-false": {"command": "check_srv", "enabled": false},
  "disabled-false": {"command": "check_srv", "disabled": false},
  "enabled-true": {"command": "check_srv", "enabled": true},
  "blanks": {"command": "/opt/my server/bin/srv", "args": ["--dir", "a b"]},
  "env-cwd": {"command": "check_srv", "env": {"B_VAR": "2", "A_VAR": "1"}, "cwd": "/srv"}
}}
JSON
    doctor --json --list "$d/entries.json"
    expect status 0 "$status"
    same entries "typed-stdio|stdio|null|check_srv+banner||$d
typed-sse|sse|not stdio (sse: https://h/sse)|||null
typed-http|http|not stdio (http: https://h/mcp)|||null
url-only|http|not stdio (url: https://h/mcp)|||null
server-url|http|not stdio (url: https://h/mcp)|||null
http-url|http|not stdio (url: https://h/mcp)|||null
args-absent|stdio|null|check_srv||$d
args-empty|stdio|null|check_srv||$d
command-empty|?|no command|||null
command-list|?|no command|||null
disabled|stdio|disabled|check_srv||$d
enabled-false|stdio|disabled|check_srv||$d
disabled-false|stdio|null|check_srv||$d
enabled-true|stdio|null|check_srv||$d
blanks|stdio|null|/opt/my server/bin/srv+--dir+a b||$d
env-cwd|stdio|null|check_srv|A_VAR,B_VAR|/srv" \
        "$(j '.servers[] | "\(.name)|\(.transport)|\(.skipped)|\(.command | join("+"))|\(.env_names | join(","))|\(.cwd)"')"
    # Zed's older form keeps path, args, env (and cwd) under "command"
    mkdir -p "$d/zed"
    printf '{"context_servers": {"old": {"command": {"path": "check_srv", "args": ["banner"], "env": {"Z_VAR": "1"}}, "settings": {}}}}\n' \
        >"$d/zed/settings.json"
    doctor --json --list "$d/zed/settings.json"
    expect zed_status 0 "$status"
    expect zed "zed|old|null|check_srv+banner|Z_VAR" \
        "$(j '.servers[] | "\(.client)|\(.name)|\(.skipped)|\(.command | join("+"))|\(.env_names | join(","))"')"
}

# An env value null: the client starts the server without that variable,
# even when the client's own environment has it (a token the server must
# not see, a mode it must not take). The server here is noisy whenever
# SRV_MODE is set at all, empty included.
@test "doctor families: an entry's env value null: the server runs with the variable unset, the caller's value too (Claude Code's and VS Code's files); \"\" and {} leave it set" {
    printf '#!/bin/sh\nif [ -n "${SRV_MODE+set}" ]; then exec check_srv banner; fi\nexec check_srv\n' >"$H/bin/unset-srv"
    chmod 755 "$H/bin/unset-srv"
    mkdir -p "$H/n/.vscode"
    printf '{"mcpServers": {"nulled": {"command": "unset-srv", "env": {"SRV_MODE": null}}}}\n' >"$H/n/.mcp.json"
    printf '{"servers": {"nulled": {"command": "unset-srv", "env": {"SRV_MODE": null}}}}\n' >"$H/n/.vscode/mcp.json"
    local f
    for f in "$H/n/.mcp.json" "$H/n/.vscode/mcp.json"; do
        SRV_MODE=noisy doctor --config "$f" --json --linger 0
        expect "$f status" 0 "$status"
        expect "$f" "nulled|SRV_MODE|clean|0" "$(j '.servers[] | "\(.name)|\(.env_names | join(","))|\(.before.verdict)|\(.before.status)"')"
    done
    # (the test can fail: the caller's variable reaches the server when the entry
    # does not say null, and an empty value is a value)
    printf '{"mcpServers": {"nulled": {"command": "unset-srv", "env": {}}}}\n' >"$H/n/.mcp.json"
    SRV_MODE=noisy doctor --config "$H/n/.mcp.json" --json --linger 0
    expect inherited "1|junk" "$(j '"\(.status)|\(.servers[0].before.verdict)"')"
    printf '{"mcpServers": {"nulled": {"command": "unset-srv", "env": {"SRV_MODE": ""}}}}\n' >"$H/n/.mcp.json"
    doctor --config "$H/n/.mcp.json" --json --linger 0
    expect empty "1|junk" "$(j '"\(.status)|\(.servers[0].before.verdict)"')"
}

# "type": "local" is GitHub Copilot CLI's word for a stdio server (the
# portable format VS Code's Copilot agent reads too): run, fixed, its type
# and its other keys kept.
@test "doctor families: type local (Copilot CLI) is a stdio server: listed as stdio, run, fixed with its type kept" {
    local f=$H/.copilot/mcp-config.json
    printf '{"mcpServers": {"local-banner": {"type": "local", "command": "check_srv", "args": ["banner"], "tools": ["*"]}}}\n' >"$f"
    cp "$f" "$BATS_TEST_TMPDIR/local.orig"
    doctor --list --json "$f"
    expect list_status 0 "$status"
    expect listed "copilot|local-banner|stdio|null|check_srv banner" \
        "$(j '.servers[] | "\(.client)|\(.name)|\(.transport)|\(.skipped)|\(.command | join(" "))"')"
    doctor --config "$f" --fix --linger 0
    expect status 0 "$status"
    grep -Eq '^copilot +local-banner +junk before the first message +wrap +check_srv: starting$' <<<"$output" || { show; return 1; }
    grep -qx 'copilot local-banner: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    printf '{"mcpServers": {"local-banner": {"type": "local", "command": "%s", "args": ["check_srv", "banner"], "tools": ["*"]}}}\n' \
        "$GATE" >"$BATS_TEST_TMPDIR/local.want"
    cmp "$BATS_TEST_TMPDIR/local.want" "$f" || { diff "$BATS_TEST_TMPDIR/local.want" "$f"; return 1; }
    cmp "$BATS_TEST_TMPDIR/local.orig" "$f.stdiogate-backup"
}

# ---------------------------------------------------------------- the clients' variables

@test "doctor families: the variables each client expands: VS Code's \${workspaceFolder}, \${userHome}, \${env:NAME}; Claude Code's \${VAR}, \${VAR:-default} and \${VAR:-}, in args and in env" {
    local p=$H/work/app
    cat >"$p/.vscode/mcp.json" <<'JSON'
{"servers": {"ws": {"command": "${workspaceFolder}/srv.sh",
  "args": ["--root", "${workspaceFolder}", "${userHome}/x", "${env:DFAM_VAR}", "<${env:DFAM_UNSET}>"],
  "cwd": "${workspaceFolder}/sub"}}}
JSON
    cat >"$p/.mcp.json" <<'JSON'
{"mcpServers": {"cc": {"command": "${DFAM_CMD:-check_srv}",
  "args": ["${DFAM_VAR}", "${DFAM_UNSET:-dflt}", "${DFAM_VAR:-dflt}", "${DFAM_UNSET}", "<${DFAM_UNSET:-}>"]}}}
JSON
    # (from HOME: the workspace is the file's, not the current directory)
    cd "$H"
    DFAM_VAR=v1 doctor --json --list "$p/.vscode/mcp.json"
    expect vscode_status 0 "$status"
    expect vscode "vscode|$p/srv.sh+--root+$p+$H/x+v1+<>|$p/sub" \
        "$(j '.servers[] | "\(.client)|\(.command | join("+"))|\(.cwd)"')"
    DFAM_VAR=v1 doctor --json --list "$p/.mcp.json"
    expect claude_status 0 "$status"
    # (an empty default is a default: "<${DFAM_UNSET:-}>" is "<>")
    expect claude "claude-code|check_srv+v1+dflt+v1+\${DFAM_UNSET}+<>" \
        "$(j '.servers[] | "\(.client)|\(.command | join("+"))"')"
    # in env, checked by the server's behaviour: noisy when SRV_MODE=noisy
    printf '#!/bin/sh\nif [ "$SRV_MODE" = noisy ]; then exec check_srv banner; fi\nexec check_srv\n' >"$H/bin/moded"
    chmod 755 "$H/bin/moded"
    printf '{"mcpServers": {"moded": {"command": "moded", "env": {"SRV_MODE": "${DFAM_MODE}"}}}}\n' >"$p/.mcp.json"
    DFAM_MODE=noisy doctor --config "$p/.mcp.json" --linger 0
    expect claude_env_status 1 "$status"
    grep -Eq '^claude-code +moded +junk before the first message +wrap' <<<"$output" || { show; return 1; }
    # Zed's older form: the env under "command" is the server's
    mkdir -p "$H/z/zed"
    printf '{"context_servers": {"moded": {"command": {"path": "moded", "env": {"SRV_MODE": "noisy"}}}}}\n' >"$H/z/zed/settings.json"
    doctor --config "$H/z/zed/settings.json" --linger 0
    expect zed_env_status 1 "$status"
    grep -Eq '^zed +moded +junk before the first message +wrap' <<<"$output" || { show; return 1; }
    # (the test can fail: without the variable, the same entries are clean)
    printf '{"context_servers": {"moded": {"command": {"path": "moded", "env": {}}}}}\n' >"$H/z/zed/settings.json"
    doctor --config "$H/z/zed/settings.json" --linger 0
    expect zed_quiet_status 0 "$status"
}

# ---------------------------------------------------------------- already wrapped

@test "doctor families: an entry already run through stdiogate, by path or by each fetcher's form (pinned, ranged, options before the package), is already wrapped; look-alikes are not" {
    local rows want
    rows=$(cat <<'EOF'
path|true|/usr/local/bin/stdiogate check_srv
bare|true|stdiogate check_srv
relative|true|./bin/stdiogate --strict check_srv
npx|true|npx -y stdiogate check_srv
npx-bare|true|npx stdiogate check_srv
npx-yes-pinned|true|npx --yes stdiogate@0.2.0 check_srv
npx-latest|true|npx -y stdiogate@latest check_srv
npx-range|true|npx -y stdiogate@^0.2 check_srv
npx-by-path|true|/usr/bin/npx -y stdiogate check_srv
npx-package|true|npx --package stdiogate stdiogate check_srv
bunx-pinned|true|bunx stdiogate@0.2.0 check_srv
pnpx|true|pnpx stdiogate check_srv
uvx|true|uvx stdiogate check_srv
uvx-pinned|true|uvx stdiogate@0.2.0 check_srv
uvx-from|true|uvx --from stdiogate==0.2.0 stdiogate check_srv
pipx|true|pipx run stdiogate check_srv
pipx-spec|true|pipx run --spec stdiogate==0.2.0 stdiogate check_srv
uv-tool-run|true|uv tool run stdiogate check_srv
npm-exec|true|npm exec -- stdiogate check_srv
pnpm-dlx|true|pnpm dlx stdiogate check_srv
yarn-dlx|true|yarn dlx stdiogate check_srv
plain|false|check_srv banner
npx-server-arg|false|npx -y some-server stdiogate
npx-look-alike|false|npx -y stdiogate-helper check_srv
npx-scoped|false|npx -y @acme/stdiogate check_srv
uvx-look-alike|false|uvx stdiogate-x check_srv
node-script|false|node /opt/stdiogate/index.js
EOF
)
    python3 -c 'import json, sys
servers = {}
for line in sys.stdin.read().splitlines():
    name, _, words = line.split("|")
    words = words.split()
    servers[name] = {"command": words[0], "args": words[1:]}
print(json.dumps({"mcpServers": servers}, indent=1))' <<<"$rows" >"$H/wrapped.json"
    doctor --json --list "$H/wrapped.json"
    expect status 0 "$status"
    want=$(cut -d'|' -f1,2 <<<"$rows")
    same already_wrapped "$want" "$(j '.servers[] | "\(.name)|\(.already_wrapped)"')"
}

# An entry already run through stdiogate whose server writes past the
# library while serving (raw writes) needs --strict: --fix edits no wrapped
# entry, so the report says how to run it, with --fix or without; the file
# is left as it was, and the status stays 2.
@test "doctor families: an entry already wrapped that needs --strict: the report gives its command with --strict after stdiogate; --fix leaves the file; status 2" {
    printf '{"mcpServers": {"raw": {"command": "%s", "args": ["check_srv", "serving", "raw"]}}}\n' "$GATE" >"$H/.claude.json"
    cp "$H/.claude.json" "$BATS_TEST_TMPDIR/orig"
    doctor --config "$H/.claude.json" --linger 0
    expect status 2 "$status"
    grep -Eq '^claude-code +raw +unguarded junk while serving +wrap with --strict' <<<"$output" || { show; return 1; }
    grep -qxF "raw (claude-code) runs through stdiogate already and needs its --strict; run it as: $GATE --strict check_srv serving raw" <<<"$output" || { show; return 1; }
    doctor --config "$H/.claude.json" --fix --linger 0
    expect fix_status 2 "$status"
    grep -qxF "claude-code raw: unguarded junk: not fixed: it runs through stdiogate already; add --strict by hand: $GATE --strict check_srv serving raw" <<<"$output" || { show; return 1; }
    grep -q 'nothing to fix' <<<"$output" && { show; return 1; }
    cmp "$BATS_TEST_TMPDIR/orig" "$H/.claude.json"
    [ ! -e "$H/.claude.json.stdiogate-backup" ]
}

# ---------------------------------------------------------------- verdicts

@test "doctor families: a launcher that times out (npx, bunx, pnpx, uvx, pipx, npx by its path) gets the advice to run it again; another program the advice to raise --timeout" {
    local l
    for l in npx bunx pnpx uvx pipx; do
        printf '#!/bin/sh\nexec check_srv silent\n' >"$H/bin/$l"
        chmod 755 "$H/bin/$l"
    done
    printf '#!/bin/sh\nexec check_srv silent\n' >"$H/bin/slowpoke"
    chmod 755 "$H/bin/slowpoke"
    cat >"$H/launchers.json" <<JSON
{"mcpServers": {
  "npx": {"command": "npx", "args": ["-y", "pkg"]},
  "bunx": {"command": "bunx", "args": ["pkg"]},
  "pnpx": {"command": "pnpx", "args": ["pkg"]},
  "uvx": {"command": "uvx", "args": ["pkg"]},
  "pipx": {"command": "pipx", "args": ["run", "pkg"]},
  "npx-path": {"command": "$H/bin/npx", "args": ["-y", "pkg"]},
  "other": {"command": "slowpoke"}
}}
JSON
    doctor --config "$H/launchers.json" --json --timeout 1 --linger 0 --jobs 7
    expect status 5 "$status"
    same advice "npx|5|no answer within 1 s: raise --timeout, or run it again once npx has the package
bunx|5|no answer within 1 s: raise --timeout, or run it again once bunx has the package
pnpx|5|no answer within 1 s: raise --timeout, or run it again once pnpx has the package
uvx|5|no answer within 1 s: raise --timeout, or run it again once uvx has the package
pipx|5|no answer within 1 s: raise --timeout, or run it again once pipx has the package
npx-path|5|no answer within 1 s: raise --timeout, or run it again once $H/bin/npx has the package
other|5|no answer within 1 s: raise --timeout if it is slow" \
        "$(j '.servers[] | "\(.name)|\(.before.status)|\(.before.detail)"')"
}

@test "doctor families: a protocol error is its verdict (3), not fixed by --fix; an unreadable file is the worst status (6) beside junk" {
    printf '{"mcpServers": {"wrongid": {"command": "check_srv", "args": ["wrongid"]}}}\n' >"$H/proto.json"
    cp "$H/proto.json" "$BATS_TEST_TMPDIR/proto.orig"
    doctor --config "$H/proto.json" --fix --linger 0
    expect status 3 "$status"
    grep -Eq '^file +wrongid +protocol error +- +protocol errors in every run' <<<"$output" || { show; return 1; }
    grep -qx 'nothing to fix' <<<"$output" || { show; return 1; }
    cmp "$BATS_TEST_TMPDIR/proto.orig" "$H/proto.json"
    [ ! -e "$H/proto.json.stdiogate-backup" ]
    # a HOME with junk in one file (read first) and one that cannot be parsed: 6
    local e=$BATS_TEST_TMPDIR/worst
    mkdir -p "$e/.cursor" "$e/.codeium/windsurf"
    printf '{"mcpServers": {"noisy": {"command": "check_srv", "args": ["banner"]}}}\n' >"$e/.cursor/mcp.json"
    echo '{"mcpServers": {' >"$e/.codeium/windsurf/mcp_config.json"
    cd "$e"
    HOME=$e doctor --config --linger 0
    expect worst_status 6 "$status"
    grep -Eq '^cursor +noisy +junk before the first message +wrap' <<<"$output" || { show; return 1; }
    HOME=$e doctor --config --json --linger 0
    expect worst_json "6|1|junk" "$(j '"\(.status)|\(.servers | length)|\(.servers[0].before.verdict)"')"
}

# timed_rewritten SERVER TIMEOUT STATUS WANT: the doctor on an entry SERVER
# (check_srv's words), with the check's verdict status rewritten to STATUS
# by a stand-in for the wrapper (the doctor runs `WRAPPER --check --json`:
# here, the real check, then jq): the doctor's status and verdict WANT
# (STATUS|VERDICT, a blank written _), its detail when timed out.
timed_rewritten() {
    local server=$1 timeout=$2 rewrite=$3 want=${4//_/ } w=$BATS_TEST_TMPDIR/standin
    mkdir -p "$w"
    printf '#!/bin/sh\n"%s" "$@" >"%s/doc.json"\njq --argjson s "$DC_STATUS" ".verdict.status = \\$s" "%s/doc.json"\nexit "$DC_STATUS"\n' \
        "$GATE" "$w" "$w" >"$w/stdiogate"
    chmod 755 "$w/stdiogate"
    printf '{"mcpServers": {"s": {"command": "check_srv", "args": ["%s"]}}}\n' "${server//+/\", \"}" >"$H/timed.json"
    status=0
    DC_STATUS=$rewrite timeout "$CHECK_BOUND" "$ROOT/stdiogate-check" --check --wrapper-path "$w/stdiogate" \
        --config "$H/timed.json" --json --timeout "$timeout" --linger 0 >"$BATS_TEST_TMPDIR/out.txt" \
        2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
    # (the stand-in ran: the real check's document beside it)
    jq -e .runs "$w/doc.json" >/dev/null || { show; return 1; }
    expect "$* status" "${want%%|*}" "$status"
    expect "$*" "$want" "$(j '.servers[0].before | "\(.status)|\(.verdict)"')"
    # (the unwrapped run as the row means it: timed out with slow=, junk with banner)
    local facts=false junk=0
    [[ $server != *slow=* ]] || facts=true
    [[ $server != *banner* ]] || junk=20
    expect "$* unwrapped run" "$facts|$junk" \
        "$(jq -r '"\(.runs[0].exit.answer_timeout)|\(.runs[0].stdout.junk_bytes)"' "$w/doc.json")"
    [ "${want#*|}" != "timed out" ] ||
        expect "$* detail" "no answer within $timeout s: raise --timeout if it is slow" "$(j '.servers[0].before.detail')"
}

# The doctor's rule (judge): an answer the unwrapped run did not get within
# --timeout, with no junk in that run, is a timing verdict (5, timed out:
# raise --timeout), whatever the check's status says (1, 2, 3 or 5): a
# server that did not answer in time cannot be judged. The check in this
# tree never says 1, 2 or 3 then (it calls any unwrapped timeout 5 itself:
# timing_decides in check/report.c), so the document is the real check's
# with its status rewritten. With junk in the unwrapped run, or no timeout,
# the check's status is the doctor's.
@test "doctor families: a check that says 1, 2 or 3 with the unwrapped run's answer timed out and no junk is timed out (5), the worst; with junk or in time, the check's status" {
    # slow=60000: no answer to initialize within --timeout 1 (nor within the
    # wait for a late one): the unwrapped run timed out, the others not run
    row_table timed_rewritten \
        "slow=60000 1 1 5|timed_out" \
        "slow=60000 1 2 5|timed_out" \
        "slow=60000 1 3 5|timed_out" \
        "slow=60000 1 5 5|timed_out" \
        "banner+slow=60000 1 1 1|junk" \
        "banner+slow=60000 1 5 5|timed_out" \
        "wrongid 30 3 3|protocol_error" \
        "wrongid 30 1 1|junk"
}

# ---------------------------------------------------------------- --fix, byte for byte

# fix_layout FILE: --fix on FILE (every server in it at once), then FILE
# must be $BATS_TEST_TMPDIR/want (with @GATE@ the wrapper's path) byte for
# byte, every server fixed.
fix_layout() {
    local f=$1
    cp "$f" "$BATS_TEST_TMPDIR/orig"
    doctor --config "$f" --fix --linger 0 --jobs 8
    expect "$f status" 0 "$status"
    sed "s|@GATE@|$GATE|g" "$BATS_TEST_TMPDIR/want" >"$BATS_TEST_TMPDIR/want.sub"
    cmp -s "$BATS_TEST_TMPDIR/want.sub" "$f" || {
        echo "$f: the fixed file differs (- expected, + got):"
        diff -u "$BATS_TEST_TMPDIR/want.sub" "$f" || true
        show
        return 1
    }
    cmp "$BATS_TEST_TMPDIR/orig" "$f.stdiogate-backup"
    ! grep -q 'not fixed' <<<"$output" || { show; return 1; }
}

@test "doctor families: --fix in every JSON layout: one line, args first, args absent (spaces, tabs), args empty, multi-line, blanks around the colons, env after, a name with escapes" {
    cat >"$H/layouts.json" <<'EOF'
{
  "mcpServers": {
    "one-line": {"command": "check_srv", "args": ["banner"]},
    "args-first": {"args": ["banner"], "command": "check_srv"},
    "no-args": {
        "command": "banner-srv"
    },
    "empty-args": {"command": "banner-srv", "args": []},
    "multi-line": {
      "command": "check_srv",
      "args": [
        "banner"
      ]
    },
	"tabbed": {
		"command": "banner-srv"
	},
    "spaced": { "command" : "check_srv" , "args" : [ "banner" ] },
    "clean": {"command": "check_srv"},
    "env-after": {"command": "banner-srv", "env": {"A": "1"}},
    "caf\u00e9 \"q\"": {"command": "banner-srv"}
  }
}
EOF
    cat >"$BATS_TEST_TMPDIR/want" <<'EOF'
{
  "mcpServers": {
    "one-line": {"command": "@GATE@", "args": ["check_srv", "banner"]},
    "args-first": {"args": ["check_srv", "banner"], "command": "@GATE@"},
    "no-args": {
        "command": "@GATE@",
        "args": ["banner-srv"]
    },
    "empty-args": {"command": "@GATE@", "args": ["banner-srv"]},
    "multi-line": {
      "command": "@GATE@",
      "args": [
        "check_srv",
        "banner"
      ]
    },
	"tabbed": {
		"command": "@GATE@",
		"args": ["banner-srv"]
	},
    "spaced": { "command" : "@GATE@" , "args" : [ "check_srv", "banner" ] },
    "clean": {"command": "check_srv"},
    "env-after": {"command": "@GATE@", "args": ["banner-srv"], "env": {"A": "1"}},
    "caf\u00e9 \"q\"": {"command": "@GATE@", "args": ["banner-srv"]}
  }
}
EOF
    fix_layout "$H/layouts.json"
}

@test "doctor families: --fix in JSON with comments (Zed): trailing commas, a comment inside the entry, after the args' bracket or before the first item, the older form with args absent or first" {
    mkdir -p "$H/z/zed"
    cat >"$H/z/zed/settings.json" <<'EOF'
// Zed
{
  "context_servers": {
    "trailing": {"command": "check_srv", "args": ["banner",],}, // a comment
    "old-no-args": {"command": {"path": "banner-srv", "env": {}}, "settings": {}},
    "old-args-first": {"command": {"args": ["banner"], "path": "check_srv"}},
    "commented": {"source": "custom", "command": /* the program */ "banner-srv",},
    "comment-after-bracket": {
      "command": "check_srv",
      "args": [ // its words
        "banner"
      ]
    },
    "comment-before-item": {
      "command": "check_srv",
      "args": [
        /* its words */ "banner"
      ]
    },
  },
}
EOF
    cat >"$BATS_TEST_TMPDIR/want" <<'EOF'
// Zed
{
  "context_servers": {
    "trailing": {"command": "@GATE@", "args": ["check_srv", "banner",],}, // a comment
    "old-no-args": {"command": {"path": "@GATE@", "args": ["banner-srv"], "env": {}}, "settings": {}},
    "old-args-first": {"command": {"args": ["check_srv", "banner"], "path": "@GATE@"}},
    "commented": {"source": "custom", "command": /* the program */ "@GATE@", "args": ["banner-srv"],},
    "comment-after-bracket": {
      "command": "@GATE@",
      "args": [ // its words
        "check_srv",
        "banner"
      ]
    },
    "comment-before-item": {
      "command": "@GATE@",
      "args": [
        /* its words */ "check_srv",
        "banner"
      ]
    },
  },
}
EOF
    fix_layout "$H/z/zed/settings.json"
}

@test "doctor families: --fix in every TOML layout: table names bare, quoted (with a dot), literal, spaced, with a comment; keys quoted; args first, absent, empty, a comment after its bracket; indented; a subtable, an array of tables, no final newline" {
    cat >"$H/.codex/config.toml" <<'EOF'
[mcp_servers.plain] # a comment
command = "check_srv"
args = ["banner"]

[mcp_servers."quoted"]
command = "check_srv"
args = ["banner"]

[mcp_servers."my.server"]
command = "banner-srv"

[mcp_servers.'literal']
command = 'check_srv'
args = ['banner']

[ mcp_servers . spaced ]
command="check_srv"
args=["banner"]

[mcp_servers.args-first]
args = ["banner"]
command = "check_srv"

[mcp_servers.no-args]
command = "banner-srv"

[mcp_servers.empty-args]
command = "banner-srv"
args = []

[mcp_servers.quoted-keys]
"command" = "check_srv"
'args' = ["banner"]

  [mcp_servers.indented]
  command = "banner-srv"

[mcp_servers.with-env]
command = "check_srv"
args = ["banner"]
[mcp_servers.with-env.env]
X = "1"

[mcp_servers.comment-after-bracket]
command = "check_srv"
args = [ # its words
  "banner",
]

[[profiles]]
name = "a"

[mcp_servers.last]
EOF
    printf 'command = "banner-srv"' >>"$H/.codex/config.toml"
    cat >"$BATS_TEST_TMPDIR/want" <<'EOF'
[mcp_servers.plain] # a comment
command = "@GATE@"
args = ["check_srv", "banner"]

[mcp_servers."quoted"]
command = "@GATE@"
args = ["check_srv", "banner"]

[mcp_servers."my.server"]
command = "@GATE@"
args = ["banner-srv"]

[mcp_servers.'literal']
command = "@GATE@"
args = ["check_srv", 'banner']

[ mcp_servers . spaced ]
command="@GATE@"
args=["check_srv", "banner"]

[mcp_servers.args-first]
args = ["check_srv", "banner"]
command = "@GATE@"

[mcp_servers.no-args]
command = "@GATE@"
args = ["banner-srv"]

[mcp_servers.empty-args]
command = "@GATE@"
args = ["banner-srv"]

[mcp_servers.quoted-keys]
"command" = "@GATE@"
'args' = ["check_srv", "banner"]

  [mcp_servers.indented]
  command = "@GATE@"
  args = ["banner-srv"]

[mcp_servers.with-env]
command = "@GATE@"
args = ["check_srv", "banner"]
[mcp_servers.with-env.env]
X = "1"

[mcp_servers.comment-after-bracket]
command = "@GATE@"
args = [ # its words
  "check_srv",
  "banner",
]

[[profiles]]
name = "a"

[mcp_servers.last]
command = "@GATE@"
args = ["banner-srv"]
EOF
    fix_layout "$H/.codex/config.toml"
}

# The entry keeps what its client expands: the fixed args hold the command as
# the file has it, while the check runs it expanded.
@test "doctor families: --fix of an entry with a client's variable (\${workspaceFolder}) writes it as it was, after stdiogate" {
    local p=$H/work/app
    printf '#!/bin/sh\nexec check_srv banner\n' >"$p/srv.sh"
    chmod 755 "$p/srv.sh"
    printf '{"servers": {"ws": {"command": "${workspaceFolder}/srv.sh", "args": ["${workspaceFolder}"]}}}\n' >"$p/.vscode/mcp.json"
    cd "$H"
    doctor --config "$p/.vscode/mcp.json" --fix --linger 0
    expect status 0 "$status"
    grep -qx 'vscode ws: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    expect fixed "{\"servers\": {\"ws\": {\"command\": \"$GATE\", \"args\": [\"\${workspaceFolder}/srv.sh\", \"\${workspaceFolder}\"]}}}" \
        "$(cat "$p/.vscode/mcp.json")"
}

# ---------------------------------------------------------------- --fix's file handling

# A directory --fix cannot write in (a read-only mount; without root, a
# directory without write permission): nothing written, no backup, no
# temporary file, the reason said, the status the server's before the fix.
@test "doctor families: --fix of a file in a directory it cannot write: not fixed, said why, nothing written; a read-only file (444) is replaced, its mode kept" {
    local d=$BATS_TEST_TMPDIR/ro
    mkdir -p "$d"
    printf '{"mcpServers": {"noisy": {"command": "check_srv", "args": ["banner"]}}}\n' >"$d/mcp.json"
    cp "$d/mcp.json" "$BATS_TEST_TMPDIR/ro.orig"
    status=0
    if [ "$(id -u)" = 0 ]; then
        timeout "$CHECK_BOUND" unshare -m sh -c 'mount --bind -o ro "$1" "$1" && shift && exec "$@"' _ "$d" \
            "$GATE" --check --config "$d/mcp.json" --fix --linger 0 >"$BATS_TEST_TMPDIR/out.txt" \
            2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
    else
        chmod 555 "$d"
        timeout "$CHECK_BOUND" "$GATE" --check --config "$d/mcp.json" --fix --linger 0 >"$BATS_TEST_TMPDIR/out.txt" \
            2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
        chmod 755 "$d"
    fi
    not_fixed "$d/mcp.json" "$BATS_TEST_TMPDIR/ro.orig" -E '(Read-only file system|Permission denied)'
    # a file with no write permission in a directory that can be written: replaced, 444 kept
    chmod 444 "$d/mcp.json"
    doctor --config "$d/mcp.json" --fix --linger 0 --json
    expect ro_file_status 0 "$status"
    # (--fix --json: the verdict before and after, the fix's result and message)
    expect ro_file_json "0|junk|clean|fixed|wrote $d/mcp.json (the old one is $d/mcp.json.stdiogate-backup)" \
        "$(j '"\(.status)|\(.servers[0].before.verdict)|\(.servers[0].after.verdict)|\(.servers[0].fix_result)|\(.fix.messages | join(";"))"')"
    expect mode 444 "$(stat -c %a "$d/mcp.json")"
    expect backup_mode 444 "$(stat -c %a "$d/mcp.json.stdiogate-backup")"
    grep -qF "\"command\": \"$GATE\"" "$d/mcp.json"
}

# refused_fix FILE REASON OWNER MODE: --fix as root without the right to
# give a file away or to write past its mode: not fixed for REASON (status
# 1, the verdict before), the file as it was (owner, mode), nothing beside it
refused_fix() {
    local f=$1 reason=$2
    status=0
    timeout "$CHECK_BOUND" setpriv --bounding-set -chown,-fowner,-dac_override,-dac_read_search -- \
        "$GATE" --check --config "$f" --fix --linger 0 >"$BATS_TEST_TMPDIR/out.txt" 2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
    not_fixed "$f" "$BATS_TEST_TMPDIR/owned.orig" -F "~/owned/mcp.json $reason"
    expect owner "$3" "$(stat -c %u:%g "$f")"
    expect mode "$4" "$(stat -c %a "$f")"
}

# not_fixed FILE ORIGINAL -F|-E REASON: the --fix run of out.txt said
# FILE's server was not fixed for REASON (-F: that text, -E: an extended
# regular expression), with status 1 (the verdict before: junk); FILE is
# ORIGINAL byte for byte, its directory holds nothing else
not_fixed() {
    output=$(cat "$BATS_TEST_TMPDIR/out.txt")
    expect status 1 "$status"
    grep "$3" -qx -e "file noisy: junk -> clean: not fixed: $4" <<<"$output" || { show; return 1; }
    ! grep -q '^wrote ' <<<"$output" || { show; return 1; }
    cmp "$2" "$1"
    expect leftovers "$(basename "$1")" "$(ls -A "$(dirname "$1")" | tr '\n' ' ' | sed 's/ $//')"
}

# --fix by a user who is not the file's owner, in a directory that user may
# write: the new file would be that user's (renamed over the old one), so
# nothing is written and the reason is said; a user with the right to give
# a file away (root) fixes it with its owner, group and mode kept. The user
# who is not the owner is root without the capabilities that let root give
# a file away or write past its mode (as nobody it could not reach the tree
# where that is under a directory of mode 700: /root, tests/mutate.sh's
# copies); the file is nobody's. Only root can make a file another user
# owns: the test needs it.
@test "doctor families: --fix by a user who is not the file's owner, or outside its group: not fixed, said why, nothing written (it would have become that user's); by root: fixed, owner, group and mode kept" {
    [ "$(id -u)" -eq 0 ] || skip "needs root to make a file another user owns"
    local d=$H/owned f=$H/owned/mcp.json owner group
    owner=$(id -nu 65534) group=$(getent group 65534 | cut -d: -f1)
    mkdir -p "$d"
    printf '{"mcpServers": {"noisy": {"command": "check_srv", "args": ["banner"]}}}\n' >"$f"
    chown 65534:65534 "$f"
    chmod 644 "$f"
    cp "$f" "$BATS_TEST_TMPDIR/owned.orig"
    # the status is the verdict before: junk
    refused_fix "$f" "belongs to $owner:$group, which this user (root) cannot give a new file: run --fix as its owner" 65534:65534 644
    # its owner, not in its group: the group would be lost; not fixed, said so
    chown 0:65534 "$f"
    chmod 640 "$f"
    refused_fix "$f" "belongs to the group $group, which this user (root) is not in: a new file would not keep it; run --fix as a member of $group" 0:65534 640
    chown 65534:65534 "$f"
    chmod 644 "$f"
    # root, who may give a file away: fixed, the file and its backup nobody's, 644
    doctor --config "$f" --fix --linger 0
    expect root_status 0 "$status"
    grep -qx 'file noisy: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    grep -qF "\"command\": \"$GATE\"" "$f"
    cmp "$BATS_TEST_TMPDIR/owned.orig" "$f.stdiogate-backup"
    expect owners "65534:65534 644 65534:65534 644" "$(stat -c '%u:%g %a' "$f" "$f.stdiogate-backup" | tr '\n' ' ' | sed 's/ $//')"
    expect root_leftovers "mcp.json mcp.json.stdiogate-backup" "$(ls -A "$d" | tr '\n' ' ' | sed 's/ $//')"
}

# The new file is made beside the old one: with TMPDIR on another file
# system (a tmpfs /tmp, the usual case) a rename from there fails (EXDEV).
# As root a tmpfs is mounted for it; otherwise /dev/shm is used.
@test "doctor families: --fix with TMPDIR on another file system: the file is written (its new text made beside it), nothing left in TMPDIR" {
    local t=$BATS_TEST_TMPDIR/tmpfs f=$H/.codeium/windsurf/mcp_config.json
    mkdir -p "$t"
    status=0
    if [ "$(id -u)" = 0 ]; then
        TMPDIR=$t timeout "$CHECK_BOUND" unshare -m sh -c 'mount -t tmpfs none "$1" && shift && "$@"; s=$?; ls -A "$TMPDIR" >"$TMPDIR.left"; exit $s' _ "$t" \
            "$GATE" --check --config "$f" --fix --linger 0 >"$BATS_TEST_TMPDIR/out.txt" 2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
    else
        t=$(mktemp -d /dev/shm/dfam.XXXXXX)
        [ "$(stat -c %d "$t")" != "$(stat -c %d "$f")" ] || { echo "no other file system for TMPDIR" >&2; false; }
        TMPDIR=$t timeout "$CHECK_BOUND" "$GATE" --check --config "$f" --fix --linger 0 >"$BATS_TEST_TMPDIR/out.txt" \
            2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
        ls -A "$t" >"$t.left"
        rm -r "$t"
    fi
    output=$(cat "$BATS_TEST_TMPDIR/out.txt")
    expect status 0 "$status"
    grep -qx 'windsurf noisy: junk -> clean: fixed' <<<"$output" || { show; return 1; }
    grep -qF "\"command\": \"$GATE\"" "$f"
    expect left_in_tmpdir "" "$(cat "$t.left")"
    expect leftovers "mcp_config.json mcp_config.json.stdiogate-backup" "$(ls -A "$(dirname "$f")" | tr '\n' ' ' | sed 's/ $//')"
}

# stdiogate run from npx's cache: the entry fetches it again (npx -y
# stdiogate), and --strict goes after the package, before the command.
@test "doctor families: --fix from npx's cache: 'npx -y stdiogate' then --strict where needed, then the command" {
    local x=$BATS_TEST_TMPDIR/npm-cache/_npx/0123456789abcdef cpu platform
    case $(uname -m) in x86_64) cpu=x64 ;; *) cpu=arm64 ;; esac
    platform=$x/node_modules/stdiogate/node_modules/@stdiogate/linux-$cpu
    mkdir -p "$x/node_modules/stdiogate/bin" "$platform/bin" "$platform/lib/stdiogate" "$x/node_modules/.bin"
    cp "$ROOT/pkg/npm-launcher.sh" "$x/node_modules/stdiogate/bin/stdiogate"
    cp "$ROOT/stdiogate" "$platform/bin/stdiogate"
    cp "$ROOT/libstdiogate.so" "$ROOT/stdiogate-check" "$ROOT/stdiogate-filter" "$ROOT/doctor/stdiogate-doctor" "$platform/lib/stdiogate/"
    chmod 755 "$x/node_modules/stdiogate/bin/stdiogate"
    ln -s ../stdiogate/bin/stdiogate "$x/node_modules/.bin/stdiogate"
    printf '{"mcpServers": {\n  "plain": {"command": "check_srv", "args": ["banner"]},\n  "raw": {"command": "check_srv", "args": ["serving", "raw"]}\n}}\n' >"$H/npx.json"
    status=0
    timeout "$CHECK_BOUND" "$x/node_modules/.bin/stdiogate" --check --config "$H/npx.json" --fix --linger 0 --jobs 4 \
        >"$BATS_TEST_TMPDIR/out.txt" 2>"$BATS_TEST_TMPDIR/err.txt" || status=$?
    output=$(cat "$BATS_TEST_TMPDIR/out.txt")
    expect status 0 "$status"
    expect fixed '{"mcpServers": {
  "plain": {"command": "npx", "args": ["-y", "stdiogate", "check_srv", "banner"]},
  "raw": {"command": "npx", "args": ["-y", "stdiogate", "--strict", "check_srv", "serving", "raw"]}
}}' "$(cat "$H/npx.json")"
}

# ---------------------------------------------------------------- options

# option_value ARGS STATUS: --list ARGS: exit STATUS (125: the reason on
# stderr, nothing on stdout).
option_value() {
    local want=${*: -1} args=("${@:1:$#-1}")
    doctor --list "${args[@]}"
    expect "${args[*]}" "$want" "$status"
    if [ "$want" = 125 ]; then
        expect "${args[*]} stdout" "" "$output"
        grep -q "^stdiogate: .*${args[0]}" "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
    else
        grep -q check_srv <<<"$output" || { show; return 1; }
    fi
}

@test "doctor families: the bounds of --timeout, --linger and --jobs: 0, negative, not a number, infinite, over a day: 125; the largest and fractions: accepted" {
    row_table option_value \
        "--timeout 0.5 0" \
        "--timeout 86400 0" \
        "--timeout 86401 125" \
        "--timeout -1 125" \
        "--timeout nan 125" \
        "--timeout inf 125" \
        "--linger 0 0" \
        "--linger -0.5 125" \
        "--jobs 1 0" \
        "--jobs 0 125" \
        "--jobs -2 125" \
        "--jobs 1.5 125"
}

# client_alone NAME: `--client NAME` alone, on a server with a banner (LSP
# for neovim and helix): its stdout byte for byte, the verdict, then its
# client's file and entry in the form each client reads (README's table,
# docs/CHECK.md "--client NAME"): the claude mcp add line, mcpServers,
# VS Code's servers with type stdio, Copilot's type local and tools, Zed's
# context_servers, Codex's [mcp_servers.NAME], Neovim's vim.lsp.config,
# Helix's [language-server.NAME] and its [[language]].
client_alone() {
    local name=$1 lsp=()
    case $name in neovim | helix) lsp=(--protocol lsp) ;; esac
    doctor --client "$name" "${lsp[@]}" --linger 0 check_srv ${lsp[@]:+--lsp} banner
    expect "$name status" 1 "$status"
    {
        printf '%s\n' "verdict (exit status 1): 20 bytes of non-protocol output (20 before the first message); stdiogate's default mode keeps them off the wire" \
            "run it under stdiogate" ""
        case $name in
            claude-code) printf '%s\n' "# claude-code: run it in the project (--scope user: for every project)" \
                "claude mcp add check_srv -- @GATE@ @SRV@ banner" ;;
            claude-desktop | cursor | windsurf | gemini)
                case $name in
                    claude-desktop) echo "# claude-desktop: ~/.config/Claude/claude_desktop_config.json" ;;
                    cursor) echo "# cursor: ~/.cursor/mcp.json, or .cursor/mcp.json in the project" ;;
                    windsurf) echo "# windsurf: ~/.codeium/windsurf/mcp_config.json" ;;
                    gemini) echo "# gemini: ~/.gemini/settings.json, or .gemini/settings.json in the project" ;;
                esac
                cat <<'JSON'
{
  "mcpServers": {
    "check_srv": {
      "command": "@GATE@",
      "args": [
        "@SRV@",
        "banner"
      ]
    }
  }
}
JSON
                ;;
            vscode) cat <<'JSON' ;;
# vscode: .vscode/mcp.json in the project, or the user mcp.json (MCP: Open User Configuration)
{
  "servers": {
    "check_srv": {
      "type": "stdio",
      "command": "@GATE@",
      "args": [
        "@SRV@",
        "banner"
      ]
    }
  }
}
JSON
            copilot) cat <<'JSON' ;;
# copilot: ~/.copilot/mcp-config.json (copilot's /mcp add writes it), or .mcp.json in the project
{
  "mcpServers": {
    "check_srv": {
      "type": "local",
      "command": "@GATE@",
      "args": [
        "@SRV@",
        "banner"
      ],
      "tools": [
        "*"
      ]
    }
  }
}
JSON
            zed) cat <<'JSON' ;;
# zed: ~/.config/zed/settings.json
{
  "context_servers": {
    "check_srv": {
      "command": "@GATE@",
      "args": [
        "@SRV@",
        "banner"
      ],
      "env": {}
    }
  }
}
JSON
            codex) cat <<'TOML' ;;
# codex: ~/.codex/config.toml
[mcp_servers.check_srv]
command = "@GATE@"
args = ["@SRV@", "banner"]
TOML
            neovim) cat <<'LUA' ;;
# neovim: init.lua (Neovim 0.11 or later)
vim.lsp.config('check_srv', {
  cmd = { '@GATE@', '@SRV@', '--lsp', 'banner' },
  filetypes = { 'LANGUAGE' }, -- the file types it serves
})
vim.lsp.enable('check_srv')
LUA
            helix) cat <<'TOML' ;;
# helix: ~/.config/helix/languages.toml
[language-server.check_srv]
command = "@GATE@"
args = ["@SRV@", "--lsp", "banner"]

[[language]]
name = "LANGUAGE" # the language it serves
language-servers = ["check_srv"]
TOML
            *) echo "no entry written for $name in this test" ;;
        esac
    } | sed -e "s|@GATE@|$GATE|g" -e "s|@SRV@|$SRV|g" >"$BATS_TEST_TMPDIR/$name.want"
    cmp -s "$BATS_TEST_TMPDIR/$name.want" "$BATS_TEST_TMPDIR/out.txt" || {
        echo "$name: the output differs (- expected, + got):"
        diff -u "$BATS_TEST_TMPDIR/$name.want" "$BATS_TEST_TMPDIR/out.txt" || true
        show
        return 1
    }
}

@test "doctor families: --client with each name --help lists, alone: its client's file and entry, byte for byte" {
    local names
    doctor --config --help
    expect help_status 0 "$status"
    # the names --help lists after "--client NAME ... NAME:", before "or all"
    names=$(tr -s ' \n' '  ' <"$BATS_TEST_TMPDIR/out.txt" | sed -n 's/.*print the entry to paste for NAME: \(.*\), or all.*/\1/p' | tr -d ,)
    expect names "claude-code claude-desktop cursor vscode windsurf zed codex gemini copilot neovim helix" "$names"
    # shellcheck disable=SC2086
    row_table client_alone $names
}

# --jobs N runs N checks at a time: what it changes is how long the whole
# takes, never a verdict nor the report's order (the files' order, each
# file's entries in order), however the checks finish. No option picks
# servers by name: a second word is refused.
@test "doctor families: --jobs 1 and --jobs 4: the same verdicts, the same report in the same order; no filter by server name" {
    printf '{"mcpServers": {\n  "a-clean": {"command": "check_srv"},\n  "b-junk": {"command": "check_srv", "args": ["banner"]},\n  "c-missing": {"command": "no-such-mcp-server"}\n}}\n' >"$H/jobs.json"
    local n
    for n in 1 4; do
        doctor --config "$H/jobs.json" --linger 0 --jobs "$n"
        expect "jobs $n status" 4 "$status"
        cp "$BATS_TEST_TMPDIR/out.txt" "$BATS_TEST_TMPDIR/jobs$n.txt"
    done
    cat >"$BATS_TEST_TMPDIR/jobs.want" <<'EOF'
CLIENT  SERVER     VERDICT                        FIX   DETAIL
file    a-clean    clean                          none
file    b-junk     junk before the first message  wrap  check_srv: starting
file    c-missing  cannot start                   -     no-such-mcp-server: command not found

1 server(s) need stdiogate: stdiogate --check --config @FILE@ --fix wraps them

read: ~/jobs.json
EOF
    sed -i "s|@FILE@|$H/jobs.json|g" "$BATS_TEST_TMPDIR/jobs.want"
    cmp -s "$BATS_TEST_TMPDIR/jobs.want" "$BATS_TEST_TMPDIR/jobs1.txt" || {
        diff -u "$BATS_TEST_TMPDIR/jobs.want" "$BATS_TEST_TMPDIR/jobs1.txt"
        return 1
    }
    cmp "$BATS_TEST_TMPDIR/jobs1.txt" "$BATS_TEST_TMPDIR/jobs4.txt" || {
        diff -u "$BATS_TEST_TMPDIR/jobs1.txt" "$BATS_TEST_TMPDIR/jobs4.txt"
        return 1
    }
    # no filter by server name: a name after FILE is refused, and --server is no option
    doctor --linger 0 --config "$H/jobs.json" b-junk
    expect name_status 125 "$status"
    expect name_stdout "" "$output"
    grep -qF "stdiogate: --config takes no COMMAND (b-junk); give a FILE or nothing" "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
    doctor --config "$H/jobs.json" --server b-junk
    expect server_status 125 "$status"
    grep -qF "stdiogate: unknown option '--server'" "$BATS_TEST_TMPDIR/err.txt" || { show; return 1; }
}
