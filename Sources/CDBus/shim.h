#ifndef COURIER_CDBUS_SHIM_H
#define COURIER_CDBUS_SHIM_H
#include <dbus/dbus.h>
#include <poll.h>
#include <string.h>
#include <stdint.h>
#include <unistd.h>
#include <fcntl.h>
#include <sys/eventfd.h>
#include <sys/epoll.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/socket.h>

/* The DBUS_* macros are `((int) 's')`-style expressions Swift cannot import; these
 * prefixed inline accessors export them (and a few helpers) without touching libdbus. */

static inline int cdbus_type_invalid(void) { return DBUS_TYPE_INVALID; }
static inline int cdbus_message_type_method_call(void) { return DBUS_MESSAGE_TYPE_METHOD_CALL; }
static inline int cdbus_message_type_method_return(void) { return DBUS_MESSAGE_TYPE_METHOD_RETURN; }
static inline int cdbus_message_type_error(void) { return DBUS_MESSAGE_TYPE_ERROR; }
static inline int cdbus_message_type_signal(void) { return DBUS_MESSAGE_TYPE_SIGNAL; }
static inline unsigned int cdbus_watch_readable(void) { return DBUS_WATCH_READABLE; }
static inline unsigned int cdbus_watch_writable(void) { return DBUS_WATCH_WRITABLE; }
static inline unsigned int cdbus_watch_error(void) { return DBUS_WATCH_ERROR; }
static inline unsigned int cdbus_watch_hangup(void) { return DBUS_WATCH_HANGUP; }
static inline int cdbus_maximum_signature_length(void) { return DBUS_MAXIMUM_SIGNATURE_LENGTH; }
static inline int cdbus_maximum_array_length(void) { return DBUS_MAXIMUM_ARRAY_LENGTH; }

/* DBusBasicValue accessors: dbus_bool_t is 32 bits, never a Swift Bool. */
static inline DBusBasicValue cdbus_basic_zero(void) { DBusBasicValue v; memset(&v, 0, sizeof v); return v; }

/* Owned eventfd used to wake a connection's I/O thread. */
static inline int cdbus_eventfd(void) { return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK); }
static inline void cdbus_eventfd_signal(int fd) { uint64_t one = 1; ssize_t r = write(fd, &one, sizeof one); (void)r; }
static inline void cdbus_eventfd_drain(int fd) { uint64_t v; ssize_t r = read(fd, &v, sizeof v); (void)r; }
/* The epoll set holding a connection's read interest (see IOLoop.borrowSocket): removing the socket
 * from it takes effect for a thread already waiting on it, which poll's fd list cannot do. */
static inline int cdbus_epoll_create(void) { return epoll_create1(EPOLL_CLOEXEC); }
static inline int cdbus_epoll_add_readable(int epfd, int fd) {
    struct epoll_event e; memset(&e, 0, sizeof e); e.events = EPOLLIN; e.data.fd = fd;
    return epoll_ctl(epfd, EPOLL_CTL_ADD, fd, &e);
}
static inline int cdbus_epoll_remove(int epfd, int fd) { return epoll_ctl(epfd, EPOLL_CTL_DEL, fd, NULL); }
/* Arms (EPOLLIN) or disarms (no events: only a hang-up or error still reports) a registered fd. */
static inline int cdbus_epoll_arm(int epfd, int fd, int armed) {
    struct epoll_event e; memset(&e, 0, sizeof e); e.events = armed ? EPOLLIN : 0; e.data.fd = fd;
    return epoll_ctl(epfd, EPOLL_CTL_MOD, fd, &e);
}
static inline int cdbus_dup_cloexec(int fd) { return fcntl(fd, F_DUPFD_CLOEXEC, 3); }
static inline int cdbus_fd_is_valid(int fd) { return fcntl(fd, F_GETFD) != -1; }
/* Names the calling thread (15 bytes at most), for top -H, perf and gdb. */
static inline void cdbus_name_thread(const char *name) { (void)prctl(PR_SET_NAME, name, 0, 0, 0); }
/* The calling thread's kernel id (what /proc/self/task/ lists). */
static inline int cdbus_gettid(void) { return (int)syscall(SYS_gettid); }
/* The credentials the kernel recorded for the other end of a connected unix socket (SO_PEERCRED):
 * the peer's pid and uid when it connected, or, seen from the connecting side, when the server
 * listened. Returns 0 on success. */
static inline int cdbus_peer_credentials(int fd, int *pid, unsigned int *uid) {
    struct { int pid; unsigned int uid; unsigned int gid; } c; /* struct ucred, without needing _GNU_SOURCE */
    socklen_t n = sizeof c;
    if (getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &c, &n) != 0) return -1;
    *pid = (int)c.pid; *uid = (unsigned int)c.uid;
    return 0;
}
#endif
