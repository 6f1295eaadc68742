# SPDX-License-Identifier: MIT
# Helpers for tests/real/real_sdk.bats: servers written against each official MCP SDK (tests/sdk/,
# built by tests/sdk.mk into build/sdk), driven by three clients: the TypeScript SDK client over
# sockets, the Python SDK client over pipes, the strict raw client over sockets and over pipes.
# Loaded after integration/real_helpers (sdk, raw, q, show, completed, same_result).
#
# sdk_server NAME       sets, for one server and launcher:
#   SRV=(...)           the command line
#   SRV_OPTS=(...)      client options it needs (--cwd, --env)
#   START=(...)         the lines it prints on stdout before its first message
#   CALL                the line its tool prints on stdout during the call
#   CALL_ON_STDOUT      empty for Python: the SDK itself points fd 1 at stderr while it serves, so
#                       that line never reaches stdout)
#   PLAIN_OPTS=(...)    client options for the unwrapped run only
#   GO=1                a Go program (the default mode runs it under the filter by itself, #24)
# sdk_case CLIENT SERVER   the unwrapped run, then the run under stdiogate, then under
#                       stdiogate --strict, each checked as the header of real_sdk.bats says

SDK_OUT="$ROOT/build/sdk"
SDK_PY="$SDK_OUT/py"
SDK_VENV_PY="$SDK_PY/venv/bin/python"
# uv with nothing but the wheelhouse (hashed pins) and the warmed cache, never a download.
UV_FLAGS=(--no-config --offline --no-index --find-links "$SDK_PY/wheels" --cache-dir "$SDK_PY/uv-cache"
          --python "$SDK_VENV_PY" --no-python-downloads)
# Every server gets this variable (through the client): a process that still carries it after the
# client exited was left behind.
SDK_TAG_VAR=STDIOGATE_SDK_RUN
# How long processes of a finished run may take to go away (the bound of no_leftover).
LEFTOVER_WAIT=10

sdk_setup() {
  real_setup || return 1
  local f
  for f in "$SDK_OUT/bin/noisy-go-static" "$SDK_OUT/bin/noisy-go-cgo" "$SDK_OUT/bin/noisy-rmcp" \
           "$SDK_OUT/java/.stamp" "$SDK_PY/.stamp"; do
    [ -e "$f" ] || { echo "$f is missing: run 'make sdk-deps' (or 'make test')" >&2; return 1; }
  done
}

# py NAME [client options] -- COMMAND...: the Python SDK client (pipes).
py() {
  local name=$1
  shift
  "$SDK_VENV_PY" "$TESTS/sdk/py_client.py" --timeout "$REQ_TIMEOUT" \
    --stderr "$BATS_TEST_TMPDIR/$name.err" "$@" >"$BATS_TEST_TMPDIR/$name.json"
}

sdk_server() {
  SRV_OPTS=() PLAIN_OPTS=() GO='' CALL_ON_STDOUT=1
  case $1 in
    py-uvx|py-uvrun|py-m)
      START=("noisy-mcp-python: starting MCP server on stdio"
             "pygame 2.6.1 (SDL 2.28.4, Python $("$SDK_VENV_PY" -c 'import platform; print(platform.python_version())'))"
             "Hello from the pygame community. https://www.pygame.org/contribute.html")
      CALL="noisy-mcp-python: tool echo called" CALL_ON_STDOUT=''
      # Unwrapped, print() to a pipe is buffered until exit; unbuffered, the banner is on the wire
      # before the first message, where a client sees it. The wrapper does not set it: buffered,
      # the banner leaves at exit, after the gate, and the guard (or the filter) takes it off.
      PLAIN_OPTS=(--env PYTHONUNBUFFERED=1)
      case $1 in
        py-uvx) SRV=("$SDK_PY/venv/bin/uvx" "${UV_FLAGS[@]}" --from "$SDK_PY/project" noisy-mcp-python) ;;
        py-uvrun) SRV=("$SDK_PY/venv/bin/uv" --directory "$SDK_PY/project" run "${UV_FLAGS[@]}" noisy-mcp-python) ;;
        py-m) SRV=("$SDK_VENV_PY" -m noisy_mcp); SRV_OPTS=(--cwd "$TESTS/sdk/python") ;;
      esac ;;
    go-static|go-cgo)
      SRV=("$SDK_OUT/bin/noisy-$1")
      START=("noisy-go-sdk: starting MCP server on stdio")
      CALL="noisy-go-sdk: tool echo called"
      GO=1 ;;
    rust)
      SRV=("$SDK_OUT/bin/noisy-rmcp")
      START=("noisy-rmcp: starting MCP server on stdio")
      CALL="noisy-rmcp: tool echo called" ;;
    java)
      SRV=(java -cp "$SDK_OUT/java/classes:$SDK_OUT/java/lib/*" noisy.NoisyServer)
      START=("noisy-java-sdk: starting MCP server on stdio")
      CALL="noisy-java-sdk: tool echo called" ;;
    *) echo "sdk_server: unknown server $1" >&2; return 1 ;;
  esac
}

# run_client CLIENT NAME [CLIENT OPTION...] -- [COMMAND PREFIX...]: the client on the current
# server, the call included.
run_client() {
  local client=$1 name=$2
  shift 2
  local opts=(--env "$SDK_TAG_VAR=$name-$$" --call echo --args '{"message":"through the gate"}'
              "${SRV_OPTS[@]}")
  while [ "$1" != -- ]; do opts+=("$1"); shift; done
  shift
  case $client in
    sdk) sdk "$name" "${opts[@]}" -- "$@" "${SRV[@]}" ;;
    py) py "$name" "${opts[@]}" -- "$@" "${SRV[@]}" ;;
    raw-socket) raw "$name" --transport socket "${opts[@]}" -- "$@" "${SRV[@]}" ;;
    raw-pipe) raw "$name" --transport pipe "${opts[@]}" -- "$@" "${SRV[@]}" ;;
  esac || { echo "$name: the client failed"; show "$name"; return 1; }
}

# leftovers NAME: pids of live processes that carry the tag of run NAME.
leftovers() {
  grep -lzx -- "$SDK_TAG_VAR=$1-$$" /proc/[0-9]*/environ 2>/dev/null | cut -d/ -f3
  return 0
}

# no_leftover NAME: every process of run NAME is gone (bounded wait: the last ones may still be
# exiting when the client returns).
no_leftover() {
  local left i
  for ((i = 0; i < LEFTOVER_WAIT * 10; i++)); do
    left=$(leftovers "$1")
    [ -z "$left" ] && return 0
    sleep 0.1
  done
  echo "$1: processes left behind:"
  # shellcheck disable=SC2086  # pids, split on purpose
  ps -o pid,ppid,stat,args -p "$(echo $left | tr ' ' ,)"
  return 1
}

# stdout_junk CLIENT NAME LINE...: what the client saw on stdout besides JSON-RPC is exactly LINE...
# (the raw client lists the lines; the SDK clients report one error per line).
stdout_junk() {
  local client=$1 name=$2
  shift 2
  local want n=$#
  case $client in
    raw-*)
      want=$(jq -cn '$ARGS.positional' --args -- "$@")
      expect_eq "$name: non-JSON-RPC lines on stdout" "$want" "$(q "$name" '.junk')" || { show "$name"; return 1; }
      expect_eq "$name: server exited by itself" false "$(q "$name" '.killed')" || { show "$name"; return 1; } ;;
    *)
      expect_eq "$name: transport errors (one per junk line)" "$n" "$(q "$name" '.errors | length')" \
        || { show "$name"; return 1; } ;;
  esac
  if [ "$client" = py ]; then  # the Python SDK names the line it could not parse (pydantic cuts
                               # a long one to its first and last 24 characters)
    local line
    for line in "$@"; do
      jq -e --arg want "input_value='${line:0:24}" 'any(.errors[]; contains($want))' \
        "$BATS_TEST_TMPDIR/$name.json" >/dev/null || { echo "$name: no parse error for: $line"; show "$name"; return 1; }
    done
  fi
}

# on_stderr NAME LINE...: each LINE is a whole line of the server's stderr in run NAME.
on_stderr() {
  local name=$1 line
  shift
  for line in "$@"; do
    grep -qxF -- "$line" "$BATS_TEST_TMPDIR/$name.err" || {
      echo "$name: expected on the server's stderr: $line"; show "$name"; return 1; }
  done
}

# wrapped_run CLIENT SERVER-TAG MODE: the run under stdiogate (default), stdiogate --strict or
# stdiogate --gate-only.
wrapped_run() {
  local client=$1 tag=$2 mode=$3 gate=("$GATE")
  [ "$mode" = strict ] && gate=("$GATE" --strict)
  [ "$mode" = gate-only ] && gate=("$GATE" --gate-only)
  run_client "$client" "$tag-$mode" -- "${gate[@]}" || return 1
  completed "$tag-$mode" || return 1
  same_result "$tag-plain" "$tag-$mode" || return 1
  if [ "$mode" = gate-only ] && [ "$CALL_ON_STDOUT" ]; then
    # The gate alone guards stdout until the first message: the line printed during the call
    # is the server's own business.
    stdout_junk "$client" "$tag-$mode" "$CALL" || return 1
    on_stderr "$tag-$mode" "${START[@]}" || return 1
  else
    # The whole session is guarded (the library's guard in the default mode, the filter with
    # --strict; Go, which reads and writes with raw system calls, runs under the filter in the
    # default mode too, #24, without a warning): the line printed during the call goes to
    # stderr too.
    stdout_junk "$client" "$tag-$mode" || return 1
    on_stderr "$tag-$mode" "${START[@]}" "$CALL" || return 1
    ! grep -q '^stdiogate.*warning' "$BATS_TEST_TMPDIR/$tag-$mode.err" || {
      echo "$tag-$mode: a warning"; show "$tag-$mode"; return 1; }
  fi
  no_leftover "$tag-$mode"
}

# sdk_case CLIENT SERVER: unwrapped, wrapped, wrapped with --strict.
sdk_case() {
  local client=$1 server=$2
  local tag="$server-$client"
  sdk_server "$server" || return 1

  # Unwrapped: the junk is on stdout, so the test can fail; the session still completes.
  run_client "$client" "$tag-plain" "${PLAIN_OPTS[@]}" -- || return 1
  completed "$tag-plain" || return 1
  if [ "$CALL_ON_STDOUT" ]; then
    stdout_junk "$client" "$tag-plain" "${START[@]}" "$CALL" || return 1
  else
    stdout_junk "$client" "$tag-plain" "${START[@]}" || return 1
    on_stderr "$tag-plain" "$CALL" || return 1
  fi
  no_leftover "$tag-plain" || return 1

  wrapped_run "$client" "$tag" default || return 1
  if [ "$CALL_ON_STDOUT" ] && [ -z "$GO" ]; then
    wrapped_run "$client" "$tag" gate-only || return 1
  fi
  wrapped_run "$client" "$tag" strict
}
