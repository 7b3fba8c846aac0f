#!/usr/bin/env python3
"""The kernel's own TCP file copy, as the reference a file-transfer tool is measured against.

    tcp-file-copy.py serve ADDRESS PORT OUT     accept one connection, write what arrives into OUT, close
    tcp-file-copy.py serve-all ADDRESS PORT OUT the same for every connection, one after another, until killed
    tcp-file-copy.py send FILE ADDRESS PORT     sendfile FILE, shut the output down, wait for the server's close

The sender returns only once the receiver has written every byte and closed, so its wall time is the time to
deliver the file. iperf3's client stops its clock once its bytes are in its own socket buffer (with the 64 MiB
send buffer a network namespace allows by default, a 100 MB file over 200 Mbit/s and 150 ms had only 74 MB at
the receiver when it stopped), and its -F server leaves the file short by what was still in flight.
Written here rather than run as nc or socat: neither is installed on these machines, and netcat's variants
differ in whether they shut the output down at end of input and wait for the peer's close (OpenBSD's needs -N).
"""
import socket
import sys

CHUNK = 1 << 20


def serve(address, port, out, connections=1):
    with socket.create_server((address, int(port))) as listener:
        buf = bytearray(CHUNK)
        view = memoryview(buf)
        while connections is None or connections > 0:
            conn, _ = listener.accept()
            with conn, open(out, 'wb') as f:
                while True:
                    n = conn.recv_into(buf)
                    if n == 0:
                        break
                    f.write(view[:n])
            if connections is not None:
                connections -= 1


def send(path, address, port):
    with socket.create_connection((address, int(port))) as conn, open(path, 'rb') as f:
        conn.sendfile(f)
        conn.shutdown(socket.SHUT_WR)
        while conn.recv(CHUNK):  # the server closes once it has written everything
            pass


if __name__ == '__main__':
    if len(sys.argv) == 5 and sys.argv[1] == 'serve':
        serve(*sys.argv[2:])
    elif len(sys.argv) == 5 and sys.argv[1] == 'serve-all':
        serve(*sys.argv[2:], connections=None)
    elif len(sys.argv) == 5 and sys.argv[1] == 'send':
        send(*sys.argv[2:])
    else:
        sys.exit(__doc__)
