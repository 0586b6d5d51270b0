/* segments_alias.c: calls of the segment entries of tests/backend/segments_alias.parm
 * (compiled with --target=c to segments_api.c) whose results lie over their
 * starts or lengths give the results of the calls on separate arrays
 * (docs/api.md): the array result over the starts, over the lengths, the
 * scalar result over starts[0], and a one-chain entry's result over the
 * lengths. Positions outside every segment keep what the result held, so each
 * expected result starts from the same contents. Exit status 0 when all hold. */
#include <stdio.h>
#include <string.h>
#include "segments_api.h"

static int failures;

static void same(const char *what, const int32_t *got, const int32_t *want, int n) {
    if (memcmp(got, want, sizeof *got * (size_t)n) == 0) return;
    printf("FAIL %s\n", what);
    failures++;
}

int main(void) {
    segments_api_ctx *ctx;
    if (segments_api_ctx_create(&ctx)) return 1;
    const int32_t x[10] = {5, -2, 9, 1, 7, 7, -100, 3, 0, 2};
    const int32_t st[4] = {6, 0, 3, 9}, ln[4] = {3, 3, 0, 1};
    /* positions outside every segment (3 to 5) keep what the result array
       held: each expected result starts from the same contents */
    int32_t want[10], sum_want, got[10], sum, st2[10] = {0}, ln2[10] = {0};
    memcpy(st2, st, sizeof st);
    memcpy(want, st2, sizeof want);
    if (segments_api_main(ctx, x, st, ln, want, &sum_want, 10)) return 1;
    if (segments_api_main(ctx, x, st2, ln, st2, &sum, 10)) return 1;
    same("the result over the starts", st2, want, 10);
    memcpy(ln2, ln, sizeof ln);
    memcpy(want, ln2, sizeof want);
    if (segments_api_main(ctx, x, st, ln, want, &sum_want, 10)) return 1;
    if (segments_api_main(ctx, x, st, ln2, ln2, &sum, 10)) return 1;
    same("the result over the lengths", ln2, want, 10);
    /* the scalar result over st[0] */
    memset(got, 0, sizeof got);
    memset(want, 0, sizeof want);
    if (segments_api_main(ctx, x, st, ln, want, &sum_want, 10)) return 1;
    memcpy(st2, st, sizeof st);
    if (segments_api_main(ctx, x, st2, ln, got, &st2[0], 10)) return 1;
    same("the scalar result over starts[0]", got, want, 10);
    if (st2[0] != sum_want) printf("FAIL the sum over starts[0]\n"), failures++;
    /* a one-chain entry (sorted rows of f32) with its result over ln */
    const float y[10] = {9, 8, 7, 6, 5, 4, 3, 2, 1, 0};
    const int64_t st8[8] = {0, 4, 8, 0, 0, 0, 0, 0};
    const int32_t ln8[8] = {4, 4, 2, 0, 0, 0, 0, 0};
    float fwant[10], fgot[10];
    int32_t lnbig[10] = {0};
    memcpy(lnbig, ln8, sizeof ln8);
    memcpy(fwant, lnbig, sizeof fwant);
    if (segments_api_segsort(ctx, y, st8, ln8, fwant, 10)) return 1;
    if (segments_api_segsort(ctx, y, st8, lnbig, (float *)lnbig, 10)) return 1;
    memcpy(fgot, lnbig, sizeof fgot);
    if (memcmp(fgot, fwant, sizeof fgot) != 0)
        printf("FAIL a one-chain result over the lengths\n"), failures++;
    segments_api_ctx_destroy(ctx);
    printf("%d failed\n", failures);
    return failures != 0;
}
