#!/usr/bin/env python3
"""ferry at an 80x24 terminal, as a person meets it (run by .ci/run after the build).

For every transport (tcp, utp, udt, quic): a receiver in the background, and `ferry send` of a tree of 60
files (an empty directory, a symbolic link inside the tree, a 750 script, times in the past) in a
pseudo-terminal of 80 columns and 24 rows. Checks that the sender exits 0, that no line it drew (every
redraw of its progress line included) is wider than 80 columns, that it printed no stack trace, and that
`rsync -a --dry-run --itemize-changes` finds nothing to change between the tree and what arrived (contents,
permission bits, modification times, empty directories, links). Then the same with the receiver killed
(SIGKILL) mid-transfer: the sender prints one `ferry send:` line within 5 s and exits 1.

Usage: terminal_session.py FERRY_JAR [SCHEME...]
"""
import fcntl
import os
import pty
import random
import re
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import termios
import time

COLUMNS, ROWS = 80, 24
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def fail(message):
    print("terminal_session: " + message, file=sys.stderr)
    sys.exit(1)


def make_tree(root):
    """60 regular files in nested directories, an empty directory, a link inside the tree, a 750 script."""
    rnd = random.Random(57)
    tree = os.path.join(root, "tree")
    dirs = ["", "docs", "docs/old", "src/main", "src/test", "data"]
    for d in dirs:
        os.makedirs(os.path.join(tree, d), exist_ok=True)
    os.makedirs(os.path.join(tree, "empty/also-empty"))
    for i in range(59):
        path = os.path.join(tree, dirs[i % len(dirs)], "file-%02d.bin" % i)
        with open(path, "wb") as f:
            f.write(rnd.randbytes(rnd.choice([0, 1, 700, 4096, 65536, 300000, 1500000])))
    script = os.path.join(tree, "run.sh")
    with open(script, "w") as f:
        f.write("#!/bin/sh\necho ferry\n")
    os.chmod(script, 0o750)
    os.chmod(os.path.join(tree, "docs/old"), 0o700)
    os.symlink("../data/file-05.bin", os.path.join(tree, "docs/latest"))
    stamp = 1_600_000_000
    for dirpath, dirnames, filenames in os.walk(tree, topdown=False):
        for name in filenames + dirnames:
            stamp += 7
            os.utime(os.path.join(dirpath, name), (stamp, stamp), follow_symlinks=False)
    os.utime(tree, (stamp + 1, stamp + 1))
    return tree


def start_receiver(jar, scheme, into):
    proc = subprocess.Popen(["java", "-jar", jar, "receive", "--listen", scheme + "://127.0.0.1:0", "--dir", into],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    deadline = time.time() + 60
    while time.time() < deadline:
        line = proc.stdout.readline()
        if not line:
            break
        m = re.search(r" on (\w+://\S+)", line)
        if line.startswith("receiving into") and m:
            return proc, m.group(1)
    proc.kill()
    fail("the %s receiver never said where it listens" % scheme)


def in_terminal(argv, kill_after=None, victim=None):
    """Runs argv in an 80x24 pseudo-terminal; returns (exit code, output, seconds from the kill to the exit)."""
    pid, fd = pty.fork()
    if pid == 0:
        fcntl.ioctl(0, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLUMNS, 0, 0))
        os.execvp(argv[0], argv)
    out = bytearray()
    started = time.time()
    killed_at = None
    while True:
        if kill_after is not None and killed_at is None and time.time() - started >= kill_after:
            victim.send_signal(signal.SIGKILL)
            killed_at = time.time()
        ready, _, _ = select.select([fd], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(fd, 65536)
            except OSError:
                break
            if not chunk:
                break
            out += chunk
        if time.time() - started > 300:
            os.kill(pid, signal.SIGKILL)
            fail("%s still running after 300 s" % " ".join(argv))
    _, status = os.waitpid(pid, 0)
    ended = time.time()
    os.close(fd)
    return os.waitstatus_to_exitcode(status), out.decode("utf-8", "replace"), (ended - killed_at) if killed_at else None


def check_output(scheme, text):
    for line in re.split(r"[\r\n]", ANSI.sub("", text)):
        if len(line) > COLUMNS and not line.startswith("ferry send:"):  # an error's one line may wrap
            fail("%s: a line of %d columns at an %d-column terminal: %r" % (scheme, len(line), COLUMNS, line))
    if "Exception" in text or "\tat " in text:
        fail("%s: a stack trace reached the terminal:\n%s" % (scheme, text))


def main():
    jar = os.path.abspath(sys.argv[1])
    schemes = sys.argv[2:] or ["tcp", "utp", "udt", "quic"]
    work = tempfile.mkdtemp(prefix="ferry-terminal-")
    try:
        tree = make_tree(work)
        big = os.path.join(work, "big.bin")
        with open(big, "wb") as f:
            f.write(os.urandom(200 << 20))
        for scheme in schemes:
            into = os.path.join(work, "in-" + scheme)
            receiver, uri = start_receiver(jar, scheme, into)
            try:
                code, text, _ = in_terminal(["java", "-jar", jar, "send", tree, uri])
            finally:
                receiver.terminate()
                receiver.wait(30)
            if code != 0:
                fail("%s: ferry send exited %d:\n%s" % (scheme, code, text))
            check_output(scheme, text)
            diff = subprocess.run(["rsync", "-a", "--dry-run", "--itemize-changes", tree + "/", os.path.join(into, "tree") + "/"],
                                  capture_output=True, text=True, check=True).stdout
            if diff.strip():
                fail("%s: the tree that arrived differs (rsync -a --itemize-changes):\n%s" % (scheme, diff))
            print("%s: 60 files, an empty directory, a link and a 750 script arrived as rsync -a keeps them; "
                  "every line within %d columns" % (scheme, COLUMNS))

            receiver, uri = start_receiver(jar, scheme, os.path.join(work, "killed-" + scheme))
            code, text, after_kill = in_terminal(["java", "-jar", jar, "send", "--limit-rate", "20M", big, uri],
                                                 kill_after=3, victim=receiver)
            receiver.wait(30)
            errors = [l for l in ANSI.sub("", text).replace("\r", "\n").split("\n") if l.startswith("ferry send:")]
            if code != 1 or len(errors) != 1:
                fail("%s, receiver killed: exit %d with %d error lines:\n%s" % (scheme, code, len(errors), text))
            check_output(scheme, text)
            if after_kill > 5:
                fail("%s, receiver killed: the sender took %.1f s to say so" % (scheme, after_kill))
            print("%s: receiver killed mid-transfer, the sender said so in %.1f s: %s" % (scheme, after_kill, errors[0]))
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
