#!/usr/bin/env bash
# `ferry send` of one file over an emulated link, per transport, interleaved rounds, each file verified by
# ferry itself (exit 0 only after the receiver's checksum matched), with iperf3 on the same link as the
# reference. Needs root (network namespaces and the TUN emulator of the bench module).
#   bench/ferry-link.sh [ROUNDS] [SIZE] [MBIT] [RTT_MS] [LOSS] [TRANSPORTS]
#   bench/ferry-link.sh 3 100M 200 150 0 "tcp udt utp"
# Prints each round's wall time of the `ferry send` command (JVM start included) and the medians.
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}; SIZE=${2:-100M}; MBIT=${3:-200}; RTT=${4:-150}; LOSS=${5:-0}; TRANSPORTS=${6:-"tcp udt utp"}
[ "$(id -u)" = 0 ] || { echo "ferry-link: needs root (network namespaces)"; exit 1; }
./ferry --version >/dev/null                 # builds ferry.jar first if it is stale
[ -f bench/target/benchmarks.jar ] || ./mvnw -q -B -DskipTests -pl bench -am package
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
trap cleanup EXIT
head -c "$(numfmt --from=iec "$SIZE")" /dev/urandom > "$WORK/file"

java -cp bench/target/benchmarks.jar io.ferry.bench.emulator.LinkCommand --mbit "$MBIT" --rtt-ms "$RTT" --loss "$LOSS" \
    --seconds 3600 > "$WORK/link.txt" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q '^link ' "$WORK/link.txt" && break; sleep 0.1; done
read -r CNS SNS SADDR < <(sed -n 's/^link client=\([^ ]*\) [^ ]*  server=\([^ ]*\) \([^ ]*\) .*/\1 \2 \3/p' "$WORK/link.txt")
[ -n "${SADDR:-}" ] || { cat "$WORK/link.txt"; exit 1; }
head -1 "$WORK/link.txt"

one() {  # one transfer: $1 the scheme; prints the send command's wall seconds
  local t=$1 port=9000 out=$WORK/in-$1
  rm -rf "$out"; mkdir -p "$out"
  ip netns exec "$SNS" ./ferry receive --listen "$t://$SADDR:$port" --dir "$out" --once --overwrite > "$WORK/recv.log" 2>&1 &
  local rpid=$!
  for _ in $(seq 200); do grep -q "receiving into" "$WORK/recv.log" 2>/dev/null && break; sleep 0.05; done
  local start end
  start=$(date +%s.%N)
  ip netns exec "$CNS" ./ferry send "$WORK/file" "$t://$SADDR:$port" > "$WORK/send.log" 2>&1 || { cat "$WORK/send.log" "$WORK/recv.log" >&2; exit 1; }
  end=$(date +%s.%N)
  wait "$rpid" || { echo "ferry-link: the $t receiver failed:" >&2; cat "$WORK/recv.log" >&2; exit 1; }
  cmp -s "$WORK/file" "$out/file" || { echo "ferry-link: $t delivered a different file" >&2; exit 1; }
  python3 -c "print('%.2f' % ($end - $start))"
}

declare -A times
for r in $(seq "$ROUNDS"); do
  for t in $TRANSPORTS; do
    s=$(one "$t") || exit 1; times[$t]+="$s "
    printf '  round %s %-4s %7ss\n' "$r" "$t" "$s"
  done
  ip netns exec "$SNS" iperf3 -s -1 -B "$SADDR" -p 5201 > /dev/null 2>&1 &
  ipid=$!; sleep 0.5
  s=$(ip netns exec "$CNS" iperf3 -c "$SADDR" -p 5201 -n "$SIZE" -C cubic -J | python3 -c \
      'import json,sys; e=json.load(sys.stdin)["end"]["sum_received"]; print("%.2f" % e["seconds"])')
  wait "$ipid" || true
  times[iperf3]+="$s "
  printf '  round %s %-6s %5ss (iperf3 -n %s -C cubic, its own receiver time)\n' "$r" iperf3 "$s" "$SIZE"
done
echo "median wall time of $SIZE over $MBIT Mbit/s, $RTT ms RTT, loss $LOSS each way ($ROUNDS rounds):"
for t in $TRANSPORTS iperf3; do
  python3 -c "import statistics,sys; v=[float(x) for x in sys.argv[2:]]; print('  %-6s %6.2f s  (%s)' % (sys.argv[1], statistics.median(v), ' '.join(sys.argv[2:])))" "$t" ${times[$t]}
done
