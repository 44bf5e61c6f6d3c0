#define _GNU_SOURCE
#include "CInbox.h"

#include <fcntl.h>
#include <stdio.h>
#include <linux/fs.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/vfs.h>
#include <unistd.h>

#ifndef RENAME_NOREPLACE
#define RENAME_NOREPLACE (1 << 0)
#endif

const int cinbox_O_PATH = O_PATH;
const int cinbox_O_TMPFILE = O_TMPFILE;
const int cinbox_SEEK_DATA = SEEK_DATA;
const int cinbox_SEEK_HOLE = SEEK_HOLE;

int64_t cinbox_copy_file_range(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t length) {
    off64_t in = (off64_t)*off_in, out = (off64_t)*off_out;
    ssize_t copied = copy_file_range(fd_in, &in, fd_out, &out, length, 0);
    *off_in = (int64_t)in;
    *off_out = (int64_t)out;
    return (int64_t)copied;
}

int cinbox_renameat_noreplace(int old_dirfd, const char *old_path, int new_dirfd, const char *new_path) {
    return (int)syscall(SYS_renameat2, old_dirfd, old_path, new_dirfd, new_path, RENAME_NOREPLACE);
}

int cinbox_openat(int dirfd, const char *path, int flags, unsigned int mode) {
    return openat(dirfd, path, flags, (mode_t)mode);
}

int cinbox_open_tmpfile(int dirfd, unsigned int mode) {
    return openat(dirfd, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, (mode_t)mode);
}

int cinbox_get_status_flags(int fd) {
    return fcntl(fd, F_GETFL);
}

int cinbox_set_direct_io(int fd, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags < 0) return -1;
    return fcntl(fd, F_SETFL, on ? (flags | O_DIRECT) : (flags & ~O_DIRECT));
}

int cinbox_file_system_type(int fd, int64_t *type) {
    struct statfs status;
    if (fstatfs(fd, &status) != 0) return -1;
    *type = (int64_t)status.f_type;
    return 0;
}

int cinbox_start_writeback(int fd, int64_t offset, int64_t length) {
    return sync_file_range(fd, (off64_t)offset, (off64_t)length, SYNC_FILE_RANGE_WRITE);
}

int cinbox_wait_writeback(int fd, int64_t offset, int64_t length) {
    return sync_file_range(fd, (off64_t)offset, (off64_t)length,
                           SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER);
}

int cinbox_clone_file(int destination, int source) {
    return ioctl(destination, FICLONE, source);
}

int cinbox_allocate(int fd, int64_t offset, int64_t length) {
    return fallocate(fd, 0, (off64_t)offset, (off64_t)length);
}
