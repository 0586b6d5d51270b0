/* parm_main_c.h: what the standalone main's run (parm_main.h, which
 * follows it) asks of the C target: the entry runs on the host's planes
 * themselves, timed by the wall clock. tests/sections/50-runtime.sh
 * compiles it on its own. */
#ifndef PARM_MAIN_C_H
#define PARM_MAIN_C_H

#include <stddef.h>
#include <time.h>

/* The planes the entry runs on: the host's (`upload` has nothing to do). */
static int parm_main_device(parm_ctx *ctx, void **dev, void *const *host, const size_t *bytes,
                            const char *const *what, int count, int upload) {
    (void)ctx;
    (void)bytes;
    (void)what;
    (void)upload;
    for (int k = 0; k < count; k++) dev[k] = host[k];
    return PARM_OK;
}

/* The results are in the host's planes already. */
static int parm_main_host(parm_ctx *ctx, void *const *host, void *const *dev, const size_t *bytes,
                          int count) {
    (void)ctx;
    (void)host;
    (void)dev;
    (void)bytes;
    (void)count;
    return PARM_OK;
}

static void parm_main_free(void **dev, int count) {
    (void)dev;
    (void)count;
}

/* A call has finished when it returns. */
static int parm_main_wait(parm_ctx *ctx) {
    (void)ctx;
    return PARM_OK;
}

typedef struct {
    struct timespec start;
} parm_main_timer;

static int parm_main_timer_create(parm_ctx *ctx, parm_main_timer *t) {
    (void)ctx;
    (void)t;
    return PARM_OK;
}

static int parm_main_timer_start(parm_ctx *ctx, parm_main_timer *t) {
    (void)ctx;
    timespec_get(&t->start, TIME_UTC);
    return PARM_OK;
}

static int parm_main_timer_stop(parm_ctx *ctx, parm_main_timer *t, double *ms) {
    (void)ctx;
    struct timespec end;
    timespec_get(&end, TIME_UTC);
    *ms = (double)(end.tv_sec - t->start.tv_sec) * 1e3 +
          (double)(end.tv_nsec - t->start.tv_nsec) / 1e6;
    return PARM_OK;
}

static void parm_main_timer_destroy(parm_main_timer *t) { (void)t; }

#endif
