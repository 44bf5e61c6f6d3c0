// drop-copy-variants: the copy loop of CourierInbox's FileCopier replicated in C, with its knobs
// exposed, to tune it by measurement (docs/inbox.md, "Throughput"). Not part of the build.
//
//   cc -O2 -pthread -o /tmp/drop-copy-variants scripts/drop-copy-variants.c
//   /tmp/drop-copy-variants SOURCE DIR RUNS VARIANT...
//
// SOURCE should be a large, cached file on the file system of DIR (e.g. 1 GiB). Each VARIANT is
// timed RUNS times after one untimed round, the order reversed every other run; the copy is
// removed and sync(2) called between runs (not timed). Prints the median and range in MiB/s.
//
// Variants:
//   cp              /bin/cp SOURCE DIR/cp.bin (returns before the data is on disk)
//   cpf             the same, then fsync of the copy
//   w<W>c<C>f<F>    like Inbox.drop: O_TMPFILE in DIR, FICLONE attempt, fallocate when F=1,
//                   copy_file_range in chunks of C MiB, fchmod 0444, fsync, linkat, fsync of DIR;
//                   write-back W: 0 start each chunk (SYNC_FILE_RANGE_WRITE) and never wait,
//                   1 start each chunk and wait for the one before (what FileCopier does),
//                   2 start each chunk and wait two chunks behind, 3 none and no fsync at all
//                   (the copy alone), 4 wait for each chunk on a second thread.
#define _GNU_SOURCE
#include <fcntl.h>
#include <linux/fs.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

enum { WAIT_ALL = SYNC_FILE_RANGE_WAIT_BEFORE | SYNC_FILE_RANGE_WRITE | SYNC_FILE_RANGE_WAIT_AFTER };

static const char *source_path, *folder;
static long long source_size;

// Variant 4: a thread that writes back and waits for whatever the copier has finished.
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t changed = PTHREAD_COND_INITIALIZER;
static long long copied_up_to;
static int copy_finished, writer_fd;

static void *writer(void *unused) {
    (void)unused;
    long long done = 0;
    for (;;) {
        pthread_mutex_lock(&lock);
        while (copied_up_to == done && !copy_finished) pthread_cond_wait(&changed, &lock);
        long long up_to = copied_up_to;
        int finished = copy_finished;
        pthread_mutex_unlock(&lock);
        if (up_to > done) {
            sync_file_range(writer_fd, done, up_to - done, WAIT_ALL);
            done = up_to;
        } else if (finished) {
            return NULL;
        }
    }
}

static void tell_writer(long long up_to, int finished) {
    pthread_mutex_lock(&lock);
    copied_up_to = up_to;
    copy_finished = finished;
    pthread_cond_signal(&changed);
    pthread_mutex_unlock(&lock);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static void fail(const char *what) {
    perror(what);
    exit(1);
}

static double drop(int writeback, long long chunk, int preallocate) {
    double start = now();
    int in = open(source_path, O_RDONLY | O_CLOEXEC);
    int dir = open(folder, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    int out = openat(dir, ".", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
    if (in < 0 || dir < 0 || out < 0) fail("open");
    if (ioctl(out, FICLONE, in) != 0) {
        posix_fadvise(in, 0, 0, POSIX_FADV_SEQUENTIAL);
        if (preallocate && fallocate(out, 0, 0, source_size) != 0) perror("fallocate");
        pthread_t thread;
        if (writeback == 4) {
            copied_up_to = 0;
            copy_finished = 0;
            writer_fd = out;
            pthread_create(&thread, NULL, writer, NULL);
        }
        loff_t in_offset = 0, out_offset = 0;
        long long previous = -1;
        while (in_offset < source_size) {
            size_t wanted = source_size - in_offset < chunk ? (size_t)(source_size - in_offset) : (size_t)chunk;
            long long chunk_start = out_offset;
            ssize_t n = copy_file_range(in, &in_offset, out, &out_offset, wanted, 0);
            if (n <= 0) fail("copy_file_range");
            if (writeback <= 2) sync_file_range(out, chunk_start, n, SYNC_FILE_RANGE_WRITE);
            if (writeback == 1 && previous >= 0) sync_file_range(out, previous, chunk_start - previous, WAIT_ALL);
            if (writeback == 2 && chunk_start >= 2 * chunk) sync_file_range(out, chunk_start - 2 * chunk, chunk, WAIT_ALL);
            if (writeback == 4) tell_writer(out_offset, 0);
            previous = chunk_start;
        }
        if (writeback == 4) {
            tell_writer(out_offset, 1);
            pthread_join(thread, NULL);
        }
    }
    fchmod(out, 0444);
    if (writeback != 3) fsync(out);
    char proc[64];
    snprintf(proc, sizeof proc, "/proc/self/fd/%d", out);
    if (linkat(AT_FDCWD, proc, dir, "drop.bin", AT_SYMLINK_FOLLOW) != 0) fail("linkat");
    if (writeback != 3) fsync(dir);
    close(out);
    close(in);
    double seconds = now() - start;
    unlinkat(dir, "drop.bin", 0);
    close(dir);
    sync();
    return seconds;
}

static double cp(int fsync_after) {
    char destination[4096];
    snprintf(destination, sizeof destination, "%s/cp.bin", folder);
    double start = now();
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/cp", "cp", "--", source_path, destination, (char *)NULL);
        _exit(127);
    }
    int status;
    waitpid(pid, &status, 0);
    if (fsync_after) {
        int fd = open(destination, O_RDONLY | O_CLOEXEC);
        fsync(fd);
        close(fd);
    }
    double seconds = now() - start;
    unlink(destination);
    sync();
    return seconds;
}

static int by_value(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

int main(int argc, char **argv) {
    if (argc < 5) {
        fprintf(stderr, "usage: %s SOURCE DIR RUNS VARIANT... (see the comment at the top)\n", argv[0]);
        return 64;
    }
    source_path = argv[1];
    folder = argv[2];
    int runs = atoi(argv[3]), variants = argc - 4;
    struct stat status;
    if (stat(source_path, &status) != 0) fail("stat");
    source_size = status.st_size;
    double *seconds = calloc((size_t)variants * (size_t)(runs > 0 ? runs : 1), sizeof(double));
    for (int run = -1; run < runs; run++) {
        for (int k = 0; k < variants; k++) {
            int v = (run % 2) ? variants - 1 - k : k;
            const char *name = argv[4 + v];
            double t;
            int writeback, chunk_mib, preallocate;
            if (strcmp(name, "cp") == 0) t = cp(0);
            else if (strcmp(name, "cpf") == 0) t = cp(1);
            else if (sscanf(name, "w%dc%df%d", &writeback, &chunk_mib, &preallocate) == 3) t = drop(writeback, (long long)chunk_mib << 20, preallocate);
            else { fprintf(stderr, "unknown variant %s\n", name); return 64; }
            if (run >= 0) seconds[v * runs + run] = t;
        }
    }
    double mib = source_size / 1048576.0;
    for (int v = 0; v < variants; v++) {
        double *s = seconds + v * runs;
        qsort(s, runs, sizeof(double), by_value);
        printf("%-12s median %6.0f MiB/s  range %6.0f-%-6.0f\n", argv[4 + v], mib / s[runs / 2], mib / s[runs - 1], mib / s[0]);
    }
    return 0;
}
