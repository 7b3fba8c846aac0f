#!/usr/bin/env bash
# Issue 16, speed: one run that measures, side by side on loopback with source and destination on tmpfs,
#   iperf3 -n SIZE (memory to memory), iperf3 -n SIZE -l 1M into a file on tmpfs (server -F), ferry send over tcp://, ferry send --tls, scp and rsync (daemon mode),
# REPS rounds each, interleaved, and prints medians, spreads and the ratios ferry/iperf3, ferry/scp, ferry/rsync.
#
#   flock /tmp/ferry-build.lock bench/ferry-speed.sh [REPS] [SIZE]        (defaults: 3 1G)
#
# Senders run through the ./ferry launcher, as a user runs them (it picks the JVM options, see ferry-cli README,
# Speed); with FERRY_JAR set they run as `java -jar FERRY_JAR` instead.
# Environment: FERRY_JAR (default ferry-cli/target/ferry.jar), OUT (results directory, default
# bench/results/DATE-ferry-speed), SEND_ARGS (extra `ferry send` options, e.g. "--chunk-size 1M"),
# SEND_JAVA_OPTS / RECV_JAVA_OPTS (JVM options of the senders / receivers; the senders' go after the launcher's),
# JFR=1 (record both ferry JVMs of the last plain-TCP round with Java Flight Recorder into OUT),
# SKIP="tls scp" (names of measurements to leave out: iperf3-file cold tls scp rsync).
# ferry-tcp sends with the sender's hash cache (from round 2 on the digest is remembered: the file is read
# once, by sendfile); ferry-tcp-nocache hashes the file on every send (--no-hash-cache), as a first send does.
# Needs iperf3, openssh-server/-client and rsync (Debian packages). It starts its own iperf3 server, sshd
# (throwaway host and user keys, 127.0.0.1 only), rsync daemon and ferry receivers, and stops each by its PID.
# Rates are MiB/s of file content: ferry's from its --json summary (the session: connect to last verdict,
# both ends hashing), scp's and rsync's from the wall time of the command, iperf3's from its receiver.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
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

WORK=$(mktemp -d /dev/shm/ferry-speed.XXXXXX)
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
iperf3 -s -p "$IPORT" -B 127.0.0.1 > "$WORK/iperf3-server.log" 2>&1 & PIDS+=($!)
wait_port "$IPORT"
# iperf3 that writes what it receives into a file on the same tmpfs (-F): the kernel's own memory-to-file
# rate, which pays for the destination's fresh pages as every file receiver here does (ferry-cli README, Speed)
IFPORT=$(port)
iperf3 -s -p "$IFPORT" -B 127.0.0.1 -F "$WORK/dst/iperf3.bin" > "$WORK/iperf3-file-server.log" 2>&1 & PIDS+=($!)
wait_port "$IFPORT"

# ferry receivers: plain and TLS
FPORT=$(port); TPORT=$(port)
java ${RECV_JAVA_OPTS:-} -jar "$JAR" receive --listen "tcp://127.0.0.1:$FPORT" --dir "$WORK/dst" --overwrite > "$WORK/recv.log" 2>&1 & RECV_PID=$!; PIDS+=($RECV_PID)
if ! skip tls; then
  java -jar "$JAR" receive --listen "tcp://127.0.0.1:$TPORT" --dir "$WORK/dst" --overwrite --tls > "$WORK/recv-tls.log" 2>&1 & PIDS+=($!)
  wait_port "$TPORT"
  PIN=$(grep -o 'sha256:[0-9a-f]*' "$WORK/recv-tls.log" | head -1)
fi
wait_port "$FPORT"

# sshd with throwaway keys, loopback only
if ! skip scp; then
  SPORT=$(port)
  ssh-keygen -q -t ed25519 -N '' -f "$WORK/ssh/host_key"
  ssh-keygen -q -t ed25519 -N '' -f "$WORK/ssh/user_key"
  cp "$WORK/ssh/user_key.pub" "$WORK/ssh/authorized_keys"
  chmod 600 "$WORK/ssh/authorized_keys"
  mkdir -p /run/sshd
  cat > "$WORK/ssh/sshd_config" <<EOF
ListenAddress 127.0.0.1
Port $SPORT
HostKey $WORK/ssh/host_key
AuthorizedKeysFile $WORK/ssh/authorized_keys
PasswordAuthentication no
KbdInteractiveAuthentication no
PermitRootLogin prohibit-password
StrictModes no
UsePAM no
PidFile none
Subsystem sftp internal-sftp
EOF
  /usr/sbin/sshd -D -e -f "$WORK/ssh/sshd_config" > "$WORK/sshd.log" 2>&1 & PIDS+=($!)
  wait_port "$SPORT"
  SSH_OPTS=(-i "$WORK/ssh/user_key" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes)
fi

# rsync daemon, loopback only, no encryption (rsync's fastest way over a network)
if ! skip rsync; then
  start_rsyncd
fi

RESULTS=$OUT/rounds.tsv
echo -e "round\ttool\tMiB_s\tseconds" > "$RESULTS"
# Every measurement that writes a file first deletes the previous one's: on a VM that hands freed memory back to
# its host (free page reporting), fresh pages cost far more than the ones just freed, and each tool should get
# the same kind (ferry-cli README, Speed).
clear_dst() { rm -f "$WORK/dst/big.bin" "$WORK/dst/.big.bin.ferry-part" "$WORK/dst/iperf3.bin"; sync; }

echo "ferry speed, $STAMP, $(nproc) cores, $(uname -r), $BYTES bytes, $REPS rounds; results in $OUT"
for r in $(seq "$REPS"); do
  j=$(iperf3 -c 127.0.0.1 -p "$IPORT" -n "$SIZE" -J)
  bps=$(jq '.end.sum_received.bits_per_second' <<<"$j")
  secs=$(jq '.end.sum_received.seconds' <<<"$j")
  record "$r" iperf3 "$(python3 -c "print('%.1f' % ($bps / 8 / 1048576))")" "$secs"

  if ! skip iperf3-file; then
    clear_dst
    j=$(iperf3 -c 127.0.0.1 -p "$IFPORT" -n "$SIZE" -l 1M -J)   # 1 MiB writes into the file, as ferry's reads
    bps=$(jq '.end.sum_received.bits_per_second' <<<"$j")
    secs=$(jq '.end.sum_received.seconds' <<<"$j")
    record "$r" iperf3-file "$(python3 -c "print('%.1f' % ($bps / 8 / 1048576))")" "$secs"
  fi

  clear_dst
  jfr=""
  if [ "${JFR:-}" = 1 ] && [ "$r" = "$REPS" ]; then
    jfr="-XX:StartFlightRecording=filename=$OUT/send.jfr,settings=profile"
    jcmd "$RECV_PID" JFR.start name=speed settings=profile filename="$OUT/receive.jfr" > /dev/null
  fi
  j=$(send_ferry "$jfr ${SEND_JAVA_OPTS:-}" ${SEND_ARGS:-} "$FILE" "tcp://127.0.0.1:$FPORT" --json 2> "$WORK/send.err" | tail -1)
  [ "$(jq .ok <<<"$j")" = true ] || { echo "ferry send failed: $j"; cat "$WORK/send.err"; exit 1; }
  if [ -n "$jfr" ]; then jcmd "$RECV_PID" JFR.stop name=speed > /dev/null; fi
  cmp -s "$FILE" "$WORK/dst/big.bin" || { echo "ferry: the received file differs"; exit 1; }
  record "$r" ferry-tcp "$(jq '.bytesPerSecond / 1048576 * 10 | round / 10' <<<"$j")" "$(jq .seconds <<<"$j")"

  if ! skip cold; then   # the sender hashes the file again (as on a first send)
    clear_dst
    j=$(send_ferry "${SEND_JAVA_OPTS:-}" ${SEND_ARGS:-} --no-hash-cache "$FILE" "tcp://127.0.0.1:$FPORT" --json 2> "$WORK/send.err" | tail -1)
    [ "$(jq .ok <<<"$j")" = true ] || { echo "ferry send --no-hash-cache failed: $j"; cat "$WORK/send.err"; exit 1; }
    record "$r" ferry-tcp-nocache "$(jq '.bytesPerSecond / 1048576 * 10 | round / 10' <<<"$j")" "$(jq .seconds <<<"$j")"
  fi

  if ! skip tls; then
    clear_dst
    j=$(send_ferry "${SEND_JAVA_OPTS:-}" ${SEND_ARGS:-} --pin "$PIN" "$FILE" "tcp://127.0.0.1:$TPORT" --json 2> "$WORK/send.err" | tail -1)
    [ "$(jq .ok <<<"$j")" = true ] || { echo "ferry send --tls failed: $j"; cat "$WORK/send.err"; exit 1; }
    record "$r" ferry-tcp-tls "$(jq '.bytesPerSecond / 1048576 * 10 | round / 10' <<<"$j")" "$(jq .seconds <<<"$j")"
  fi

  if ! skip scp; then
    clear_dst
    t0=$(now); scp -q -P "$SPORT" "${SSH_OPTS[@]}" "$FILE" "root@127.0.0.1:$WORK/dst/big.bin"; t1=$(now)
    cmp -s "$FILE" "$WORK/dst/big.bin" || { echo "scp: the received file differs"; exit 1; }
    s=$(python3 -c "print('%.3f' % ($t1 - $t0))"); record "$r" scp "$(mibs "$s")" "$s"
  fi

  if ! skip rsync; then
    clear_dst
    t0=$(now); rsync --whole-file "$FILE" "rsync://127.0.0.1:$RPORT/dst/big.bin"; t1=$(now)
    cmp -s "$FILE" "$WORK/dst/big.bin" || { echo "rsync: the received file differs"; exit 1; }
    s=$(python3 -c "print('%.3f' % ($t1 - $t0))"); record "$r" rsync "$(mibs "$s")" "$s"
  fi
done

python3 bench/ferry-bench-summary.py "$RESULTS" "$OUT/summary.md" "$STAMP, $BYTES bytes, $REPS rounds, loopback, tmpfs" \
  --per iperf3 --per iperf3-file --vs ferry-tcp
