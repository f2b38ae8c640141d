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
for ((round = 1; round <= rounds; round++)); do
  for i in "${!names[@]}"; do
    name=${names[$i]}
    opts_var="OPTS_${name}"
    # shellcheck disable=SC2086 # OPTS_<NAME> is a list of options
    out=$("$java" ${!opts_var:-} -jar "${jars[$i]}" "$@" 2>&1) || {
      echo "$name: exit $?: $(echo "$out" | tail -1)"
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
  done
done
