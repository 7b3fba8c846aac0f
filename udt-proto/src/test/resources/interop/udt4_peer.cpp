// A C++ UDT4 peer (Debian's libudt 4.11) for udt-proto's interoperability tests.
//   udt4_peer serve  4|6 stream|dgram             listen on loopback, print "PORT <n>", echo one connection, print "ECHOED <bytes> <messages>"
//   udt4_peer sink   4|6                          listen, print "PORT <n>", read one connection to its end, print "RECEIVED <bytes> <fnv1a64 hex>"
//   udt4_peer source 4|6 PORT BYTES               connect, send BYTES pattern bytes, close (UDT lingers until acknowledged), print "SENT <bytes>"
//   udt4_peer client 4|6 stream|dgram PORT BYTES  connect, send BYTES (dgram: messages of cycling sizes), read the echo, check, print "VERIFIED <bytes>"
//   udt4_peer rendezvous 4|6 LOCAL PEER BYTES     rendezvous from port LOCAL to PEER, send BYTES, read BYTES back, check, print "VERIFIED <bytes>"
// Pattern byte i is (i * 31 + 7) & 0xff. Any failure prints "FAIL ..." and exits 1.
#include <udt.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>
#include <algorithm>
#include <ctime>
#include <sys/resource.h>

static int fail(const char* what) {
    std::printf("FAIL %s: %s\n", what, UDT::getlasterror().getErrorMessage());
    std::fflush(stdout);
    return 1;
}

static unsigned char pattern(long long i) { return (unsigned char) ((i * 31 + 7) & 0xff); }
static const int SIZES[] = {1, 100, 1455, 1456, 1457, 4000, 65536, 7, 30000};

struct Addr {
    sockaddr_storage ss{};
    int len = 0;
};

static Addr loopback(int family, int port) {
    Addr a;
    if (family == 6) {
        sockaddr_in6* s = (sockaddr_in6*) &a.ss;
        s->sin6_family = AF_INET6;
        s->sin6_port = htons(port);
        inet_pton(AF_INET6, "::1", &s->sin6_addr);
        a.len = sizeof(sockaddr_in6);
    } else {
        sockaddr_in* s = (sockaddr_in*) &a.ss;
        s->sin_family = AF_INET;
        s->sin_port = htons(port);
        inet_pton(AF_INET, "127.0.0.1", &s->sin_addr);
        a.len = sizeof(sockaddr_in);
    }
    return a;
}

static int portOf(UDTSOCKET s) {
    sockaddr_storage ss{};
    int len = sizeof ss;
    UDT::getsockname(s, (sockaddr*) &ss, &len);
    return ntohs(ss.ss_family == AF_INET6 ? ((sockaddr_in6*) &ss)->sin6_port : ((sockaddr_in*) &ss)->sin_port);
}

static UDTSOCKET listenOne(int family, int type) {
    UDTSOCKET l = UDT::socket(family == 6 ? AF_INET6 : AF_INET, type, 0);
    Addr a = loopback(family, 0);
    if (UDT::bind(l, (sockaddr*) &a.ss, a.len) == UDT::ERROR || UDT::listen(l, 4) == UDT::ERROR) return UDT::INVALID_SOCK;
    std::printf("PORT %d\n", portOf(l));
    std::fflush(stdout);
    sockaddr_storage peer{};
    int peerLen = sizeof peer;
    return UDT::accept(l, (sockaddr*) &peer, &peerLen);
}

static bool sendAll(UDTSOCKET s, const char* p, long long n) {
    for (long long off = 0; off < n;) {
        int k = UDT::send(s, p + off, (int) std::min(n - off, 1LL << 20), 0);
        if (k == UDT::ERROR) return false;
        off += k;
    }
    return true;
}

static int serve(int family, int type) {
    UDTSOCKET c = listenOne(family, type);
    if (c == UDT::INVALID_SOCK) return fail("listen/accept");
    std::vector<char> buf(1 << 20);
    long long bytes = 0, messages = 0;
    for (;;) {
        int n = type == SOCK_DGRAM ? UDT::recvmsg(c, buf.data(), (int) buf.size()) : UDT::recv(c, buf.data(), (int) buf.size(), 0);
        if (n == UDT::ERROR) break;
        if (type == SOCK_DGRAM) {
            if (UDT::sendmsg(c, buf.data(), n, -1, true) == UDT::ERROR) return fail("sendmsg");
        } else if (!sendAll(c, buf.data(), n)) {
            return fail("send");
        }
        bytes += n;
        messages++;
    }
    std::printf("ECHOED %lld %lld\n", bytes, messages);
    std::fflush(stdout);
    UDT::close(c);
    return 0;
}

static int sink(int family) {
    UDTSOCKET c = listenOne(family, SOCK_STREAM);
    if (c == UDT::INVALID_SOCK) return fail("listen/accept");
    std::vector<char> buf(1 << 20);
    unsigned long long hash = 14695981039346656037ULL;
    long long bytes = 0, firstBad = -1;
    for (;;) {
        int n = UDT::recv(c, buf.data(), (int) buf.size(), 0);
        if (n == UDT::ERROR) break;
        for (int i = 0; i < n; i++) {
            hash = (hash ^ (unsigned char) buf[i]) * 1099511628211ULL;
            if (firstBad < 0 && (unsigned char) buf[i] != pattern(bytes + i)) firstBad = bytes + i;
        }
        bytes += n;
    }
    if (firstBad >= 0) std::fprintf(stderr, "first byte off the pattern: %lld\n", firstBad);
    std::printf("RECEIVED %lld %016llx\n", bytes, hash);
    std::fflush(stdout);
    UDT::close(c);
    return 0;
}

// The cost bench's native rows (bench: TwoProcessLoopback): "MARK bytes wall_ns cpu_ns" after the first GiB
// and at the end, this process's own CPU (user + system) from getrusage.
static long long nanosNow() {
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1000000000LL + t.tv_nsec;
}

static void mark(long long bytes) {
    rusage u;
    getrusage(RUSAGE_SELF, &u);
    long long cpu = (u.ru_utime.tv_sec + u.ru_stime.tv_sec) * 1000000000LL + (u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1000LL;
    std::printf("MARK %lld %lld %lld\n", bytes, nanosNow(), cpu);
    std::fflush(stdout);
}

// count: accept one stream and count what arrives, touching nothing.
static int count(int family) {
    UDTSOCKET c = listenOne(family, SOCK_STREAM);
    if (c == UDT::INVALID_SOCK) return fail("listen/accept");
    std::vector<char> buf(1 << 20);
    long long bytes = 0;
    for (;;) {
        int n = UDT::recv(c, buf.data(), (int) buf.size(), 0);
        if (n == UDT::ERROR) break;
        if (bytes < (1LL << 30) && bytes + n >= (1LL << 30)) mark(bytes + n);
        bytes += n;
    }
    mark(bytes);
    UDT::close(c);
    return 0;
}

// blast: send bytes from one 1 MiB buffer over and over, then close (UDT's linger waits for the acknowledgements).
static UDTSOCKET connectTo(int family, int type, int port);
static int blast(int family, int port, long long bytes) {
    UDTSOCKET s = connectTo(family, SOCK_STREAM, port);
    if (s == UDT::INVALID_SOCK) return fail("connect");
    std::vector<char> buf(1 << 20, 7);
    long long sent = 0;
    while (sent < bytes) {
        int want = (int) std::min<long long>(buf.size(), bytes - sent);
        int n = UDT::send(s, buf.data(), want, 0);
        if (n == UDT::ERROR) return fail("send");
        if (sent < (1LL << 30) && sent + n >= (1LL << 30)) mark(sent + n);
        sent += n;
    }
    UDT::close(s);
    mark(sent);
    return 0;
}

static UDTSOCKET connectTo(int family, int type, int port) {
    UDTSOCKET s = UDT::socket(family == 6 ? AF_INET6 : AF_INET, type, 0);
    Addr a = loopback(family, port);
    if (UDT::connect(s, (sockaddr*) &a.ss, a.len) == UDT::ERROR) return UDT::INVALID_SOCK;
    return s;
}

static std::vector<char> patterned(long long n) {
    std::vector<char> v(n);
    for (long long i = 0; i < n; i++) v[i] = (char) pattern(i);
    return v;
}

static int source(int family, int port, long long bytes) {
    UDTSOCKET s = connectTo(family, SOCK_STREAM, port);
    if (s == UDT::INVALID_SOCK) return fail("connect");
    std::vector<char> out = patterned(bytes);
    if (!sendAll(s, out.data(), bytes)) return fail("send");
    UDT::close(s);
    std::printf("SENT %lld\n", bytes);
    std::fflush(stdout);
    return 0;
}

static int readCheck(UDTSOCKET s, long long bytes) {
    std::vector<char> in(1 << 20);
    for (long long got = 0; got < bytes;) {
        int n = UDT::recv(s, in.data(), (int) std::min((long long) in.size(), bytes - got), 0);
        if (n == UDT::ERROR) return fail("recv");
        for (int i = 0; i < n; i++) {
            if ((unsigned char) in[i] != pattern(got + i)) {
                std::printf("FAIL byte %lld differs\n", got + i);
                return 1;
            }
        }
        got += n;
    }
    return 0;
}

static int client(int family, int type, int port, long long bytes) {
    UDTSOCKET s = connectTo(family, type, port);
    if (s == UDT::INVALID_SOCK) return fail("connect");
    std::vector<char> out = patterned(bytes);
    if (type == SOCK_STREAM) {
        if (!sendAll(s, out.data(), bytes)) return fail("send");
        if (readCheck(s, bytes)) return 1;
    } else {
        std::vector<char> in(1 << 20);
        long long off = 0;
        for (int k = 0; off < bytes; k++) {
            int size = (int) std::min((long long) SIZES[k % 9], bytes - off);
            if (UDT::sendmsg(s, out.data() + off, size, -1, true) != size) return fail("sendmsg");
            int n = UDT::recvmsg(s, in.data(), (int) in.size());
            if (n != size || std::memcmp(in.data(), out.data() + off, size) != 0) {
                std::printf("FAIL message %d of %d bytes came back as %d bytes\n", k, size, n);
                return 1;
            }
            off += size;
        }
    }
    UDT::close(s);
    std::printf("VERIFIED %lld\n", bytes);
    std::fflush(stdout);
    return 0;
}

static int rendezvous(int family, int local, int peer, long long bytes) {
    UDTSOCKET s = UDT::socket(family == 6 ? AF_INET6 : AF_INET, SOCK_STREAM, 0);
    bool on = true;
    UDT::setsockopt(s, 0, UDT_RENDEZVOUS, &on, sizeof on);
    Addr me = loopback(family, local);
    if (UDT::bind(s, (sockaddr*) &me.ss, me.len) == UDT::ERROR) return fail("bind");
    Addr them = loopback(family, peer);
    if (UDT::connect(s, (sockaddr*) &them.ss, them.len) == UDT::ERROR) return fail("rendezvous connect");
    std::vector<char> out = patterned(bytes);
    if (!sendAll(s, out.data(), bytes)) return fail("send");
    if (readCheck(s, bytes)) return 1;
    UDT::close(s);
    std::printf("VERIFIED %lld\n", bytes);
    std::fflush(stdout);
    return 0;
}

int main(int argc, char** argv) {
    if (argc < 3) return 2;
    UDT::startup();
    std::string mode = argv[1];
    int family = std::atoi(argv[2]);
    int rc = 2;
    if (mode == "serve" && argc == 4) rc = serve(family, std::string(argv[3]) == "dgram" ? SOCK_DGRAM : SOCK_STREAM);
    else if (mode == "sink") rc = sink(family);
    else if (mode == "count") rc = count(family);
    else if (mode == "blast" && argc == 5) rc = blast(family, std::atoi(argv[3]), std::atoll(argv[4]));
    else if (mode == "source" && argc == 5) rc = source(family, std::atoi(argv[3]), std::atoll(argv[4]));
    else if (mode == "client" && argc == 6) rc = client(family, std::string(argv[3]) == "dgram" ? SOCK_DGRAM : SOCK_STREAM, std::atoi(argv[4]), std::atoll(argv[5]));
    else if (mode == "rendezvous" && argc == 6) rc = rendezvous(family, std::atoi(argv[3]), std::atoi(argv[4]), std::atoll(argv[5]));
    UDT::cleanup();
    return rc;
}
