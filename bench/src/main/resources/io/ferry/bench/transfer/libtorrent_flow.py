"""libtorrent's uTP as a bulk flow for Ferry's fairness study (Debian python3-libtorrent).

  make DIR SIZE                       write DIR/payload.bin (SIZE bytes of zeros) and DIR/payload.torrent
  seed DIR BIND_IP                    seed DIR/payload.torrent from DIR over uTP only; print "READY PORT";
                                      serve until stdin closes
  fetch TORRENT SAVE_DIR HOST PORT    download from HOST:PORT over uTP only into SAVE_DIR; print
                                      "BYTES N" (payload bytes received) every 100 ms until stdin closes

TCP is disabled in both sessions, so the one peer connection is uTP with libtorrent's own LEDBAT at its
defaults. Both sessions exit when their stdin closes (the study closes it) or after an hour.
"""
import os
import select
import sys
import time

import libtorrent as lt

LIFETIME = 3600


def session(interface):
    return lt.session({
        "listen_interfaces": interface,
        "enable_outgoing_tcp": False,
        "enable_incoming_tcp": False,
        "enable_outgoing_utp": True,
        "enable_incoming_utp": True,
        "enable_dht": False,
        "enable_lsd": False,
        "enable_upnp": False,
        "enable_natpmp": False,
        "allow_multiple_connections_per_ip": True,
        "alert_mask": lt.alert.category_t.error_notification | lt.alert.category_t.peer_notification,
    })


def stdin_closed(timeout):
    readable, _, _ = select.select([sys.stdin], [], [], timeout)
    return bool(readable) and not sys.stdin.readline()


def make(directory, size):
    path = os.path.join(directory, "payload.bin")
    with open(path, "wb") as f:
        f.truncate(size)
    fs = lt.file_storage()
    lt.add_files(fs, path)
    t = lt.create_torrent(fs, 4 * 1024 * 1024)
    lt.set_piece_hashes(t, directory)
    with open(os.path.join(directory, "payload.torrent"), "wb") as f:
        f.write(lt.bencode(t.generate()))
    print("MADE", flush=True)


def seed(directory, bind_ip):
    info = lt.torrent_info(os.path.join(directory, "payload.torrent"))
    ses = session(bind_ip + ":0")
    ses.add_torrent({"ti": info, "save_path": directory, "flags": lt.torrent_flags.seed_mode})
    deadline = time.time() + 20
    while ses.listen_port() == 0 and time.time() < deadline:
        time.sleep(0.05)
    print("READY %d" % ses.listen_port(), flush=True)
    end = time.time() + LIFETIME
    while time.time() < end and not stdin_closed(0.5):
        for a in ses.pop_alerts():
            print("ALERT " + a.message(), file=sys.stderr, flush=True)


def fetch(torrent, save_dir, host, port):
    ses = session("0.0.0.0:0")
    handle = ses.add_torrent({"ti": lt.torrent_info(torrent), "save_path": save_dir})
    handle.connect_peer((host, port))
    end = time.time() + LIFETIME
    while time.time() < end and not stdin_closed(0.1):
        print("BYTES %d" % handle.status().total_payload_download, flush=True)
        for a in ses.pop_alerts():
            print("ALERT " + a.message(), file=sys.stderr, flush=True)


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "make":
        make(sys.argv[2], int(sys.argv[3]))
    elif len(sys.argv) == 4 and sys.argv[1] == "seed":
        seed(sys.argv[2], sys.argv[3])
    elif len(sys.argv) == 6 and sys.argv[1] == "fetch":
        fetch(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]))
    else:
        sys.exit("usage: libtorrent_flow.py make DIR SIZE | seed DIR BIND_IP | fetch TORRENT SAVE_DIR HOST PORT")
