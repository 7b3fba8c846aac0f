#!/usr/bin/env bash
# `ferry send DIR` of many files beside an rsync daemon (`rsync -r --whole-file`, no encryption), on loopback with
# source and destination on tmpfs, REPS interleaved rounds, medians and spreads, with several numbers of files in
# flight (--parallel; this chose its default).
#
#   flock /tmp/ferry-build.lock bench/ferry-many-files.sh [REPS] [FILES] [FILE_SIZE]    (defaults: 3 1024 1M)
#
# Environment: PARALLEL (the --parallel values, default "1 4 8 16 32"), SEND_JAVA_OPTS, OUT (results directory, default
# bench/results/DATE-ferry-many-files), SEND_ARGS (extra `ferry send` options), FERRY_JAR (run senders as
# `java -jar FERRY_JAR` instead of through the ./ferry launcher), SKIP="rsync in-jvm".
# The files are spread over 16 directories. Every writer starts the same way (`settle` in ferry-bench-lib.sh: the
# previous tree deleted, a scratch file of the tree's size written and deleted). Two tables: rates (ferry's from its
# --json summary, connect to last verdict, both ends hashing, the sender's hash cache warm from round 2 on;
# rsync's from the wall time of the command) with CPU seconds per GiB of both ends, and the wall times of the
# commands (a user's stopwatch, ferry's JVM start included). The first send into the fresh receiver is its own
# row (round 0), then WARMUP (default 5) sends that warm the receiver (row ferry-warm-up). Row ferry-in-jvm is the
# same `ferry send --parallel 4` run inside one long-lived JVM (bench/FerryInJvm.java, warmed by WARMUP sends of its
# own, C1 only as the launcher runs a plain TCP send): what an application that keeps its JVM sees, and what a fresh
# JVM's start and JIT warm-up cost each command (wall = the command inside that JVM, no JVM start; CPU = that JVM's
# over the command). SKIP="in-jvm" leaves it out. Rows ferry-start and rsync-start send one 1-byte file the same
# way: each command's fixed cost; ferry-start-in-jvm is that send inside the long-lived JVM, so that a fresh JVM's own
# cost (ferry-start - ferry-start-in-jvm) and with it the floor of a fresh `ferry send` of the tree (that cost +
# ferry-in-jvm) are measured in the same run. SKIP="start" leaves them out.
# Every received tree is compared with the source.
# Needs rsync and jq (Debian packages); starts its own rsync daemon and ferry receiver and stops each by its PID.
set -euo pipefail
cd "$(dirname "$0")/.."
REPS=${1:-3}
FILES=${2:-1024}
FSIZE=${3:-1M}
PARALLEL=${PARALLEL:-1 4 8 16 32}
JAR=${FERRY_JAR:-ferry-cli/target/ferry.jar}
STAMP=$(date -u +%Y-%m-%dT%H%MZ)
OUT=${OUT:-bench/results/$(date -u +%Y-%m-%d)-ferry-many-files}
SKIP=${SKIP:-}
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
JAR=$(cd "$(dirname "$JAR")" && pwd)/$(basename "$JAR")
[ -f "$JAR" ] || { echo "no $JAR: build it first (./mvnw -pl ferry-cli -am package)"; exit 1; }
for tool in rsync jq; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install rsync jq"; exit 1; }
done

WORK=$(mktemp -d /dev/shm/ferry-many.XXXXXX)
# shellcheck source=bench/ferry-bench-lib.sh
. bench/ferry-bench-lib.sh
trap cleanup EXIT
mkdir -p "$WORK/src/tree" "$WORK/dst"
export XDG_CACHE_HOME=$WORK/cache   # ferry's hash cache for this run only
for i in $(seq 0 $((FILES - 1))); do
  d=$WORK/src/tree/d$((i % 16))
  mkdir -p "$d"
  head -c "$FSIZE" /dev/urandom > "$d/f$i.bin"
done
BYTES=$(du -sb --apparent-size "$WORK/src/tree" | cut -f1)
mkdir -p "$WORK/src/start" && head -c 1 /dev/urandom > "$WORK/src/start/start.bin"
same_tree() { diff -rq "$WORK/src/tree" "$WORK/dst/tree" > /dev/null || { echo "$1: the received tree differs"; exit 1; }; }

FPORT=$(port)
java -jar "$JAR" receive --listen "tcp://127.0.0.1:$FPORT" --dir "$WORK/dst" --overwrite > "$WORK/recv.log" 2>&1 & RECV_PID=$!; PIDS+=($RECV_PID)
wait_port "$FPORT"
if ! skip rsync; then
  start_rsyncd
fi

RESULTS=$OUT/rounds.tsv
results_header
ferry_tree() {  # ROUND TOOL PARALLEL: one ferry send of the tree, timed, compared, recorded
  settle "$WORK/dst/tree"
  ferry_cmd "${SEND_JAVA_OPTS:-}"
  # shellcheck disable=SC2086
  timed "$RECV_PID" "${SEND[@]}" ${SEND_ARGS:-} --parallel "$3" "$WORK/src/tree" "tcp://127.0.0.1:$FPORT" --json 2> "$WORK/send.err" \
    || { echo "ferry send --parallel $3 failed: $(tail -1 "$WORK/timed.out")"; tail -5 "$WORK/send.err"; tail -20 "$WORK/recv.log"; exit 1; }
  local j
  j=$(tail -1 "$WORK/timed.out")
  [ "$(jq .ok <<<"$j")" = true ] || { echo "ferry send --parallel $3 failed: $j"; cat "$WORK/send.err"; exit 1; }
  same_tree "ferry --parallel $3"
  record "$1" "$2" "$(jq '.bytesPerSecond / 1048576 * 10 | round / 10' <<<"$j")" "$(jq .seconds <<<"$j")" "$WALL" "$CPU_SEND" "$CPU_RECV"
}

# start_rows ROUND: one 1-byte file by ferry send and by rsync, each command's fixed cost by wall time
start_rows() {
  ferry_cmd "${SEND_JAVA_OPTS:-}"
  # shellcheck disable=SC2086
  timed "$RECV_PID" "${SEND[@]}" ${SEND_ARGS:-} "$WORK/src/start/start.bin" "tcp://127.0.0.1:$FPORT" --json 2> "$WORK/send.err" \
    || { echo "ferry send of one byte failed"; tail -5 "$WORK/send.err"; exit 1; }
  cmp -s "$WORK/src/start/start.bin" "$WORK/dst/start.bin" || { echo "ferry-start: the received file differs"; exit 1; }
  record "$1" ferry-start 0 "$WALL" "$WALL" "$CPU_SEND" "$CPU_RECV"
  rm -f "$WORK/dst/start.bin"
  if ! skip in-jvm; then
    ferry_in_jvm "$1" ferry-start-in-jvm "$WORK/src/start/start.bin"
    cmp -s "$WORK/src/start/start.bin" "$WORK/dst/start.bin" || { echo "ferry-start-in-jvm: the received file differs"; exit 1; }
    rm -f "$WORK/dst/start.bin"
  fi
  if ! skip rsync; then
    timed "$RSYNCD_PID" rsync --whole-file "$WORK/src/start/start.bin" "rsync://127.0.0.1:$RPORT/dst/"
    cmp -s "$WORK/src/start/start.bin" "$WORK/dst/start.bin" || { echo "rsync-start: the received file differs"; exit 1; }
    record "$1" rsync-start 0 "$WALL" "$WALL" "$CPU_SEND" "$CPU_RECV"
    rm -f "$WORK/dst/start.bin"
  fi
}

# ferry_in_jvm ROUND TOOL [SOURCE]: the same send (of the tree, or of SOURCE) as a command of the long-lived JVM
# started below (its coprocess INJVM)
ferry_in_jvm() {
  [ -n "${3:-}" ] || settle "$WORK/dst/tree"   # (a 1-byte send needs no tree-sized scratch write before it)
  local r0 r1 rc line args
  # shellcheck disable=SC2206
  args=(send ${SEND_ARGS:-} --parallel 4 "${3:-$WORK/src/tree}" "tcp://127.0.0.1:$FPORT" --json)
  r0=$(cpu_ticks "$RECV_PID")
  echo "${args[*]}" >&"${INJVM[1]}"
  read -r line <&"${INJVM[0]}" || { echo "ferry in one JVM: it ended"; tail -20 "$WORK/injvm.err"; exit 1; }
  sleep 0.3
  r1=$(cpu_ticks "$RECV_PID")
  read -r rc WALL CPU_SEND <<<"$line"
  local j
  j=$(tail -1 "$WORK/injvm.out")
  [ "$rc" = 0 ] && [ "$(jq .ok <<<"$j")" = true ] || { echo "ferry send in one JVM failed: $j"; tail -20 "$WORK/injvm.err"; exit 1; }
  [ -n "${3:-}" ] || same_tree "ferry in one JVM"
  CPU_RECV=$(python3 -c "print('%.2f' % (($r1 - $r0) / $TICK))")
  record "$1" "$2" "$(jq '.bytesPerSecond / 1048576 * 10 | round / 10' <<<"$j")" "$(jq .seconds <<<"$j")" "$WALL" "$CPU_SEND" "$CPU_RECV"
}
if ! skip in-jvm; then
  coproc INJVM { exec java -XX:TieredStopAtLevel=1 --add-opens java.base/java.nio=ALL-UNNAMED -cp "$JAR" bench/FerryInJvm.java "$WORK/injvm.out" 2> "$WORK/injvm.err"; }
  PIDS+=($INJVM_PID)
fi

echo "ferry many files, $STAMP, $(nproc) cores, $(uname -r), $FILES files of $FSIZE ($BYTES bytes) in 16 directories, $REPS rounds; results in $OUT"
ferry_tree 0 ferry-fresh-receiver 4
# A receiver is a daemon that has run for a while: WARMUP more sends (default 5) let its JIT settle (its CPU per
# send fell from 0.75 to 0.30-0.39 s over the first five in 4,096 x 64 KiB); their own row shows the warming.
for w in $(seq "${WARMUP:-5}"); do ferry_tree 0 ferry-warm-up 4; done
if ! skip in-jvm; then for w in $(seq "${WARMUP:-5}"); do ferry_in_jvm 0 ferry-in-jvm-warm-up; done; fi
for r in $(seq "$REPS"); do
  for p in $PARALLEL; do
    ferry_tree "$r" "ferry-p$p" "$p"
  done
  if ! skip in-jvm; then
    ferry_in_jvm "$r" ferry-in-jvm
  fi
  if ! skip start; then
    start_rows "$r"
  fi
  if ! skip rsync; then
    settle "$WORK/dst/tree"
    timed "$RSYNCD_PID" rsync -r --whole-file "$WORK/src/tree" "rsync://127.0.0.1:$RPORT/dst/"
    same_tree rsync
    record "$r" rsync "$(mibs "$WALL")" "$WALL" "$WALL" "$CPU_SEND" "$CPU_RECV"
  fi
done

HEAD="$STAMP, $FILES files of $FSIZE in 16 directories, $REPS rounds, loopback, tmpfs"
python3 bench/ferry-bench-summary.py "$RESULTS" "$OUT/summary.md" "$HEAD" --per rsync --bytes "$BYTES" \
  --wall-only ferry-start --wall-only ferry-start-in-jvm --wall-only rsync-start
python3 bench/ferry-bench-summary.py "$RESULTS" "$OUT/wall.md" "$HEAD, wall time of each command" --wall --per rsync
