#!/bin/bash
# Host side: jrnic's perftest clients against siw's perftest servers in the lab VM
# (/work/shared/interop/run-vm.sh ... guest/perftest-server.sh, reached through -f HOSTPORT:GUESTPORT).
# usage: perftest-clients.sh RUN_NAME 'TOOL:HOSTPORT[:ARGS with commas for spaces]' ...
# For each client: our exit code, then siw's server exit code from $CACHE/runs/RUN_NAME/perftest-PORT.log
# (perftest-server.sh logs "(server rc=N)" after each client). Prints one RESULT line per client.
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
CACHE=${CACHE:-$HOME/.cache/jrnic-interop}
JAVA=${JAVA:-/usr/lib/jvm/temurin-25-jdk-amd64/bin/java}
JAR=${JAR:-$HERE/../target/rnic-bench.jar}
RUN=${1:?run name}; shift
FAIL=0
for c in "$@"; do
  tool=${c%%:*}; rest=${c#*:}; hport=${rest%%:*}; args=""
  [ "$rest" != "$hport" ] && args=$(echo "${rest#*:}" | tr ',' ' ')
  gport=$((hport - 10000))
  log=$CACHE/runs/$RUN/perftest-$gport.log
  before=$(grep -c 'server rc=' "$log" 2>/dev/null || true)
  echo "=== jrnic CLIENT $tool -R -d siw0 -p $hport $args 127.0.0.1"
  "$JAVA" -jar "$JAR" $tool -R -d siw0 -p $hport $args 127.0.0.1; rc=$?
  # siw's server logs its exit code when it ends (it restarts for the next client)
  src="?"
  for _ in $(seq 1 300); do
    n=$(grep -c 'server rc=' "$log" 2>/dev/null || true)
    if [ "${n:-0}" -gt "${before:-0}" ]; then src=$(grep -o 'server rc=[0-9]*' "$log" | tail -1 | cut -d= -f2); break; fi
    sleep 0.2
  done
  echo "RESULT $tool $args: jrnic-client=$rc siw-server=$src"
  [ "$rc" = 0 ] && [ "$src" = 0 ] || FAIL=1
done
exit $FAIL
