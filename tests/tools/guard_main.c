/* guard_main.c: runs one entry of a --target=c output through its API with
 * every array in its own pages, so that a wrong write faults or shows:
 *   - each input plane is read-only (mprotect), so a write into the input
 *     is a SIGSEGV;
 *   - each plane ends exactly where an inaccessible page begins, so a
 *     read or write past its end is a SIGSEGV; the bytes before its start
 *     (up to the page boundary) hold a pattern that is checked after the
 *     call, and a page before them is inaccessible too.
 * Input and output are the text format of --emit-main (runtime/parm_io.h),
 * so the result can be compared with the interpreter's.
 *
 *   guard_entry.py prog.h main > entry.h
 *   cc -Iruntime -I. -include entry.h tests/tools/guard_main.c prog.c -o guard
 *   guard [-a] < input
 *
 * -a also checks calls whose arrays overlap (docs/api.md): an input that is
 * the output (in place) and inputs that overlap outputs by half must give
 * the same result as the call on separate arrays; output arrays that overlap
 * must give NAME_ERROR_ALIAS. Exit status: 0 right, 1 an error from the
 * entry or the input, 3 a wrong result or a changed pattern. */
#include <sys/mman.h>
#include <unistd.h>

#include "guard_io.h"

#define PATTERN 0xa5

typedef struct {
    unsigned char *map;  /* guard page, span, guard page */
    size_t span;         /* the accessible pages */
    unsigned char *data; /* the array: the last `bytes` of the span */
    size_t bytes;
} Region;

static size_t page_size(void) { return (size_t)sysconf(_SC_PAGESIZE); }

static void region_new(Region *r, size_t bytes) {
    size_t page = page_size();
    r->bytes = bytes;
    r->span = (bytes + page - 1) / page * page;
    if (r->span == 0) r->span = page;
    r->map = mmap(NULL, r->span + 2 * page, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
                  0);
    if (r->map == MAP_FAILED) {
        perror("guard: mmap");
        exit(1);
    }
    memset(r->map + page, PATTERN, r->span);
    if (mprotect(r->map, page, PROT_NONE) || mprotect(r->map + page + r->span, page, PROT_NONE)) {
        perror("guard: mprotect");
        exit(1);
    }
    r->data = r->map + page + r->span - bytes;
}

static void region_protect(Region *r, int prot) {
    if (mprotect(r->map + page_size(), r->span, prot)) {
        perror("guard: mprotect");
        exit(1);
    }
}

/* Whether the bytes before the array still hold the pattern. */
static int region_head_intact(const Region *r) {
    for (const unsigned char *p = r->map + page_size(); p < r->data; p++)
        if (*p != PATTERN) return 0;
    return 1;
}

static void region_free(Region *r) { munmap(r->map, r->span + 2 * page_size()); }

static int call(GUARD_API(ctx) * ctx, void **in, void **out, size_t n) {
    return GUARD_CALL(ctx, in, out, n);
}

/* One call on arrays that overlap: input k at in_at[k] (filled with the
 * input), output k at out_at[k]; the result must be `want`. */
static int overlapped_call(GUARD_API(ctx) * ctx, const char *what, Region *in, Region *want,
                           void **in_at, void **out_at, size_t n) {
    for (int k = 0; k < GUARD_NIN; k++) memcpy(in_at[k], in[k].data, in[k].bytes);
    int status = call(ctx, in_at, out_at, n);
    if (status) {
        fprintf(stderr, "guard: %s: %s\n", what, GUARD_API(error_string)(status));
        return 0;
    }
    for (int k = 0; k < GUARD_NOUT; k++)
        if (memcmp(out_at[k], want[k].data, want[k].bytes)) {
            fprintf(stderr, "guard: %s: field %d differs from the call on separate arrays\n", what,
                    k);
            return 0;
        }
    return 1;
}

/* In place, and each input overlapping its output by half (both ways):
 * input field k shares memory with output field k where both exist, in a
 * region that holds either one twice; an output field with no input field
 * of its index gets a region of its own. */
static int check_aliasing(GUARD_API(ctx) * ctx, Region *in, Region *want, size_t n) {
    int ok = 1;
    Region both[GUARD_NIN], alone[GUARD_NOUT];
    void *in_at[GUARD_NIN], *out_at[GUARD_NOUT];
    for (int k = 0; k < GUARD_NIN; k++) {
        size_t most = k < GUARD_NOUT && want[k].bytes > in[k].bytes ? want[k].bytes : in[k].bytes;
        region_new(&both[k], 2 * most);
    }
    for (int k = GUARD_NIN; k < GUARD_NOUT; k++) {
        region_new(&alone[k], want[k].bytes);
        out_at[k] = alone[k].data;
    }
    for (int k = 0; k < GUARD_NIN; k++) {
        in_at[k] = both[k].data;
        if (k < GUARD_NOUT) out_at[k] = both[k].data;
    }
    ok &= overlapped_call(ctx, "in place", in, want, in_at, out_at, n);
    for (int shift = -1; shift <= 1 && n >= 2; shift += 2) {
        for (int k = 0; k < GUARD_NIN; k++) {
            /* half, kept aligned for any element (an odd length's half is not) */
            unsigned char *mid = both[k].data + (in[k].bytes / 2 & ~(size_t)7);
            in_at[k] = shift < 0 ? mid : both[k].data;
            if (k < GUARD_NOUT) out_at[k] = shift < 0 ? both[k].data : mid;
        }
        ok &= overlapped_call(ctx,
                              shift < 0 ? "output half an array below the input"
                                        : "output half an array above the input",
                              in, want, in_at, out_at, n);
    }
    for (int k = 0; k < GUARD_NIN; k++) {
        ok &= region_head_intact(&both[k]);
        region_free(&both[k]);
    }
    for (int k = GUARD_NIN; k < GUARD_NOUT; k++) region_free(&alone[k]);
    return ok;
}

/* Output arrays that overlap are refused without a write. */
static int check_output_overlap(GUARD_API(ctx) * ctx, Region *in, Region *out, size_t n) {
    void *in_at[GUARD_NIN], *out_at[GUARD_NOUT];
    for (int k = 0; k < GUARD_NIN; k++) in_at[k] = in[k].data;
    for (int k = 0; k < GUARD_NOUT; k++) out_at[k] = out[0].data;
    int status = call(ctx, in_at, out_at, n);
    if (status != GUARD_STATUS(ERROR_ALIAS)) {
        fprintf(stderr, "guard: overlapping outputs gave '%s', not ERROR_ALIAS\n",
                GUARD_API(error_string)(status));
        return 0;
    }
    return 1;
}

int main(int argc, char **argv) {
    int aliasing = argc == 2 && !strcmp(argv[1], "-a");
    if (argc > 1 && !aliasing) {
        fprintf(stderr, "usage: %s [-a] < input\n", argv[0]);
        return 2;
    }
    unsigned char *host[GUARD_NIN];
    size_t n = read_input(host);
    Region in[GUARD_NIN], out[GUARD_NOUT];
    for (int k = 0; k < GUARD_NIN; k++) {
        region_new(&in[k], in_bytes(k, n));
        memcpy(in[k].data, host[k], in[k].bytes);
        free(host[k]);
        region_protect(&in[k], PROT_READ);
    }
    for (int k = 0; k < GUARD_NOUT; k++) region_new(&out[k], out_bytes(k, n));
    void *in_at[GUARD_NIN], *out_at[GUARD_NOUT];
    for (int k = 0; k < GUARD_NIN; k++) in_at[k] = in[k].data;
    for (int k = 0; k < GUARD_NOUT; k++) out_at[k] = out[k].data;
    GUARD_API(ctx) * ctx;
    int status = GUARD_API(ctx_create)(&ctx);
    if (!status) status = call(ctx, in_at, out_at, n);
    if (status) {
        fprintf(stderr, "error: %s\n", GUARD_API(error_string)(status));
        GUARD_API(ctx_destroy)(ctx);
        return 1;
    }
    int ok = 1;
    for (int k = 0; k < GUARD_NIN; k++) ok &= region_head_intact(&in[k]);
    for (int k = 0; k < GUARD_NOUT; k++) ok &= region_head_intact(&out[k]);
    if (!ok) fprintf(stderr, "guard: the bytes before an array changed\n");
    unsigned char *result[GUARD_NOUT];
    for (int k = 0; k < GUARD_NOUT; k++) result[k] = out[k].data;
    print_result(result, n);
    if (aliasing && same_types()) ok &= check_aliasing(ctx, in, out, n);
    /* an empty call writes nothing, so its outputs cannot overlap */
    if (aliasing && GUARD_NOUT > 1 && n > 0) ok &= check_output_overlap(ctx, in, out, n);
    GUARD_API(ctx_destroy)(ctx);
    for (int k = 0; k < GUARD_NIN; k++) region_free(&in[k]);
    for (int k = 0; k < GUARD_NOUT; k++) region_free(&out[k]);
    return ok ? 0 : 3;
}
