# Shared by bench/ferry-speed.sh and bench/ferry-many-files.sh (sourced, not run; their tables come from
# bench/ferry-bench-summary.py). Expects WORK (a scratch
# directory), JAR, SKIP, and for mibs/record BYTES and RESULTS, set by the script that sources it.

PIDS=()   # background processes this run started; cleanup stops each by its PID
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null || true; done
  for pid in "${PIDS[@]}"; do wait "$pid" 2>/dev/null || true; done
  rm -rf "$WORK"
}
port() { python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
now() { date +%s.%N; }
mibs() { python3 -c "import sys; print('%.1f' % ($BYTES / 1048576 / float(sys.argv[1])))" "$1"; }
wait_port() { for _ in $(seq 200); do ss -ltn | grep -q ":$1 " && return 0; sleep 0.05; done; echo "nothing listens on $1"; exit 1; }
skip() { [[ " $SKIP " == *" $1 "* ]]; }
record() { echo -e "$1\t$2\t$3\t$4" >> "$RESULTS"; printf '  round %s %-14s %8s MiB/s (%ss)\n' "$1" "$2" "$3" "$4"; }

# send_ferry "JVM OPTIONS" ARGS...: one `ferry send`, through the launcher unless FERRY_JAR names a jar
send_ferry() {
  local opts=$1; shift
  # shellcheck disable=SC2086
  if [ -n "${FERRY_JAR:-}" ]; then java $opts -jar "$JAR" send "$@"; else FERRY_JAVA_OPTS="$opts" ./ferry send "$@"; fi
}

# start_rsyncd: an rsync daemon on 127.0.0.1:RPORT (set here) serving module "dst" = $WORK/dst, no encryption
# (rsync's fastest way over a network)
start_rsyncd() {
  RPORT=$(port)
  cat > "$WORK/rsyncd.conf" <<EOF
use chroot = no
[dst]
path = $WORK/dst
read only = no
uid = $(id -u)
gid = $(id -g)
EOF
  rsync --daemon --no-detach --address=127.0.0.1 --port="$RPORT" --config="$WORK/rsyncd.conf" --log-file="$WORK/rsyncd.log" & PIDS+=($!)
  wait_port "$RPORT"
}
