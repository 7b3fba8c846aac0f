/*
 * The fastest this kernel moves UDP datagrams between two sockets on one machine, with the batching a
 * UDP transport can use: the sender hands the kernel runs of 1472-byte segments in one sendmsg
 * (UDP_SEGMENT, GSO), the receiver takes coalesced runs in one recvmsg (UDP_GRO). The ceiling that
 * Ferry's uTP (and QUIC) are compared with, beside iperf3's one-datagram-per-call UDP.
 *
 *   udp_gso recv PORT              prints: bytes seconds cpu_seconds   (first to last byte; ends on idle)
 *   udp_gso send PORT BYTES        prints: bytes seconds cpu_seconds
 *
 * Built by the bench (GsoCeiling.java) with the system's C compiler at first use. Linux only.
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <netinet/udp.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#ifndef UDP_SEGMENT
#define UDP_SEGMENT 103
#endif
#ifndef UDP_GRO
#define UDP_GRO 104
#endif

#define SEGMENT 1472
#define SEGMENTS_PER_SEND 44 /* 44 * 1472 = 64768, under the 65507-byte datagram limit */
#define END_MARK 1           /* a 1-byte datagram ends the run */

static double now_seconds(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static double cpu_seconds(void) {
    struct rusage u;
    getrusage(RUSAGE_SELF, &u);
    return u.ru_utime.tv_sec + u.ru_utime.tv_usec / 1e6 + u.ru_stime.tv_sec + u.ru_stime.tv_usec / 1e6;
}

static int fail(const char *what) {
    fprintf(stderr, "udp_gso: %s: %s\n", what, strerror(errno));
    return 2;
}

static int receive(int port) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    int on = 1, buffer = 8 << 20;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &buffer, sizeof buffer) < 0
            || setsockopt(fd, IPPROTO_UDP, UDP_GRO, &on, sizeof on) < 0 || bind(fd, (struct sockaddr *) &a, sizeof a) < 0) {
        return fail("receiver socket");
    }
    printf("ready\n");
    fflush(stdout);
    static char data[1 << 16];
    char control[64];
    uint64_t bytes = 0;
    double first = 0, last = 0;
    struct pollfd p = {.fd = fd, .events = POLLIN};
    for (;;) {
        if (poll(&p, 1, bytes == 0 ? 30000 : 1000) <= 0) {
            break; /* the sender is done (its end marks were lost) or never came */
        }
        struct iovec v = {.iov_base = data, .iov_len = sizeof data};
        struct msghdr m = {.msg_iov = &v, .msg_iovlen = 1, .msg_control = control, .msg_controllen = sizeof control};
        ssize_t n = recvmsg(fd, &m, 0);
        if (n < 0) {
            if (errno == EINTR) {
                continue;
            }
            return fail("recvmsg");
        }
        if (n == END_MARK) {
            break;
        }
        if (bytes == 0) {
            first = now_seconds();
        }
        bytes += (uint64_t) n;
        last = now_seconds();
    }
    printf("%llu %.6f %.6f\n", (unsigned long long) bytes, last - first, cpu_seconds());
    return 0;
}

static int send_all(int port, uint64_t total) {
    int fd = socket(AF_INET, SOCK_DGRAM, 0);
    int segment = SEGMENT, buffer = 8 << 20;
    struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons(port), .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (fd < 0 || setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &buffer, sizeof buffer) < 0
            || setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &segment, sizeof segment) < 0
            || connect(fd, (struct sockaddr *) &a, sizeof a) < 0) {
        return fail("sender socket");
    }
    static char data[SEGMENT * SEGMENTS_PER_SEND];
    memset(data, 0x5a, sizeof data);
    uint64_t sent = 0;
    double start = now_seconds();
    while (sent < total) {
        size_t n = total - sent < sizeof data ? (size_t) (total - sent) : sizeof data;
        if (n <= END_MARK) {
            n = END_MARK + 1; /* never a datagram that reads as the end mark */
        }
        ssize_t w = send(fd, data, n, 0);
        if (w < 0) {
            if (errno == EINTR || errno == ENOBUFS || errno == EAGAIN) {
                continue;
            }
            return fail("send");
        }
        sent += (uint64_t) w;
    }
    double seconds = now_seconds() - start;
    int off = 0;
    setsockopt(fd, IPPROTO_UDP, UDP_SEGMENT, &off, sizeof off);
    for (int i = 0; i < 20; i++) {
        send(fd, data, END_MARK, 0);
        usleep(10000);
    }
    printf("%llu %.6f %.6f\n", (unsigned long long) sent, seconds, cpu_seconds());
    return 0;
}

int main(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "recv") == 0) {
        return receive(atoi(argv[2]));
    }
    if (argc == 4 && strcmp(argv[1], "send") == 0) {
        return send_all(atoi(argv[2]), strtoull(argv[3], NULL, 10));
    }
    fprintf(stderr, "usage: udp_gso recv PORT | udp_gso send PORT BYTES\n");
    return 1;
}
