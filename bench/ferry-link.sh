#!/usr/bin/env bash
# `ferry send` of one file over an emulated link beside what people move files with there: scp and rsync over ssh,
# the kernel's own TCP file copy (bench/tcp-file-copy.py: sendfile, then wait until the receiver has written every
# byte) and iperf3 writing what it receives into a file. Interleaved rounds, every received file compared with the
# source, each command's wall time (a user's stopwatch: JVM start, ssh's handshake, iperf3's control connection all
# included). Needs root (network namespaces and the TUN emulator of the bench module), iperf3, openssh-server/-client
# and rsync (Debian packages). iperf3's row is not a delivered file: its client stops the clock once its bytes are
# in its socket buffer (up to 64 MiB in a namespace) and its -F server (3.12) leaves the file short by what was
# still in flight; tcp-copy is the kernel reference that delivers.
#   bench/ferry-link.sh [ROUNDS] [SIZE] [MBIT] [RTT_MS] [LOSS] [FERRY] [CC]
#   bench/ferry-link.sh 3 100M 200 150 0 "tcp tcp*4 udt utp"
#   bench/ferry-link.sh 3 5M 20 100 0.01 "tcp utp" cubic
# FERRY: the ferry sends to run, a scheme each (tcp, utp, udt, quic), with *N for --streams N.
# CC: the kernel TCP's congestion control on the link's routes in both namespaces (default: the kernel's own, bbr on
# these machines); it applies to ferry over tcp, scp, rsync, tcp-copy and iperf3. SKIP="scp rsync tcp-copy iperf3-file":
# tools to leave out.
# OUT: where rounds.tsv and summary.md go (default bench/results/DATE-ferry-link).
set -euo pipefail
cd "$(dirname "$0")/.."
ROUNDS=${1:-3}; SIZE=${2:-100M}; MBIT=${3:-200}; RTT=${4:-150}; LOSS=${5:-0}; FERRY=${6:-"tcp udt utp"}; CC=${7:-}
SKIP=${SKIP:-}
[ "$(id -u)" = 0 ] || { echo "ferry-link: needs root (network namespaces)"; exit 1; }
for tool in iperf3 rsync scp ssh-keygen /usr/sbin/sshd; do
  command -v "$tool" >/dev/null || { echo "missing $tool: apt-get install iperf3 rsync openssh-server openssh-client"; exit 1; }
done
./ferry --version >/dev/null                 # builds ferry.jar first if it is stale
[ -f bench/target/benchmarks.jar ] || ./mvnw -q -B -DskipTests -pl bench -am package
OUT=${OUT:-bench/results/$(date -u +%Y-%m-%d)-ferry-link}
mkdir -p "$OUT"
WORK=$(mktemp -d)
# shellcheck source=bench/ferry-bench-lib.sh
. bench/ferry-bench-lib.sh
trap cleanup EXIT
FILE=$WORK/file
head -c "$(numfmt --from=iec "$SIZE")" /dev/urandom > "$FILE"

java -cp bench/target/benchmarks.jar io.ferry.bench.emulator.LinkCommand --mbit "$MBIT" --rtt-ms "$RTT" --loss "$LOSS" \
    --seconds 3600 > "$WORK/link.txt" 2>&1 &
PIDS+=($!)
for _ in $(seq 100); do grep -q '^link ' "$WORK/link.txt" && break; sleep 0.1; done
read -r CNS SNS SADDR < <(sed -n 's/^link client=\([^ ]*\) [^ ]*  server=\([^ ]*\) \([^ ]*\) .*/\1 \2 \3/p' "$WORK/link.txt")
[ -n "${SADDR:-}" ] || { cat "$WORK/link.txt"; exit 1; }
C=(ip netns exec "$CNS"); S=(ip netns exec "$SNS")
CC_NOW=$("${C[@]}" sysctl -n net.ipv4.tcp_congestion_control)
if [ -n "$CC" ]; then
  # on the routes of the link (`congctl`): a namespace may only make its default one the host allows unprivileged
  # (tcp_allowed_congestion_control: reno and bbr here), and this leaves the host's settings alone
  for ns in "$CNS" "$SNS"; do
    ip netns exec "$ns" ip route show dev ferry0 | while read -r route; do
      # shellcheck disable=SC2086
      ip netns exec "$ns" ip route change $route dev ferry0 congctl "$CC"
    done
  done
  CC_NOW=$CC
fi
if ! skip scp || ! skip rsync; then
  start_sshd "$SADDR" "${S[@]}"
fi
RESULTS=$OUT/rounds.tsv
echo -e "round\ttool\tMiB_s\tseconds\twall_s\tcpu_send_s\tcpu_recv_s" > "$RESULTS"
BYTES=$(stat -c %s "$FILE")
LINE="$(head -1 "$WORK/link.txt"), kernel TCP $CC_NOW"
echo "$LINE"

same() {  # TOOL RECEIVED: the received file must be the source
  cmp -s "$FILE" "$2" || { echo "ferry-link: $1 delivered a different file" >&2; exit 1; }
}
row() {  # ROUND TOOL SECONDS
  echo -e "$1\t$2\t$(mibs "$3")\t$3\t$3\t\t" >> "$RESULTS"
  printf '  round %s %-12s %7ss\n' "$1" "$2" "$3"
}
# stopwatch LOG COMMAND...: runs COMMAND (stdout and stderr into LOG) and sets SECS to its wall seconds
stopwatch() {
  local log=$1 t0 t1 rc=0; shift
  t0=$(now); "$@" > "$log" 2>&1 || rc=$?; t1=$(now)
  SECS=$(python3 -c "print('%.2f' % ($t1 - $t0))")
  return $rc
}

ferry_once() {  # ROUND VARIANT: one ferry send (VARIANT: scheme[*streams]) into a fresh receiver
  local scheme=${2%\**} streams=1 port=9000 out=$WORK/in
  [[ $2 == *\** ]] && streams=${2#*\*}
  rm -rf "$out"; mkdir -p "$out"
  "${S[@]}" ./ferry receive --listen "$scheme://$SADDR:$port" --dir "$out" --once --overwrite > "$WORK/recv.log" 2>&1 &
  local rpid=$!
  for _ in $(seq 200); do grep -q "receiving into" "$WORK/recv.log" 2>/dev/null && break; sleep 0.05; done
  stopwatch "$WORK/send.log" "${C[@]}" ./ferry send --streams "$streams" "$FILE" "$scheme://$SADDR:$port" \
    || { cat "$WORK/send.log" "$WORK/recv.log" >&2; exit 1; }
  wait "$rpid" || { echo "ferry-link: the $2 receiver failed:" >&2; cat "$WORK/recv.log" >&2; exit 1; }
  same "ferry $2" "$out/file"
  cp "$WORK/send.log" "$OUT/send-$1-${2/\*/x}.log"   # its session line: the time from connect to the verdict
  row "$1" "ferry-$2" "$SECS"
}

for r in $(seq "$ROUNDS"); do
  for v in $FERRY; do
    ferry_once "$r" "$v"
  done
  rm -rf "$WORK/in"; mkdir -p "$WORK/in"
  if ! skip scp; then
    stopwatch "$WORK/scp.log" "${C[@]}" scp -q -P "$SPORT" "${SSH_OPTS[@]}" "$FILE" "root@$SADDR:$WORK/in/file"
    same scp "$WORK/in/file"; row "$r" scp "$SECS"; rm -f "$WORK/in/file"
  fi
  if ! skip rsync; then
    stopwatch "$WORK/rsync.log" "${C[@]}" rsync --whole-file -e "ssh -p $SPORT ${SSH_OPTS[*]}" "$FILE" "root@$SADDR:$WORK/in/file"
    same rsync "$WORK/in/file"; row "$r" rsync "$SECS"; rm -f "$WORK/in/file"
  fi
  if ! skip tcp-copy; then   # the kernel's TCP file copy, timed until the receiver has written every byte
    "${S[@]}" python3 bench/tcp-file-copy.py serve "$SADDR" 5202 "$WORK/in/copy.bin" &
    cpid=$!
    for _ in $(seq 100); do "${S[@]}" ss -ltn | grep -q "$SADDR:5202 " && break; sleep 0.05; done
    stopwatch "$WORK/copy.log" "${C[@]}" python3 bench/tcp-file-copy.py send "$FILE" "$SADDR" 5202 \
      || { cat "$WORK/copy.log" >&2; exit 1; }
    wait "$cpid"
    same tcp-copy "$WORK/in/copy.bin"; row "$r" tcp-copy "$SECS"; rm -f "$WORK/in/copy.bin"
  fi
  if ! skip iperf3-file; then
    "${S[@]}" iperf3 -s -1 -B "$SADDR" -p 5201 -F "$WORK/in/iperf3.bin" > /dev/null 2>&1 &
    ipid=$!
    for _ in $(seq 100); do "${S[@]}" ss -ltn | grep -q "$SADDR:5201 " && break; sleep 0.05; done
    stopwatch "$WORK/iperf3.log" "${C[@]}" iperf3 -c "$SADDR" -p 5201 -F "$FILE" -n "$BYTES"
    wait "$ipid" || true
    row "$r" iperf3-file "$SECS"; rm -f "$WORK/in/iperf3.bin"
  fi
done
per=(); for t in scp rsync tcp-copy iperf3-file; do skip "$t" || per+=(--per "$t"); done
python3 bench/ferry-bench-summary.py "$RESULTS" "$OUT/summary.md" "$(date -u +%Y-%m-%dT%H%MZ), $SIZE, $LINE, $ROUNDS rounds, wall time of each command" \
  --wall "${per[@]}"
