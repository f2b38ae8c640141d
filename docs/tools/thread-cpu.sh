#!/usr/bin/env bash
# CPU per thread of a command over a window of its run (docs/benchmarks.md, issue 11): each
# thread's user + system clock ticks from /proc/<pid>/task/*/stat at the window's start and end.
# 100 ticks are one CPU for one second on Linux (USER_HZ), so a thread busy for the whole window
# shows 100 x WINDOW. Usage:
#
#   docs/tools/thread-cpu.sh WARMUP_S WINDOW_S -- COMMAND [ARGS...]
#   docs/tools/thread-cpu.sh 5 4 -- java -jar rnic-bench.jar ib_write_bw --loopback -s 4096 -l 16 -D 10 --slice-ms 0
#
# Prints "thread-name ticks" for every thread that used more than 3 ticks in the window, then the
# command's own output. The window must end before the command does. Threads share names
# (netty's I/O threads are all "jrnic-transport"): each gets its own line. Do not run it beside a
# build or another benchmark.
set -euo pipefail
if [[ $# -lt 4 || $3 != -- ]]; then
  echo "usage: $0 WARMUP_S WINDOW_S -- COMMAND [ARGS...]" >&2
  exit 2
fi
warmup=$1
window=$2
shift 3
out=$(mktemp)
trap 'rm -f "$out" "$out".0 "$out".1' EXIT
"$@" > "$out" 2>&1 &
pid=$!
snapshot() {
  local t
  for t in /proc/"$pid"/task/*; do
    [[ -r $t/stat ]] || continue
    echo "$(basename "$t") $(tr ' ' _ < "$t"/comm 2>/dev/null) $(awk '{print $14 + $15}' "$t"/stat 2>/dev/null)"
  done | sort
}
sleep "$warmup"
snapshot > "$out".0
sleep "$window"
snapshot > "$out".1
join "$out".0 "$out".1 | awk '{ d = $5 - $3; if (d > 3) print "  " $2, d }'
wait "$pid" || true
cat "$out"
