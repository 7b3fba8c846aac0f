#!/usr/bin/env bash
# Issue 16, many files: `ferry send DIR` with several numbers of files in flight (--parallel) against an rsync
# daemon (`rsync -r --whole-file`, no encryption), side by side on loopback with source and destination on tmpfs,
# REPS interleaved rounds, medians and spreads. This is the measurement that chose the default of --parallel.
#
#   flock /tmp/ferry-build.lock bench/ferry-many-files.sh [REPS] [FILES] [FILE_SIZE]    (defaults: 3 1024 1M)
#
# Environment: PARALLEL (the --parallel values, default "1 4 8 16 32"), SEND_JAVA_OPTS, OUT (results directory, default
# bench/results/DATE-ferry-many-files), SEND_ARGS (extra `ferry send` options), FERRY_JAR (run senders as
# `java -jar FERRY_JAR` instead of through the ./ferry launcher), SKIP="rsync".
# The files are spread over 16 directories. Each round deletes the previous destination tree just before each
# writer (see ferry-cli README, Speed, on why that matters on these VMs). ferry's rate is from its --json
# summary (connect to last verdict, both ends hashing; the sender's hash cache is warm from round 2 on), rsync's
# from the wall time of the command. Every received tree is compared with the source.
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
clear_dst() { rm -rf "$WORK/dst/tree"; sync; }
same_tree() { diff -rq "$WORK/src/tree" "$WORK/dst/tree" > /dev/null || { echo "$1: the received tree differs"; exit 1; }; }

FPORT=$(port)
java -jar "$JAR" receive --listen "tcp://127.0.0.1:$FPORT" --dir "$WORK/dst" --overwrite > "$WORK/recv.log" 2>&1 & PIDS+=($!)
wait_port "$FPORT"
if ! skip rsync; then
  start_rsyncd
fi

RESULTS=$OUT/rounds.tsv
echo -e "round\ttool\tMiB_s\tseconds" > "$RESULTS"

echo "ferry many files, $STAMP, $(nproc) cores, $(uname -r), $FILES files of $FSIZE ($BYTES bytes) in 16 directories, $REPS rounds; results in $OUT"
for r in $(seq "$REPS"); do
  for p in $PARALLEL; do
    clear_dst
    j=$(send_ferry "${SEND_JAVA_OPTS:-}" ${SEND_ARGS:-} --parallel "$p" "$WORK/src/tree" "tcp://127.0.0.1:$FPORT" --json 2> "$WORK/send.err" | tail -1)
    [ "$(jq .ok <<<"$j")" = true ] || { echo "ferry send --parallel $p failed: $j"; cat "$WORK/send.err"; exit 1; }
    same_tree "ferry --parallel $p"
    record "$r" "ferry-p$p" "$(jq '.bytesPerSecond / 1048576 * 10 | round / 10' <<<"$j")" "$(jq .seconds <<<"$j")"
  done
  if ! skip rsync; then
    clear_dst
    t0=$(now); rsync -r --whole-file "$WORK/src/tree" "rsync://127.0.0.1:$RPORT/dst/"; t1=$(now)
    same_tree rsync
    s=$(python3 -c "print('%.3f' % ($t1 - $t0))"); record "$r" rsync "$(mibs "$s")" "$s"
  fi
done

python3 bench/ferry-bench-summary.py "$RESULTS" "$OUT/summary.md" \
  "$STAMP, $FILES files of $FSIZE in 16 directories, $REPS rounds, loopback, tmpfs" --per rsync
