// Bulk transfer with Debian's libudt (UDT4, C++), default options, for the bench's reference rows.
//   udt_bulk recv ADDR PORT BYTES   listen, print "READY", accept one connection, read BYTES, print
//                                    "RECEIVED <bytes> <seconds from accept to the last byte>"
//   udt_bulk send ADDR PORT BYTES   connect, send BYTES, close (UDT's linger waits for delivery), print "SENT"
// Any failure prints "FAIL <what>: <UDT's message>" and exits 1.
#include <udt.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <algorithm>
#include <string>
#include <vector>

static int fail(const char* what) {
    std::printf("FAIL %s: %s\n", what, UDT::getlasterror().getErrorMessage());
    std::fflush(stdout);
    return 1;
}

static sockaddr_in address(const char* host, int port) {
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_port = htons(port);
    inet_pton(AF_INET, host, &a.sin_addr);
    return a;
}

static int receive(const char* host, int port, long long bytes) {
    UDTSOCKET listener = UDT::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = address(host, port);
    if (UDT::bind(listener, (sockaddr*) &a, sizeof a) == UDT::ERROR) return fail("bind");
    if (UDT::listen(listener, 1) == UDT::ERROR) return fail("listen");
    std::printf("READY\n");
    std::fflush(stdout);
    sockaddr_in peer{};
    int len = sizeof peer;
    UDTSOCKET conn = UDT::accept(listener, (sockaddr*) &peer, &len);
    if (conn == UDT::INVALID_SOCK) return fail("accept");
    auto start = std::chrono::steady_clock::now();
    std::vector<char> buf(1 << 20);
    long long got = 0;
    while (got < bytes) {
        int n = UDT::recv(conn, buf.data(), (int) buf.size(), 0);
        if (n == UDT::ERROR) return fail("recv");
        got += n;
    }
    double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    std::printf("RECEIVED %lld %.6f\n", got, seconds);
    std::fflush(stdout);
    UDT::close(conn);
    UDT::close(listener);
    return 0;
}

static int send(const char* host, int port, long long bytes) {
    UDTSOCKET s = UDT::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in a = address(host, port);
    if (UDT::connect(s, (sockaddr*) &a, sizeof a) == UDT::ERROR) return fail("connect");
    std::vector<char> buf(1 << 20, 'f');
    long long sent = 0;
    while (sent < bytes) {
        int chunk = (int) std::min<long long>((long long) buf.size(), bytes - sent);
        int n = UDT::send(s, buf.data(), chunk, 0);
        if (n == UDT::ERROR) return fail("send");
        sent += n;
    }
    UDT::close(s);
    std::printf("SENT %lld\n", sent);
    std::fflush(stdout);
    return 0;
}

int main(int argc, char** argv) {
    if (argc != 5) {
        std::printf("FAIL usage: udt_bulk recv|send ADDR PORT BYTES\n");
        return 2;
    }
    UDT::startup();
    long long bytes = std::atoll(argv[4]);
    int rc = std::string(argv[1]) == "recv" ? receive(argv[2], std::atoi(argv[3]), bytes) : send(argv[2], std::atoi(argv[3]), bytes);
    UDT::cleanup();
    return rc;
}
