# SPDX-License-Identifier: MIT
# helper_helpers.bash - signals to the process group, for
# tests/helper/helper_process.bats (default mode) and tests/strict/strict_faults.bats
# (--strict).  Loaded after helpers.bash or strict_helpers.bash.
#
#   SIGNALS            the signals a process group gets from a terminal, a
#                      supervisor or a user: each is tried
#   sig_run WHEN SIG [WRAPPER...]   runs tests/bin/helper_sig SIG under
#                      strict_fault_client.py WHEN=SIG (before: the signal comes
#                      before the client's first message; after: once it is
#                      answered), unwrapped or under WRAPPER; sets $status
#                      (the client's) and $result ("status N" of the server)
#   sig_case WHEN SIG WRAPPER...    unwrapped, then wrapped: the server exits
#                      0 both times, stdout byte for byte what it must be (the
#                      startup junk and, before the gate or under --strict,
#                      the handler's line on stderr instead), its last
#                      message on the wire, nothing of the server's lost

SIGNALS="INT TERM HUP QUIT USR1 USR2 ALRM WINCH PIPE TSTP TTIN TTOU"

sig_run() {
    local when=$1 sig=$2
    shift 2
    status=0
    result=$(STDIOGATE_DEBUG=1 timeout 90 "$PYTHON" "$FIX/strict_fault_client.py" --out "$OUT" --err "$ERR" \
        "$when=$sig" -- "$@" "$BIN/helper_sig" "$sig") || status=$?
}

sig_case() {
    local when=$1 sig=$2 want
    shift 2
    local ans last='{"jsonrpc":"2.0","method":"last"}' gate_only=""
    ans=$(answer 0 initialize)
    case " $* " in *" --gate-only "*) gate_only=1 ;; esac
    sig_run "$when" "$sig"
    if [ "$status" -ne 0 ] || [ "$result" != "status 0" ]; then
        echo "unwrapped SIG$sig $when: $result (client $status)" >&2; show_run; return 1
    fi
    if [ "$when" = before ]; then
        want=$(printf 'sig-startup-junk\ncaught SIG%s\n%s\n%s' "$sig" "$ans" "$last")
    else
        want=$(printf 'sig-startup-junk\n%s\ncaught SIG%s\n%s' "$ans" "$sig" "$last")
    fi
    [ "$(cat "$OUT")" = "$want" ] || { echo "unwrapped SIG$sig $when: stdout differs" >&2; show_run; return 1; }
    sig_run "$when" "$sig" "$@"
    if [ "$status" -ne 0 ] || [ "$result" != "status 0" ]; then
        echo "wrapped SIG$sig $when: $result (client $status)" >&2; show_run; return 1
    fi
    if [ "$when" = before ] || [ -z "$gate_only" ]; then
        # before the gate, or after it with the session guard (or the filter)
        want=$(printf '%s\n%s' "$ans" "$last")
        grep -qx "caught SIG$sig" "$ERR" || { echo "SIG$sig $when: the handler's line is lost" >&2; show_run; return 1; }
    else
        want=$(printf '%s\ncaught SIG%s\n%s' "$ans" "$sig" "$last")
    fi
    [ "$(cat "$OUT")" = "$want" ] || { echo "wrapped SIG$sig $when: stdout differs" >&2; show_run; return 1; }
    grep -qx "sig-startup-junk" "$ERR" || { echo "SIG$sig $when: the startup junk is lost" >&2; show_run; return 1; }
}
