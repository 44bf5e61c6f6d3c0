#ifndef CPROCESSHANDLE_H
#define CPROCESSHANDLE_H

// pidfd_send_signal(2), which Swift's Glibc module does not import (glibc 2.36 declares it in
// <sys/pidfd.h> only, and syscall(2) is variadic). Only CourierBroker's ProcessHandle uses it.

/// Sends `signal` to the process behind `pidfd`: a pidfd, or an open `/proc/PID` directory (the
/// kernel accepts both since Linux 5.1). 0 on success, -1 with errno set (ESRCH: that process has
/// exited, whatever now runs under its pid).
int cprocesshandle_send_signal(int pidfd, int signal);

#endif
