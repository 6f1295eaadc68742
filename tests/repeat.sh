#!/bin/bash
# SPDX-License-Identifier: MIT
# tests/repeat.sh - run bats files again and again beside busy loops, to
# find the tests that fail only now and then.  A race the suite meets once
# in thirty runs is one a user meets too: a signal handler's message inside
# a large answer (CHANGELOG, #45) showed only as a test that failed 1 run in
# 30 on a quiet machine, 30 in 80 beside a mutation run.
#
# usage: tests/repeat.sh [-n RUNS] [-b BUSY] [-f REGEX] FILE.bats...
#   -n RUNS    runs of each file (default 10)
#   -b BUSY    busy loops beside them, ended when the runs end (default:
#              one per CPU; 0: none)
#   -f REGEX   only the tests whose name matches (bats -f)
# Each failing run's output is kept in build/repeat/NAME.RUN.log.  Output:
# a line per failing run as it ends, then per file "NAME: K of N runs
# failed".  Exit status: 0 if every run passed, 1 if one failed, 2 on
# usage errors.
set -u

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
runs=10 busy=$(nproc 2>/dev/null || echo 2) filter=
usage() { echo "usage: tests/repeat.sh [-n RUNS] [-b BUSY] [-f REGEX] FILE.bats..." >&2; exit 2; }
while getopts n:b:f: o; do
    case $o in
        n) runs=$OPTARG ;;
        b) busy=$OPTARG ;;
        f) filter=$OPTARG ;;
        *) usage ;;
    esac
done
shift $((OPTIND - 1))
[ $# -gt 0 ] || usage
case $runs$busy in *[!0-9]*) usage ;; esac
for f in "$@"; do
    [ -f "$f" ] || { echo "tests/repeat.sh: no such file: $f" >&2; exit 2; }
done

pids=()
stop_busy() { [ ${#pids[@]} -eq 0 ] || kill "${pids[@]}" 2>/dev/null; pids=(); }
trap stop_busy EXIT
trap 'exit 130' INT TERM
for _ in $(seq 1 "$busy"); do
    ( while :; do :; done ) &
    pids+=($!)
done

out=$ROOT/build/repeat
mkdir -p "$out"
failed=0 summary=()
for f in "$@"; do
    name=$(basename "$f" .bats) bad=0
    for i in $(seq 1 "$runs"); do
        log=$out/$name.$i.log
        if bats ${filter:+-f "$filter"} "$f" >"$log" 2>&1; then
            rm -f "$log"
        else
            bad=$((bad + 1))
            echo "$name: run $i failed: $log"
        fi
    done
    [ "$bad" -eq 0 ] || failed=1
    summary+=("$name: $bad of $runs runs failed")
done
stop_busy
printf '%s\n' "${summary[@]}"
exit "$failed"
