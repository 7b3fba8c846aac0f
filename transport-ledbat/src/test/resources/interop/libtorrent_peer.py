"""A libtorrent (Debian python3-libtorrent) peer on loopback that speaks only uTP, driven by Ferry's tests.

  seed    DIR SIZE       make a SIZE-byte file and a torrent for it in DIR, seed it, print one JSON
                          line {"port", "info_hash", "piece_length", "total_size", "pieces"} and serve
                          until stdin closes (at most 120 s)
  connect HOST PORT HASH  add a torrent with info-hash HASH (hex), connect to HOST:PORT over uTP and
                          print "HANDSHAKE <peer id hex>" once libtorrent has the peer's handshake, or
                          "TIMEOUT" after 30 s

Every outbound and inbound TCP connection is disabled, so whatever connects does so over uTP.
"""
import hashlib
import json
import os
import random
import select
import sys
import time

import libtorrent as lt


def session(port, plaintext=False):
    settings = {
        "listen_interfaces": "127.0.0.1:%d" % port,
        "enable_outgoing_tcp": False,
        "enable_incoming_tcp": False,
        "enable_outgoing_utp": True,
        "enable_incoming_utp": True,
        "enable_dht": False,
        "enable_lsd": False,
        "enable_upnp": False,
        "enable_natpmp": False,
        "allow_multiple_connections_per_ip": True,
        "alert_mask": lt.alert.category_t.all_categories,
    }
    if plaintext:
        # The peer under test speaks the plain BitTorrent handshake, not message stream encryption.
        settings["out_enc_policy"] = int(lt.enc_policy.disabled)
    return lt.session(settings)


def seed(directory, size):
    rng = random.Random(29)
    path = os.path.join(directory, "payload.bin")
    with open(path, "wb") as f:
        f.write(rng.randbytes(size))
    fs = lt.file_storage()
    lt.add_files(fs, path)
    t = lt.create_torrent(fs, 256 * 1024)
    lt.set_piece_hashes(t, directory)
    info = lt.torrent_info(t.generate())
    ses = session(0)
    handle = ses.add_torrent({"ti": info, "save_path": directory, "flags": lt.torrent_flags.seed_mode})
    deadline = time.time() + 20
    while ses.listen_port() == 0 and time.time() < deadline:
        time.sleep(0.05)
    pieces = [info.hash_for_piece(i).hex() for i in range(info.num_pieces())]
    print(json.dumps({"port": ses.listen_port(), "info_hash": str(info.info_hash()),
                      "piece_length": info.piece_length(), "total_size": info.total_size(),
                      "pieces": pieces}), flush=True)
    end = time.time() + 120
    while time.time() < end:
        readable, _, _ = select.select([sys.stdin], [], [], 0.5)
        if readable and not sys.stdin.readline():
            break
        for a in ses.pop_alerts():
            if isinstance(a, (lt.peer_connect_alert, lt.peer_disconnected_alert, lt.peer_error_alert)):
                print("ALERT " + a.message(), file=sys.stderr, flush=True)
    handle.pause()


def connect(host, port, info_hash):
    ses = session(0, plaintext=True)
    params = lt.add_torrent_params()
    params.info_hashes = lt.info_hash_t(lt.sha1_hash(bytes.fromhex(info_hash)))
    params.save_path = "."
    params.flags &= ~lt.torrent_flags.auto_managed
    params.flags &= ~lt.torrent_flags.paused
    handle = ses.add_torrent(params)
    handle.connect_peer((host, port))
    end = time.time() + 30
    while time.time() < end:
        for p in handle.get_peer_info():
            if p.flags & lt.peer_info.handshake == 0 and p.pid.to_bytes() != bytes(20):
                # TCP is disabled in this session, so the connection is uTP.
                print("HANDSHAKE %s" % p.pid.to_bytes().hex(), flush=True)
                return
        for a in ses.pop_alerts():
            print("ALERT " + a.message(), file=sys.stderr, flush=True)
        time.sleep(0.05)
    print("TIMEOUT", flush=True)


if __name__ == "__main__":
    if sys.argv[1] == "seed":
        seed(sys.argv[2], int(sys.argv[3]))
    elif sys.argv[1] == "connect":
        connect(sys.argv[2], int(sys.argv[3]), sys.argv[4])
    else:
        sys.exit("usage: libtorrent_peer.py seed DIR SIZE | connect HOST PORT INFOHASH")
