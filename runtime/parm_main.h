/* parm_main.h: the standalone main's run of an entry (--emit-main): the
 * input's planes to the device, one call, then `repeat` more calls timed,
 * the median time to stderr, the results back to the host. One loop for
 * every target and every entry; the target's parm_main_c.h or
 * parm_main_cuda.h, included before it, gives the planes' device copies,
 * the wait for queued work and the timer (parm_main_device, ...).
 * tests/sections/50-runtime.sh compiles it on its own after each. */
#ifndef PARM_MAIN_H
#define PARM_MAIN_H

#include <stdio.h>
#include <stdlib.h>

/* The entry's call on the device planes of the parameters (in) and the
 * results (out); n is the first array's length, or the elements of the
 * input's shape. */
typedef int (*parm_main_fn)(parm_ctx *ctx, void *const *in, void *const *out, size_t n);

/* The host planes of the parameters or of the results: count planes, plane
 * k of bytes[k] bytes, for what[k] (its parameter or result, named in the
 * message when it cannot be allocated). With ranks, whole[k] says that
 * every rank holds plane k whole (a scalar result), not a slice (NULL:
 * none does). */
typedef struct {
    void *const *host;
    const size_t *bytes;
    const char *const *what;
    int count;
    const unsigned char *whole;
} parm_main_planes;

/* The message of an allocation that failed: its bytes, what it was for. */
#define PARM_MSG_ALLOC "could not allocate %zu bytes for %s"

/* The host planes of `bytes` (at least 1 each), all NULL but those
 * allocated; one that cannot be allocated is said on stderr (1). */
static int parm_main_host_alloc(void **host, const size_t *bytes, const char *const *what,
                                int count) {
    for (int k = 0; k < count; k++) host[k] = NULL;
    for (int k = 0; k < count; k++)
        if (!(host[k] = malloc(bytes[k] ? bytes[k] : 1))) {
            fprintf(stderr, "error: " PARM_MSG_ALLOC "\n", bytes[k], what[k]);
            return 1;
        }
    return 0;
}

static int parm_compare_ms(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* `repeat` calls, each timed: their median to stderr, `note` after it (a
 * NULL note prints nothing). */
static int parm_main_time(parm_ctx *ctx, parm_main_fn call, void *const *in, void *const *out,
                          size_t n, int repeat, const char *note) {
    double *ms = (double *)malloc(sizeof(double) * (size_t)repeat);
    if (!ms) return PARM_ERROR_MEMORY;
    parm_main_timer timer;
    int status = parm_main_timer_create(ctx, &timer);
    for (int r = 0; r < repeat && !status; r++) {
        status = parm_main_timer_start(ctx, &timer);
        if (!status) status = call(ctx, in, out, n);
        if (!status) status = parm_main_timer_stop(ctx, &timer, &ms[r]);
    }
    if (!status) {
        qsort(ms, (size_t)repeat, sizeof(double), parm_compare_ms);
        if (note) fprintf(stderr, "median %.4f ms over %d runs%s\n", ms[repeat / 2], repeat, note);
    }
    parm_main_timer_destroy(&timer);
    free(ms);
    return status;
}

/* The N of `-r N`, the runs to time: 1 to 100000 (as parmc bench takes),
 * else -1. */
static int parm_main_runs(const char *text) {
    char *end;
    long runs = strtol(text, &end, 10);
    return end != text && !*end && runs >= 1 && runs <= 100000 ? (int)runs : -1;
}

/* The main's exit status once it has printed the results: 1 when they
 * could not all be written (a full disk, a closed pipe), said on stderr. */
static int parm_main_output_done(void) {
    if (fflush(stdout) == 0 && !ferror(stdout)) return 0;
    fputs("error: cannot write the output\n", stderr);
    return 1;
}

/* The entry run on the host planes `in` into `out`: once, then timed
 * `repeat` times (parm_main_time). */
static int parm_main_execute(parm_ctx *ctx, parm_main_fn call, size_t n, const parm_main_planes *in,
                             const parm_main_planes *out, int repeat, const char *note) {
    void **din = (void **)calloc((size_t)in->count + 1, sizeof(void *));
    void **dout = (void **)calloc((size_t)out->count + 1, sizeof(void *));
    int status = din && dout ? PARM_OK : PARM_ERROR_MEMORY;
    if (!status) status = parm_main_device(ctx, din, in->host, in->bytes, in->what, in->count, 1);
    if (!status)
        status = parm_main_device(ctx, dout, out->host, out->bytes, out->what, out->count, 0);
    if (!status) status = parm_main_wait(ctx);
    if (!status) status = call(ctx, din, dout, n);
    if (!status) status = parm_main_wait(ctx);
    if (!status && repeat > 0) status = parm_main_time(ctx, call, din, dout, n, repeat, note);
    if (!status) status = parm_main_host(ctx, out->host, dout, out->bytes, out->count);
    if (din) parm_main_free(din, in->count);
    if (dout) parm_main_free(dout, out->count);
    free(din);
    free(dout);
    return status;
}

#endif
