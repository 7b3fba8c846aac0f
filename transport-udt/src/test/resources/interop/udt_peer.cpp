// A plain C++ UDT4 peer (Debian's libudt) for Ferry's interoperability test.
//   udt_peer serve            listen on 127.0.0.1, print "PORT <n>", echo one connection until it ends
//   udt_peer send PORT BYTES  connect, send BYTES pattern bytes, read them echoed back, check, close
// Exit status 0 on success; any failure prints "FAIL ..." and exits 1.
#include <udt.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

static int fail(const char* what) {
    std::printf("FAIL %s: %s\n", what, UDT::getlasterror().getErrorMessage());
    std::fflush(stdout);
    return 1;
}

static unsigned char pattern(long i) { return (unsigned char) ((i * 31 + 7) & 0xff); }

static int serve() {
    UDTSOCKET listener = UDT::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = 0;
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (UDT::bind(listener, (sockaddr*) &addr, sizeof addr) == UDT::ERROR) return fail("bind");
    if (UDT::listen(listener, 4) == UDT::ERROR) return fail("listen");
    int len = sizeof addr;
    if (UDT::getsockname(listener, (sockaddr*) &addr, &len) == UDT::ERROR) return fail("getsockname");
    std::printf("PORT %d\n", ntohs(addr.sin_port));
    std::fflush(stdout);
    sockaddr_in peer{};
    int peerLen = sizeof peer;
    UDTSOCKET conn = UDT::accept(listener, (sockaddr*) &peer, &peerLen);
    if (conn == UDT::INVALID_SOCK) return fail("accept");
    std::vector<char> buf(65536);
    long echoed = 0;
    for (;;) {
        int n = UDT::recv(conn, buf.data(), (int) buf.size(), 0);
        if (n == UDT::ERROR) break;  // the peer closed: UDT reports a broken connection
        for (int off = 0; off < n;) {
            int s = UDT::send(conn, buf.data() + off, n - off, 0);
            if (s == UDT::ERROR) return fail("send");
            off += s;
        }
        echoed += n;
    }
    std::printf("ECHOED %ld\n", echoed);
    std::fflush(stdout);
    UDT::close(conn);
    UDT::close(listener);
    return 0;
}

static int send(int port, long bytes) {
    UDTSOCKET s = UDT::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(port);
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    if (UDT::connect(s, (sockaddr*) &addr, sizeof addr) == UDT::ERROR) return fail("connect");
    std::vector<char> out(bytes);
    for (long i = 0; i < bytes; i++) out[i] = (char) pattern(i);
    for (long off = 0; off < bytes;) {
        int n = UDT::send(s, out.data() + off, (int) std::min(bytes - off, 65536L), 0);
        if (n == UDT::ERROR) return fail("send");
        off += n;
    }
    std::vector<char> in(65536);
    for (long got = 0; got < bytes;) {
        int n = UDT::recv(s, in.data(), (int) in.size(), 0);
        if (n == UDT::ERROR) return fail("recv");
        for (int i = 0; i < n; i++) {
            if ((unsigned char) in[i] != pattern(got + i)) {
                std::printf("FAIL byte %ld differs\n", got + i);
                return 1;
            }
        }
        got += n;
    }
    std::printf("VERIFIED %ld\n", bytes);
    std::fflush(stdout);
    UDT::close(s);
    return 0;
}

int main(int argc, char** argv) {
    UDT::startup();
    int rc;
    if (argc == 2 && std::strcmp(argv[1], "serve") == 0) {
        rc = serve();
    } else if (argc == 4 && std::strcmp(argv[1], "send") == 0) {
        rc = send(std::atoi(argv[2]), std::atol(argv[3]));
    } else {
        std::printf("usage: udt_peer serve | udt_peer send PORT BYTES\n");
        rc = 2;
    }
    UDT::cleanup();
    return rc;
}
