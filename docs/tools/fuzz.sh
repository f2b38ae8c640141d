#!/usr/bin/env bash
# Fuzzes one Jazzer @FuzzTest for a number of executions (docs/reliability.md, "Coverage-guided
# fuzzing"). Usage, from the checkout's root:
#
#   docs/tools/fuzz.sh MODULE CLASS#METHOD [EXECUTIONS] [LOG]
#   docs/tools/fuzz.sh rnic-mpa FpduDeframerFuzzTest#anyStream 10000000
#
# Runs at nice 10 and builds into target-fuzz/, so that a build of the same checkout can go on
# beside it. The corpus grows in MODULE/.cifuzz-corpus/ (not committed); a finding is written to
# MODULE/src/test/resources/<package>/<Class>Inputs/<method>/crash-* and fails the run. The last
# libFuzzer status line (executions, cov, ft, corpus) and the test result are printed at the end.
set -euo pipefail
cd "$(dirname "$0")/../.."
module=$1
test=$2
executions=${3:-10000000}
log=${4:-/tmp/fuzz-${module}-${test//#/-}.log}
start=$(date +%s)
status=0
JAZZER_FUZZ=1 MAVEN_OPTS=--sun-misc-unsafe-memory-access=allow nice -n 10 \
  mvn -B -o -pl "$module" -am test -Djrnic.target=target-fuzz \
    -Dtest="$test" -Dsurefire.failIfNoSpecifiedTests=false \
    -Djazzer.max_executions="$executions" -Djazzer.max_duration=3h >"$log" 2>&1 || status=$?
end=$(date +%s)
echo "$module $test: exit $status, $((end - start)) s wall clock (build included), log $log"
grep -E '^#[0-9]+' "$log" | tail -1 || true
grep -E '^Done [0-9]+ runs' "$log" || true
grep -E 'Tests run:.*Fail' "$log" | tail -1 || true
exit "$status"
