// Linux interfaces the Glibc module does not bring into Swift: signalfd(2), eventfd(2), and the
// GNU extensions pipe2(2), accept4(2) and memfd_create(2) (declared here as glibc declares them
// under _GNU_SOURCE, which the Glibc module is built without).
#ifndef JOLT_CLINUX_SHIM_H
#define JOLT_CLINUX_SHIM_H

#include <sys/signalfd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>

extern int pipe2(int pipefd[2], int flags);
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int memfd_create(const char *name, unsigned int flags);

/// pipe2(2): a pipe with O_CLOEXEC / O_NONBLOCK set atomically.
static inline int jolt_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }

/// accept4(2): accept with SOCK_CLOEXEC / SOCK_NONBLOCK set atomically.
static inline int jolt_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }

/// memfd_create(2): an anonymous file in memory (the trace fuzzer feeds its bytes through one).
static inline int jolt_memfd_create(const char *name) { return memfd_create(name, 0); }

#endif
