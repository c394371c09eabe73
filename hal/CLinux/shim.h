// Linux interfaces the Glibc module does not bring into Swift: signalfd(2), eventfd(2), and the
// GNU extensions pipe2(2), accept4(2), memfd_create(2) and posix_spawn's closefrom (declared here as glibc declares them
// under _GNU_SOURCE, which the Glibc module is built without).
#ifndef JOLT_CLINUX_SHIM_H
#define JOLT_CLINUX_SHIM_H

#include <sys/signalfd.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/ioctl.h>
#include <fcntl.h>
#include <unistd.h>
#include <stddef.h>
#include <spawn.h>

extern int pipe2(int pipefd[2], int flags);
extern int accept4(int sockfd, struct sockaddr *addr, socklen_t *addrlen, int flags);
extern int memfd_create(const char *name, unsigned int flags);
extern int posix_spawn_file_actions_addclosefrom_np(posix_spawn_file_actions_t *actions, int from);

/// pipe2(2): a pipe with O_CLOEXEC / O_NONBLOCK set atomically.
static inline int jolt_pipe2(int fds[2], int flags) { return pipe2(fds, flags); }

/// posix_spawn_file_actions_addclosefrom_np(3) (glibc 2.34): the child closes every descriptor
/// from `from` up before it runs the program.
static inline int jolt_spawn_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

/// accept4(2): accept with SOCK_CLOEXEC / SOCK_NONBLOCK set atomically.
static inline int jolt_accept4(int fd, int flags) { return accept4(fd, 0, 0, flags); }

/// SO_PEERCRED (socket(7)): the pid, uid and gid of a Unix socket's peer, as the kernel saw
/// them at connect. struct ucred is declared only under _GNU_SOURCE: laid out here as glibc has it.
struct jolt_ucred { int pid; unsigned int uid; unsigned int gid; };
static inline int jolt_peercred(int fd, int *pid, unsigned int *uid, unsigned int *gid) {
    struct jolt_ucred c;
    socklen_t len = sizeof c;
    int r = getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &len);
    if (r == 0) { *pid = c.pid; *uid = c.uid; *gid = c.gid; }
    return r;
}

/// TIOCGWINSZ: the terminal's size in characters (0 when it is not a terminal).
static inline int jolt_window_size(int fd, unsigned short *rows, unsigned short *cols) {
    struct winsize w = {0};
    int r = ioctl(fd, TIOCGWINSZ, &w);
    *rows = w.ws_row;
    *cols = w.ws_col;
    return r;
}

extern int posix_openpt(int flags);
extern int grantpt(int fd);
extern int unlockpt(int fd);
extern int ptsname_r(int fd, char *buf, size_t buflen);

/// A new pseudo-terminal: returns the master's descriptor and writes the slave's path into
/// `name` (-1 on failure). For testing a program's terminal handling.
static inline int jolt_open_pty(char *name, size_t len) {
    int m = posix_openpt(O_RDWR | O_NOCTTY);
    if (m < 0) return -1;
    if (grantpt(m) != 0 || unlockpt(m) != 0 || ptsname_r(m, name, len) != 0) { close(m); return -1; }
    return m;
}

/// memfd_create(2): an anonymous file in memory (the trace fuzzer feeds its bytes through one).
static inline int jolt_memfd_create(const char *name) { return memfd_create(name, 0); }

#endif
