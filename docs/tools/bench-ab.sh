#!/usr/bin/env bash
# Alternates rnic-bench jars run by run (docs/benchmarks.md, issue 11): each round runs the same
# command once per jar, in turn, so that the machine's slow minutes fall on every jar alike. Usage:
#
#   docs/tools/bench-ab.sh ROUNDS NAME=JAR... -- COMMAND [ARGS...]
#   docs/tools/bench-ab.sh 3 head=/tmp/head.jar new=rnic-bench/target/rnic-bench.jar -- \
#       ib_write_bw --loopback --baseline -s 64 -l 64 -D 4 --mode polling
#
# One line per run: the name; the first "rounds rnic/<baseline>" line of the command (the median and
# range of its rounds' ratios against the baseline it names: tcp-packed for bandwidth, tcp-busy-poll
# for latency); then each result row of the table: BW average [MB/s] and MsgRate [Mpps] for the
# bandwidth tests, t_typical [usec] for the latency tests. The blocking floor's ratio (event-loop
# latency) is the "rounds rnic/tcp:" line: add RATIO=rnic/tcp: to print that one instead.
#
# JAVA (default: java on the PATH; it must be 25) runs the jars. OPTS_<NAME> are JVM options for one
# name (a throwaway property, say), so one jar can be alternated with itself:
#
#   OPTS_off=-Dx=false OPTS_on=-Dx=true docs/tools/bench-ab.sh 3 off=a.jar on=a.jar -- ...
#
# At the end a summary: each name's median ratios and their median, and each later name against the
# first round by round (the differences, how many higher and lower, their median): on a machine whose
# speed drifts from minute to minute, only a difference that holds pair after pair says something.
#
# Do not run it beside a build or another benchmark: on two vCPUs either moves the figures.
set -euo pipefail
usage="usage: $0 ROUNDS NAME=JAR... -- COMMAND [ARGS...]"
if [[ $# -lt 1 ]]; then
  echo "$usage" >&2
  exit 2
fi
rounds=$1
shift
names=()
jars=()
while [[ $# -gt 0 && $1 != -- ]]; do
  names+=("${1%%=*}")
  jars+=("${1#*=}")
  shift
done
if [[ $# -eq 0 || ${#names[@]} -eq 0 ]]; then
  echo "$usage" >&2
  exit 2
fi
shift
java=${JAVA:-java}
ratio=${RATIO:-}
medians=()
for ((round = 1; round <= rounds; round++)); do
  for i in "${!names[@]}"; do
    name=${names[$i]}
    opts_var="OPTS_${name}"
    # shellcheck disable=SC2086 # OPTS_<NAME> is a list of options
    out=$("$java" ${!opts_var:-} -jar "${jars[$i]}" "$@" 2>&1) || {
      echo "$name: exit $?: $(echo "$out" | tail -1)"
      medians[$i]="${medians[$i]:-} nan"
      continue
    }
    if [[ -n $ratio ]]; then
      line=$(echo "$out" | grep "rounds $ratio" | head -1 || true)
    else
      line=$(echo "$out" | grep 'rounds rnic/' | grep -v 'rounds rnic/tcp:' | head -1 || true)
    fi
    rows=$(echo "$out" | awk '
      /BW average/ { kind = "bw" }
      /t_typical/ && !/^ *(ratio|rounds) / { kind = "lat" }
      kind == "bw" && $1 ~ /^[0-9]+$/ && NF == 6 { printf "%s %s MB/s %s Mpps; ", $6, $4, $5 }
      kind == "lat" && $1 ~ /^[0-9]+$/ && NF == 10 { printf "%s %s us; ", $10, $5 }')
    echo "$name: ${line# } | $rows"
    median=$(echo "$line" | sed -n 's/.* median \([0-9.]*\)x.*/\1/p')
    medians[$i]="${medians[$i]:-} ${median:-nan}"
  done
done

# The summary: each name's round medians and their median; with two or more names, each later
# name against the first, round by round (alternated runs share the machine's minute): the
# differences, how many are higher and lower, and their median. For latency a lower ratio is better.
python3 - "${names[@]}" -- "${medians[@]}" <<'PY'
import statistics
import sys

args = sys.argv[1:]
cut = args.index('--')
names, lists = args[:cut], [v.split() for v in args[cut + 1:]]
runs = [[float(x) for x in values if x != 'nan'] for values in lists]
print('summary:')
for name, values in zip(names, runs):
    shown = ' '.join(f'{v:.2f}x' for v in values)
    print(f'  {name}: {shown} (median {statistics.median(values):.2f}x)' if values else f'  {name}: no figures')
for name, values in zip(names[1:], lists[1:]):
    pairs = [(float(a), float(b)) for a, b in zip(lists[0], values) if a != 'nan' and b != 'nan']
    if not pairs:
        print(f'  {name} - {names[0]}: no pairs')
        continue
    diffs = [b - a for a, b in pairs]
    shown = ' '.join(f'{d:+.2f}' for d in diffs)
    print(f'  {name} - {names[0]}, by round: {shown}; higher in {sum(d > 0 for d in diffs)}, '
          f'lower in {sum(d < 0 for d in diffs)} of {len(diffs)}; median {statistics.median(diffs):+.2f}')
PY
