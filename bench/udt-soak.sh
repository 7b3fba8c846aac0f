#!/usr/bin/env bash
# udt:// soak (issue 56): transport-udt's tests, then Netty's suite and FanInFromOneAddressTest over udt only, N runs
# in a row on a JDK beside a CPU-burning process, no rerun; stops at the first failure and keeps its reports.
#   bench/udt-soak.sh [RUNS] [JAVA_HOME]      defaults: 30, Temurin 25
#   SUITES=netty bench/udt-soak.sh ...         Netty's suite and FanIn only (FanIn's fault, in half the time)
# Build first (./mvnw install -DskipTests); about 5 to 7 minutes a run on 2 cores. Reports: $OUT (default /tmp/udt-soak).
# Each run's log line is followed by FanIn's view of the listener's UDP port (drops and when, resends).
set -u
cd "$(dirname "$0")/.."
runs=${1:-30}
export JAVA_HOME=${2:-/usr/lib/jvm/temurin-25-jdk-amd64}
out=${OUT:-/tmp/udt-soak}
mkdir -p "$out"
yes > /dev/null &
burner=$!
trap 'kill $burner 2>/dev/null' EXIT
log="$out/soak.log"
echo "start $(date +%T) $(git rev-parse --short HEAD) $("$JAVA_HOME/bin/java" -version 2>&1 | head -1)" | tee "$log"
for i in $(seq 1 "$runs"); do
  s=$(date +%s)
  rc1=0
  if [ "${SUITES:-all}" != netty ]; then
    ./mvnw -o -q -pl transport-udt surefire:test > "$out/udt.log" 2>&1
    rc1=$?
  fi
  ./mvnw -o -q -pl testsuite-netty surefire:test -Dferry.suite.schemes=udt -Dferry.suite.reruns=0 > "$out/netty.log" 2>&1
  rc2=$?
  echo "run $i transport-udt rc=$rc1${SUITES:+ (not run: $SUITES only)} testsuite-netty rc=$rc2 $(( $(date +%s) - s ))s" | tee -a "$log"
  grep -h 'FanIn over' testsuite-netty/target/surefire-reports/*FanInFromOneAddressTest-output.txt 2>/dev/null \
    | sed -E 's/0000000000000000FFFF00000100007F:[0-9A-F]+ //g; s/owned by this JVM, //g; s/^/  /' | tee -a "$log"
  if [ $rc1 -ne 0 ] || [ $rc2 -ne 0 ]; then
    cp -r transport-udt/target/surefire-reports "$out/run-$i-transport-udt"
    cp -r testsuite-netty/target/surefire-reports "$out/run-$i-testsuite-netty"
    echo "failed in run $i; reports in $out" | tee -a "$log"
    exit 1
  fi
done
echo "$runs runs in a row clean" | tee -a "$log"
