#define _GNU_SOURCE
#include <sys/syscall.h>
#include <unistd.h>
#include "CProcessHandle.h"

#ifndef SYS_pidfd_send_signal
#define SYS_pidfd_send_signal 424
#endif

int cprocesshandle_send_signal(int pidfd, int signal) {
    return (int)syscall(SYS_pidfd_send_signal, pidfd, signal, (void *)0, 0u);
}
