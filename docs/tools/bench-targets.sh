#!/usr/bin/env bash
# One run of each issue 11 target (docs/benchmarks.md), in the order of the issue, against the
# baseline each target names: the packed raw-TCP stream for throughput, the busy-polling raw-TCP
# ping-pong for polling-mode round trips, the blocking one for event-loop mode, a single QP for the
# thousand. Usage:
#
#   docs/tools/bench-targets.sh [JAR]      # default: rnic-bench/target/rnic-bench.jar
#
# One line per target: the command and its "rounds" line (the median and range of the rounds'
# ratios), with the RNIC's own row for the message rates. About six minutes on the lab's 2-vCPU
# machine; run it on an otherwise idle machine. JAVA (default: java on the PATH) must be 25.
# JAVA_OPTS are JVM options for every run, e.g. JAVA_OPTS=-Djrnic.bench.ioTransport=NIO for the
# fallback socket kind.
set -euo pipefail
cd "$(dirname "$0")/../.."
jar=${1:-rnic-bench/target/rnic-bench.jar}
java=${JAVA:-java}

run() {
  local pattern=$1
  shift
  local out
  out=$("$java" ${JAVA_OPTS:-} -jar "$jar" "$@" 2>&1) || { echo "$* => exit $?"; return; }
  local line rnic
  line=$(echo "$out" | grep "rounds $pattern" | head -1 | sed 's/  */ /g')
  rnic=$(echo "$out" | awk '$NF == "rnic" && NF == 6 { printf "rnic %s MB/s %s Mpps", $4, $5 }')
  echo "$* =>${line} ${rnic}"
}

for mode in polling event-loop; do
  for crc in "" --crc; do
    run rnic/tcp-packed ib_write_bw --loopback --baseline -s 65536 -D 6 --mode $mode $crc
  done
  run rnic/tcp-packed ib_read_bw --loopback --baseline -s 65536 -D 6 --mode $mode
  for crc in "" --crc; do
    run rnic/tcp-packed ib_write_bw --loopback --baseline -s 4096 -l 16 -D 6 --mode $mode $crc
  done
done
run rnic/tcp-packed ib_write_bw --loopback --baseline -s 64 -l 64 -D 4 --mode polling
run rnic/tcp-packed ib_send_bw --loopback --baseline -s 64 -l 64 -D 4 --mode polling
for test in write send read; do
  run rnic/tcp-busy-poll ib_${test}_lat --loopback --baseline -s 8 -D 4 --mode polling
done
run rnic/tcp: ib_write_lat --loopback --baseline -s 8 -D 4 --mode event-loop
echo "scale-turns 1000 16 => $("$java" ${JAVA_OPTS:-} -jar "$jar" scale-turns 1000 16 2>&1 | grep -E '^(rnic|rounds)' \
  | sed 's/(medians of [0-9]* turns of [0-9]* ms)//; s/  */ /g' | tr '\n' ' ')"
