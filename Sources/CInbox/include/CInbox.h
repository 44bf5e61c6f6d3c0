#ifndef CINBOX_H
#define CINBOX_H

// Linux calls and constants that Swift's Glibc module does not import (they need _GNU_SOURCE,
// or are macros/variadics Swift cannot call). Only CourierInbox's Syscalls.swift uses them.
// The header stays free of system headers on purpose: the definitions are compiled in CInbox.c
// with _GNU_SOURCE, so they never depend on how the Glibc module was built.

#include <stddef.h>
#include <stdint.h>

/// O_PATH: an fd that names a file but cannot read it.
extern const int cinbox_O_PATH;
/// O_TMPFILE (with O_DIRECTORY, as the kernel requires).
extern const int cinbox_O_TMPFILE;
/// lseek whence values for sparse files.
extern const int cinbox_SEEK_DATA;
extern const int cinbox_SEEK_HOLE;

/// copy_file_range(2) with explicit offsets (the fds' own file offsets are left alone).
int64_t cinbox_copy_file_range(int fd_in, int64_t *off_in, int fd_out, int64_t *off_out, size_t length);

/// renameat2(2) with RENAME_NOREPLACE, through syscall(2) so it works on any glibc.
int cinbox_renameat_noreplace(int old_dirfd, const char *old_path, int new_dirfd, const char *new_path);

/// openat(2) (variadic in C, so not callable from Swift as it is).
int cinbox_openat(int dirfd, const char *path, int flags, unsigned int mode);

/// An unnamed, readable and writable file in the directory `dirfd` (O_TMPFILE | O_RDWR | O_CLOEXEC).
int cinbox_open_tmpfile(int dirfd, unsigned int mode);

/// fcntl(fd, F_GETFL) (variadic in C).
int cinbox_get_status_flags(int fd);

/// Sets (`on` nonzero) or clears O_DIRECT on the open file description of `fd` (fcntl F_SETFL);
/// -1 and errno (EINVAL where the file system cannot write directly).
int cinbox_set_direct_io(int fd, int on);

/// fstatfs(fd)'s f_type (the file system's magic number) into `type`; -1 and errno on failure
/// (<sys/vfs.h>, which Swift's Glibc module does not import).
int cinbox_file_system_type(int fd, int64_t *type);

/// sync_file_range(SYNC_FILE_RANGE_WRITE): starts writing back a range without waiting for it, so
/// that the final fsync has little left to wait for.
int cinbox_start_writeback(int fd, int64_t offset, int64_t length);

/// sync_file_range(WAIT_BEFORE | WRITE | WAIT_AFTER): writes a range back and waits until it is on
/// the device (the data only: the caller still needs fsync for metadata and the disk cache).
int cinbox_wait_writeback(int fd, int64_t offset, int64_t length);

/// ioctl(FICLONE): makes `destination` share the extents of the whole of `source` (a reflink, on
/// Btrfs, XFS, bcachefs…). Fails with EOPNOTSUPP, EXDEV, EINVAL or ENOTTY where it is not possible.
int cinbox_clone_file(int destination, int source);

/// fallocate(2) with mode 0: reserves the blocks of a range (and extends the size). Fails with
/// EOPNOTSUPP where the file system cannot (never writes zeros, unlike posix_fallocate).
int cinbox_allocate(int fd, int64_t offset, int64_t length);

#endif
