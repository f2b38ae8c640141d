#!/bin/sh
# Guest script for the lab's run-vm.sh (/work/shared/interop): siw's perftest clients against
# jrnic's perftest servers, both inside the VM.
#
# Why inside the guest: perftest -R opens two connections to the same address and port (the comm
# connection, then the test connection while the first stays open), and a qemu guestfwd rule carries
# one byte stream, so a siw client cannot reach a server on the host through one rule. Here our
# server runs on the guest's JVM (run-vm.sh -j shares the host JDK 25 at /opt/jdk) from a jar the host
# shares (run-vm.sh -s JARDIR:jar:/mnt/jar:ro), and siw's client connects to 10.0.2.15 (siw0 on eth0;
# rdma_cm on lo does not work with siw, the kernel routes 10.0.2.15 over loopback anyway).
#
# run-vm.sh copies this script to /job/job.sh and the lab's guest/* (common.sh) to /job/.
# Env: RUNS: space-separated TOOL:PORT[:ARGS with commas for spaces]; the same ARGS go to both ends,
#        e.g. "ib_write_bw:7301:-s,65536,-D,2 ib_send_lat:7306:-s,8,-n,200"
#      Add -F to ARGS: under emulation perftest's clock calibration fails and, without -F, its client
#        exits 1 with "Can't produce a report" before the report exchange (perftest_parameters.c).
#      WARMUP (loopback iterations our server runs before it listens, default 200),
#      CLIENT_TIMEOUT (s, default 150), JAR (default /mnt/jar/rnic-bench.jar), JOPTS (extra JVM options), SERVER_OPTS (extra options
#      of our server only, e.g. --crc). Logs: /job/ours-PORT.log (our server), /job/siw-PORT.log.
# Prints one "RESULT tool args: siw-client=RC jrnic-server=RC" line per run; JOB-RESULT: PASS only
# if every client and every server exited 0.
. /job/common.sh
siw_setup
say "perftest version: $(ib_write_bw --version 2>&1 | head -1)"
export JAVA_HOME=/opt/jdk PATH=/opt/jdk/bin:$PATH
JAR=${JAR:-/mnt/jar/rnic-bench.jar}
say "java: $(java -version 2>&1 | head -1); jar: $(ls -la "$JAR")"
FAIL=0
for r in ${RUNS:?set RUNS}; do
  tool=${r%%:*}; rest=${r#*:}; port=${rest%%:*}; args=""
  [ "$rest" != "$port" ] && args=$(echo "${rest#*:}" | tr ',' ' ')
  say "jrnic SERVER $tool -R -d siw0 -p $port $args $SERVER_OPTS"
  # A cold JVM under TCG answers siw's MPA Request too late (siw's client reports rdma_cm event 7,
  # UNREACHABLE): --warm-up runs the test in loopback first, and an AppCDS archive built by the first
  # run (-XX:+AutoCreateSharedArchive) spares later runs the class loading.
  # -XX:TieredStopAtLevel=1: C2 compiles are slow under TCG and the runs are short.
  java ${JOPTS:--XX:TieredStopAtLevel=1 -XX:+AutoCreateSharedArchive -XX:SharedArchiveFile=/job/jrnic.jsa -Xlog:cds=off -Xlog:cds+dynamic=off} \
      -jar "$JAR" $tool -R -d siw0 -p $port $args --warm-up ${WARMUP:-200} $SERVER_OPTS > /job/ours-$port.log 2>&1 &
  spid=$!
  # our server listens after its warm-up; stop waiting if it died
  i=0; while [ $i -lt 600 ] && kill -0 $spid 2>/dev/null && ! wait_listen $port 1; do i=$((i + 1)); done
  if ! wait_listen $port 1; then
    echo "our server did not listen on $port"; kill $spid 2>/dev/null; wait $spid
    cat /job/ours-$port.log; FAIL=1; continue
  fi
  say "siw CLIENT $tool -R -d siw0 -p $port $args 10.0.2.15"
  # stdbuf: keep perftest's output when the timeout kills it; -F (in ARGS) keeps perftest from
  # exiting with "Can't produce a report" when the emulated CPU's clock calibration fails
  timeout ${CLIENT_TIMEOUT:-150} stdbuf -oL -eL $tool -R -d siw0 -p $port $args 10.0.2.15 > /job/siw-$port.log 2>&1; crc=$?
  cat /job/siw-$port.log
  # our server ends on its own after the closing exchange; bound the wait
  i=0; while kill -0 $spid 2>/dev/null && [ $i -lt 600 ]; do sleep 0.1; i=$((i + 1)); done
  kill -0 $spid 2>/dev/null && { echo "our server still running: killed"; kill $spid; }
  wait $spid; src=$?
  say "jrnic server log ($port)"; cat /job/ours-$port.log
  echo "RESULT $tool $args: siw-client=$crc jrnic-server=$src" | tee -a /job/results.txt
  [ $crc = 0 ] && [ $src = 0 ] || FAIL=1
  sleep 1
done
say "dmesg (siw)"; dmesg | grep -iE 'siw|rdma' | grep -v 'speed is unknown' | tail -20
say "summary"; cat /job/results.txt
[ $FAIL = 0 ] && echo "JOB-RESULT: PASS" || echo "JOB-RESULT: FAIL"
