#!/usr/bin/env bash
# `ferry send` of one file beside the kernel's own socket-to-file path, like for like: on loopback, source and
# destination on tmpfs, REPS interleaved rounds of iperf3 -n SIZE (memory to memory), iperf3 -n SIZE -l 1M into a
# file (server -F, the reference for a receiver that stores), the kernel's TCP file copy (bench/tcp-file-copy.py,
# timed until the receiver has written every byte), ferry send over tcp:// (with and without its hash cache),
# ferry send --tls, scp and rsync (daemon mode); medians, spreads and ratios.
#
#   flock /tmp/ferry-build.lock bench/ferry-speed.sh [REPS] [SIZE]        (defaults: 7 1G)
#
# The same start for every writer: before each, the previous output is deleted and a scratch file of SIZE is
# written and deleted on the same tmpfs (`settle` in ferry-bench-lib.sh: these VMs fault never-touched pages in
# from the host ten times slower than recycled ones). Each row has the tool's transfer rate where it reports one
# (iperf3's receiver; ferry's --json session, connect to the last verdict), else SIZE over the command's wall time
# (scp, rsync); every command's wall time (a user's stopwatch, JVM start included); and the CPU seconds of both
# ends (the sending command's user + system; the receiving daemon's, its reaped children included).
#
# Senders run through the ./ferry launcher, as a user runs them (it picks the JVM options, see ferry-cli README,
# Speed); with FERRY_JAR set they run as `java -jar FERRY_JAR` instead.
# Environment: FERRY_JAR (default ferry-cli/target/ferry.jar), OUT (results directory, default
# bench/results/DATE-ferry-speed), SEND_ARGS (extra `ferry send` options, e.g. "--chunk-size 1M"),
# SEND_JAVA_OPTS / RECV_JAVA_OPTS (JVM options of the senders / receivers; the senders' go after the launcher's),
# JFR=1 (record both ferry JVMs of the last plain-TCP round with Java Flight Recorder into OUT),
# SKIP="tls scp" (names of measurements to leave out: iperf3-file tcp-copy cold tls scp rsync), WORK_IN (the file system
# that holds source and destination, default /dev/shm; e.g. /var/tmp for a disk's page cache).
# ferry-tcp sends with the sender's hash cache (from round 2 on the digest is remembered: the file is read
# once, by sendfile); ferry-tcp-nocache hashes the file on every send (--no-hash-cache), as a first send does.
# Needs iperf3, openssh-server/-client, rsync and jq (Debian packages). It starts its own iperf3 servers, sshd
# (throwaway host and user keys, 127.0.0.1 only), rsync daemon and ferry receivers, and stops each by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-7}
SIZE=${2:-1G}
JAR=${FERRY_JAR:-ferry-cli/target/ferry.jar}
STAMP=$(date -u +%Y-%m-%dT%H%MZ)
OUT=${OUT:-bench/results/$(date -u +%Y-%m-%d)-ferry-speed}
SKIP=${SKIP:-}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
JAR=$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")
[ -f "$JAR" ] || { echo "no $JAR: build it first (./mvnw -pl ferry-cli -am package)"; exit 1; }
for tool in iperf3 rsync scp ssh-keygen /usr/sbin/sshd jq; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install iperf3 rsync openssh-server openssh-client jq"; exit 1; }
done

WORK=$(mktemp -d "${WORK_IN:-/dev/shm}/ferry-speed.XXXXXX")
# shellcheck source=bench/ferry-bench-lib.sh
. bench/ferry-bench-lib.sh
trap cleanup EXIT
mkdir -p "$WORK/src" "$WORK/dst" "$WORK/ssh"
export XDG_CACHE_HOME=$WORK/cache   # ferry's hash cache for this run only
FILE=$WORK/src/big.bin
head -c "$SIZE" /dev/urandom > "$FILE"
BYTES=$(stat -c %s "$FILE")

# iperf3
IPORT=$(port)
iperf3 -s -p "$IPORT" -B 127.0.0.1 > "$WORK/iperf3-server.log" 2>&1 & IPID=$!; PIDS+=($IPID)
wait_port "$IPORT"
# iperf3 that writes what it receives into a file on the same tmpfs (-F): the kernel's own memory-to-file
# rate, which pays for the destination's fresh pages as every file receiver here does (ferry-cli README, Speed)
IFPORT=$(port)
iperf3 -s -p "$IFPORT" -B 127.0.0.1 -F "$WORK/dst/iperf3.bin" > "$WORK/iperf3-file-server.log" 2>&1 & IFPID=$!; PIDS+=($IFPID)
wait_port "$IFPORT"

# the kernel's TCP file copy (sendfile, then recv + write into a file), timed until the receiver has written every
# byte: iperf3's client stops its clock while its last bytes are still in its socket buffer
CPORT=$(port)
python3 bench/tcp-file-copy.py serve-all 127.0.0.1 "$CPORT" "$WORK/dst/copy.bin" > "$WORK/copy-server.log" 2>&1 & CPID=$!; PIDS+=($CPID)
wait_port "$CPORT"

# ferry receivers: plain and TLS
FPORT=$(port); TPORT=$(port)
java ${RECV_JAVA_OPTS:-} -jar "$JAR" receive --listen "tcp://127.0.0.1:$FPORT" --dir "$WORK/dst" --overwrite > "$WORK/recv.log" 2>&1 & RECV_PID=$!; PIDS+=($RECV_PID)
if ! skip tls; then
  java -jar "$JAR" receive --listen "tcp://127.0.0.1:$TPORT" --dir "$WORK/dst" --overwrite --tls > "$WORK/recv-tls.log" 2>&1 & TLS_PID=$!; PIDS+=($TLS_PID)
  wait_port "$TPORT"
  PIN=$(grep -o 'sha256:[0-9a-f]*' "$WORK/recv-tls.log" | head -1)
fi
wait_port "$FPORT"

# sshd with throwaway keys, loopback only
if ! skip scp; then
  start_sshd 127.0.0.1
fi

# rsync daemon, loopback only, no encryption (rsync's fastest way over a network)
if ! skip rsync; then
  start_rsyncd
fi

RESULTS=$OUT/rounds.tsv
results_header
OUTS=("$WORK/dst/big.bin" "$WORK/dst/.big.bin.ferry-part" "$WORK/dst/iperf3.bin" "$WORK/dst/copy.bin")
rate() { python3 -c "print('%.1f' % ($1 / 8 / 1048576))"; }
iperf3_row() {  # ROUND TOOL: iperf3's receiver rate and seconds from the JSON in $WORK/timed.out
  record "$1" "$2" "$(rate "$(jq '.end.sum_received.bits_per_second' "$WORK/timed.out")")" \
    "$(jq '.end.sum_received.seconds' "$WORK/timed.out")" "$WALL" "$CPU_SEND" "$CPU_RECV"
}
ferry_row() {  # ROUND TOOL: ferry's session rate and seconds from its --json summary, the file compared
  local j
  j=$(tail -1 "$WORK/timed.out")
  [ "$(jq .ok <<<"$j")" = true ] || { echo "$2 failed: $j"; cat "$WORK/send.err"; exit 1; }
  cmp -s "$FILE" "$WORK/dst/big.bin" || { echo "$2: the received file differs"; exit 1; }
  record "$1" "$2" "$(jq '.bytesPerSecond / 1048576 * 10 | round / 10' <<<"$j")" "$(jq .seconds <<<"$j")" \
    "$WALL" "$CPU_SEND" "$CPU_RECV"
}
wall_row() {  # ROUND TOOL: SIZE over the command's wall time, the file compared
  cmp -s "$FILE" "$WORK/dst/big.bin" || { echo "$2: the received file differs"; exit 1; }
  record "$1" "$2" "$(mibs "$WALL")" "$WALL" "$WALL" "$CPU_SEND" "$CPU_RECV"
}

echo "ferry speed, $STAMP, $(nproc) cores, $(uname -r), $BYTES bytes, $REPS rounds; results in $OUT"
# A receiver is a long-running daemon: the first send into a fresh one runs while its JIT compiles the receiving
# path. That send is its own row (round 0), before the interleaved rounds.
settle "${OUTS[@]}"
ferry_cmd "${SEND_JAVA_OPTS:-}"
# shellcheck disable=SC2086
timed "$RECV_PID" "${SEND[@]}" ${SEND_ARGS:-} "$FILE" "tcp://127.0.0.1:$FPORT" --json 2> "$WORK/send.err"
ferry_row 0 ferry-tcp-fresh-receiver
if ! skip tls; then
  settle "${OUTS[@]}"
  # shellcheck disable=SC2086
  timed "$TLS_PID" "${SEND[@]}" ${SEND_ARGS:-} --pin "$PIN" "$FILE" "tcp://127.0.0.1:$TPORT" --json 2> "$WORK/send.err"
  ferry_row 0 ferry-tcp-tls-fresh-receiver
fi
for r in $(seq "$REPS"); do
  timed "$IPID" iperf3 -c 127.0.0.1 -p "$IPORT" -n "$SIZE" -J
  iperf3_row "$r" iperf3

  if ! skip iperf3-file; then
    settle "${OUTS[@]}"
    timed "$IFPID" iperf3 -c 127.0.0.1 -p "$IFPORT" -n "$SIZE" -l 1M -J   # 1 MiB writes into the file, as ferry's
    iperf3_row "$r" iperf3-file
  fi

  if ! skip tcp-copy; then
    settle "${OUTS[@]}"
    timed "$CPID" python3 bench/tcp-file-copy.py send "$FILE" 127.0.0.1 "$CPORT"
    cmp -s "$FILE" "$WORK/dst/copy.bin" || { echo "tcp-copy: the received file differs"; exit 1; }
    record "$r" tcp-copy "$(mibs "$WALL")" "$WALL" "$WALL" "$CPU_SEND" "$CPU_RECV"
  fi

  settle "${OUTS[@]}"
  jfr=""
  if [ "${JFR:-}" = 1 ] && [ "$r" = "$REPS" ]; then
    jfr="-XX:StartFlightRecording=filename=$OUT/send.jfr,settings=profile"
    jcmd "$RECV_PID" JFR.start name=speed settings=profile filename="$OUT/receive.jfr" > /dev/null
  fi
  ferry_cmd "$jfr ${SEND_JAVA_OPTS:-}"
  # shellcheck disable=SC2086
  timed "$RECV_PID" "${SEND[@]}" ${SEND_ARGS:-} "$FILE" "tcp://127.0.0.1:$FPORT" --json 2> "$WORK/send.err"
  if [ -n "$jfr" ]; then jcmd "$RECV_PID" JFR.stop name=speed > /dev/null; fi
  ferry_row "$r" ferry-tcp

  if ! skip cold; then   # the sender hashes the file again (as on a first send)
    settle "${OUTS[@]}"
    ferry_cmd "${SEND_JAVA_OPTS:-}"
    # shellcheck disable=SC2086
    timed "$RECV_PID" "${SEND[@]}" ${SEND_ARGS:-} --no-hash-cache "$FILE" "tcp://127.0.0.1:$FPORT" --json 2> "$WORK/send.err"
    ferry_row "$r" ferry-tcp-nocache
  fi

  if ! skip tls; then
    settle "${OUTS[@]}"
    ferry_cmd "${SEND_JAVA_OPTS:-}"
    # shellcheck disable=SC2086
    timed "$TLS_PID" "${SEND[@]}" ${SEND_ARGS:-} --pin "$PIN" "$FILE" "tcp://127.0.0.1:$TPORT" --json 2> "$WORK/send.err"
    ferry_row "$r" ferry-tcp-tls
  fi

  if ! skip scp; then
    settle "${OUTS[@]}"
    timed "$SSHD_PID" scp -q -P "$SPORT" "${SSH_OPTS[@]}" "$FILE" "root@127.0.0.1:$WORK/dst/big.bin"
    wall_row "$r" scp
  fi

  if ! skip rsync; then
    settle "${OUTS[@]}"
    timed "$RSYNCD_PID" rsync --whole-file "$FILE" "rsync://127.0.0.1:$RPORT/dst/big.bin"
    wall_row "$r" rsync
  fi
done

python3 bench/ferry-bench-summary.py "$RESULTS" "$OUT/summary.md" "$STAMP, $BYTES bytes, $REPS rounds, loopback, $(df --output=fstype "$WORK" | tail -1) in $(dirname "$WORK")" \
  --per iperf3 --per iperf3-file --per tcp-copy --vs ferry-tcp --bytes "$BYTES"
