/* A slower disk for benchmarks: every fdatasync/fsync of the process waits PG_FLUSH_DELAY_US microseconds
 * more before it runs, as a flush to a network block device does (a cloud volume's is ~1-5 ms; this
 * machine's local disk flushes in ~0.08 ms). Loaded into a throwaway PostgreSQL with LD_PRELOAD by
 * `ops/pg.sh start` when PG_FLUSH_DELAY_US is set, so `ops/bench_group_commit.py --flush-delay-ms` can show
 * what grouping commits is worth where the flush, not the CPU, bounds a commit. Never used by the service. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static long delay_us(void) {
    static long us = -1;
    if (us < 0) {
        const char *v = getenv("PG_FLUSH_DELAY_US");
        us = v ? atol(v) : 0;
    }
    return us;
}

static void wait_like_a_slow_disk(void) {
    long us = delay_us();
    if (us > 0) {
        struct timespec t = {us / 1000000, (us % 1000000) * 1000};
        while (nanosleep(&t, &t) != 0) {
        }
    }
}

int fdatasync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fdatasync");
    wait_like_a_slow_disk();
    return real(fd);
}

int fsync(int fd) {
    static int (*real)(int);
    if (!real) real = (int (*)(int))dlsym(RTLD_NEXT, "fsync");
    wait_like_a_slow_disk();
    return real(fd);
}
