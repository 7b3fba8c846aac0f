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
# record ROUND TOOL MIB_S SECONDS [WALL CPU_SEND CPU_RECV]: one row of RESULTS (the last three from `timed`)
record() {
  local wall=${5:-} cs=${6:-} cr=${7:-}
  echo -e "$1\t$2\t$3\t$4\t$wall\t$cs\t$cr" >> "$RESULTS"
  printf '  round %s %-16s %8s MiB/s (%ss)%s\n' "$1" "$2" "$3" "$4" "${wall:+  wall ${wall}s, CPU s: sender $cs receiver $cr}"
}
results_header() { echo -e "round\ttool\tMiB_s\tseconds\twall_s\tcpu_send_s\tcpu_recv_s" > "$RESULTS"; }

# settle: the same start for every writer. Deletes what the last one wrote, then writes and deletes a scratch file
# of BYTES on the destination's file system, so that each writer takes pages the guest used a moment ago. On these
# VMs (Firecracker, virtio-balloon with free page reporting) a page the guest has not touched lately is faulted in
# by the host at 100-350 MB/s, ten times slower than a recycled one; which kind a writer gets otherwise depends on
# what ran before it (bench/results/2026-11-27-ferry-speed-method).
settle() {
  rm -rf "$@"
  sync
  head -c "$BYTES" /dev/zero > "$WORK/dst/.settle"
  rm -f "$WORK/dst/.settle"
}

# cpu_ticks PID: CPU time of a process and of the children it has reaped (a daemon's sessions), in clock ticks
cpu_ticks() { awk '{print $14 + $15 + $16 + $17}' "/proc/$1/stat"; }
TICK=$(getconf CLK_TCK)

# timed RECEIVER_PID COMMAND...: runs COMMAND (its stdout into $WORK/timed.out) and sets WALL (the command's
# wall seconds, as a user's stopwatch), CPU_SEND (its CPU seconds, user + system, JVM start included) and
# CPU_RECV (what the long-running receiver RECEIVER_PID spent meanwhile, its reaped children included)
timed() {
  local rpid=$1; shift
  local r0 r1
  r0=$(cpu_ticks "$rpid")
  /usr/bin/time -f '%e %U %S' -o "$WORK/timed.time" "$@" > "$WORK/timed.out"
  sleep 0.3   # a daemon reaps its session's process after the client returns
  r1=$(cpu_ticks "$rpid")
  read -r WALL u s < "$WORK/timed.time"
  CPU_SEND=$(python3 -c "print('%.2f' % ($u + $s))")
  CPU_RECV=$(python3 -c "print('%.2f' % (($r1 - $r0) / $TICK))")
}

# ferry_cmd "JVM OPTIONS": the command line of one `ferry send` into the array SEND, through the ./ferry launcher
# as a user runs it (its JVM options, class data sharing), or `java -jar FERRY_JAR` where FERRY_JAR is set
ferry_cmd() {
  # shellcheck disable=SC2206
  if [ -n "${FERRY_JAR:-}" ]; then SEND=(java $1 -jar "$JAR" send); else SEND=(env "FERRY_JAVA_OPTS=$1" ./ferry send); fi
}

# start_rsyncd: an rsync daemon (RSYNCD_PID) on 127.0.0.1:RPORT (both set here) serving module "dst" = $WORK/dst, no encryption
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
  rsync --daemon --no-detach --address=127.0.0.1 --port="$RPORT" --config="$WORK/rsyncd.conf" --log-file="$WORK/rsyncd.log" & RSYNCD_PID=$!; PIDS+=($RSYNCD_PID)
  wait_port "$RPORT"
}

# start_sshd ADDRESS [COMMAND PREFIX...]: an sshd (SSHD_PID) on ADDRESS:SPORT with throwaway host and user keys in
# $WORK/ssh, run under the prefix (e.g. `ip netns exec NS`); SSH_OPTS are the client options that log in with them
start_sshd() {
  local addr=$1; shift
  SPORT=$(port)
  mkdir -p "$WORK/ssh" /run/sshd
  ssh-keygen -q -t ed25519 -N '' -f "$WORK/ssh/host_key"
  ssh-keygen -q -t ed25519 -N '' -f "$WORK/ssh/user_key"
  cp "$WORK/ssh/user_key.pub" "$WORK/ssh/authorized_keys"
  chmod 600 "$WORK/ssh/authorized_keys"
  cat > "$WORK/ssh/sshd_config" <<EOF
ListenAddress $addr
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
  "$@" /usr/sbin/sshd -D -e -f "$WORK/ssh/sshd_config" > "$WORK/sshd.log" 2>&1 & SSHD_PID=$!; PIDS+=($SSHD_PID)
  for _ in $(seq 200); do "$@" ss -ltn | grep -q "$addr:$SPORT " && break; sleep 0.05; done
  SSH_OPTS=(-i "$WORK/ssh/user_key" -o StrictHostKeyChecking=no -o UserKnownHostsFile=/dev/null -o LogLevel=ERROR -o BatchMode=yes)
}
