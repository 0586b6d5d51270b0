/* graph_alias.c: calls of entry graphs (tests/backend/graph.parm, compiled
 * with --target=c to graph_api.c) whose inputs overlap their outputs must
 * give the results of the calls on separate arrays (docs/api.md); outputs
 * that overlap each other give GRAPH_API_ERROR_ALIAS (graph_api is the
 * prefix parmc derives from that name). Exit status 0 when all hold. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "graph_api.h"

#define N 128
#define M 64

static int failures;

static void check(int ok, const char *what) {
    if (!ok) {
        fprintf(stderr, "graph_alias: %s\n", what);
        failures++;
    }
}

/* twice (xs : [2^7]u32): four results of xs's length; the input placed at
 * each output in turn, and half an array below and above output 0. */
static void check_twice(graph_api_ctx *ctx) {
    uint32_t xs[N], want[4][N], *buf = malloc(sizeof(uint32_t) * 6 * N);
    for (int i = 0; i < N; i++) xs[i] = (uint32_t)(i * 2654435761u >> 7);
    check(graph_api_twice(ctx, xs, want[0], want[1], want[2], want[3], N) == GRAPH_API_OK,
          "twice on separate arrays");
    for (int at = 0; at < 4; at++) {
        uint32_t *out[4];
        for (int k = 0; k < 4; k++) out[k] = buf + (size_t)(k + 1) * N;
        memcpy(out[at], xs, sizeof xs);
        check(graph_api_twice(ctx, out[at], out[0], out[1], out[2], out[3], N) == GRAPH_API_OK,
              "twice in place");
        for (int k = 0; k < 4; k++)
            check(!memcmp(out[k], want[k], sizeof xs), "twice in place: a result differs");
    }
    for (int shift = -1; shift <= 1; shift += 2) {
        uint32_t *in = buf + N + shift * N / 2,
                 *out[4] = {buf + N, buf + 3 * N, buf + 4 * N, buf + 5 * N};
        memmove(in, xs, sizeof xs);
        check(graph_api_twice(ctx, in, out[0], out[1], out[2], out[3], N) == GRAPH_API_OK,
              "twice by half");
        for (int k = 0; k < 4; k++)
            check(!memcmp(out[k], want[k], sizeof xs), "twice by half: a result differs");
    }
    check(graph_api_twice(ctx, xs, buf, buf + N / 2, buf + 2 * N, buf + 3 * N, N) ==
              GRAPH_API_ERROR_ALIAS,
          "twice with overlapping outputs is not GRAPH_API_ERROR_ALIAS");
    free(buf);
}

/* mixed (xs : [2^6]f64) (ys : [2^6]i32): scalars and arrays; xs read
 * where its map is written, ys where it is returned. */
static void check_mixed(graph_api_ctx *ctx) {
    double xs[M], d0, d1[M], d4[M], *xa = malloc(sizeof xs);
    int32_t ys[M], i2, i3[M], *ya = malloc(sizeof ys);
    for (int i = 0; i < M; i++) {
        xs[i] = i * 0.75 - 20.0;
        ys[i] = i * 37 - 1000;
    }
    check(graph_api_mixed(ctx, xs, ys, &d0, d1, &i2, i3, d4, M) == GRAPH_API_OK,
          "mixed on separate arrays");
    memcpy(xa, xs, sizeof xs);
    memcpy(ya, ys, sizeof ys);
    double e0, e4[M];
    int32_t j2;
    check(graph_api_mixed(ctx, xa, ya, &e0, xa, &j2, ya, e4, M) == GRAPH_API_OK, "mixed in place");
    check(!memcmp(&e0, &d0, sizeof d0) && !memcmp(xa, d1, sizeof xs) && j2 == i2 &&
              !memcmp(ya, i3, sizeof ys) && !memcmp(e4, d4, sizeof xs),
          "mixed in place: a result differs");
    free(xa);
    free(ya);
}

/* padded (xs : [2^7]u32 pad max): L elements, in arrays of exactly L (ASan
 * sees a read or write past them): in place, by half, overlapping outputs;
 * an empty input still gives the reduction of the pads; a longer one
 * GRAPH_API_ERROR_LENGTH. */
#define L 37
static void check_padded(graph_api_ctx *ctx) {
    uint32_t *xs = malloc(sizeof(uint32_t) * L), *a = malloc(sizeof(uint32_t) * L),
             *s = malloc(sizeof(uint32_t) * L);
    uint32_t *buf = malloc(sizeof(uint32_t) * 4 * L), sum, sum2;
    for (int i = 0; i < L; i++) xs[i] = (uint32_t)(i * 2654435761u >> 9);
    check(graph_api_padded(ctx, xs, a, &sum, s, L) == GRAPH_API_OK, "padded on separate arrays");
    uint32_t *in = buf + L, *out0 = buf + L, *out2 = buf + 2 * L;
    memcpy(in, xs, sizeof(uint32_t) * L);
    check(graph_api_padded(ctx, in, out0, &sum2, out2, L) == GRAPH_API_OK && sum2 == sum &&
              !memcmp(out0, a, sizeof(uint32_t) * L) && !memcmp(out2, s, sizeof(uint32_t) * L),
          "padded in place: a result differs");
    in = buf + L / 2;
    memmove(in, xs, sizeof(uint32_t) * L);
    check(graph_api_padded(ctx, in, buf + L, &sum2, buf + 3 * L, L) == GRAPH_API_OK &&
              sum2 == sum && !memcmp(buf + L, a, sizeof(uint32_t) * L) &&
              !memcmp(buf + 3 * L, s, sizeof(uint32_t) * L),
          "padded by half: a result differs");
    check(graph_api_padded(ctx, xs, buf, &sum2, buf + L - 1, L) == GRAPH_API_ERROR_ALIAS,
          "padded with overlapping outputs is not GRAPH_API_ERROR_ALIAS");
    check(graph_api_padded(ctx, xs, a, &sum2, s, 0) == GRAPH_API_OK &&
              sum2 == (uint32_t)(128u * (UINT32_MAX ^ 5u)),
          "padded on an empty input: not the sum of the pads");
    check(graph_api_padded(ctx, xs, a, &sum2, s, 129) == GRAPH_API_ERROR_LENGTH,
          "padded with 129 elements");
    free(xs);
    free(a);
    free(s);
    free(buf);
}

int main(void) {
    graph_api_ctx *ctx;
    if (graph_api_ctx_create(&ctx)) return 1;
    check_twice(ctx);
    check_mixed(ctx);
    check_padded(ctx);
    graph_api_ctx_destroy(ctx);
    return failures ? 1 : 0;
}
