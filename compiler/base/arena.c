/* arena.c: a block-chained bump allocator (arena.h).
 *
 * Blocks of ARENA_BLOCK bytes are carved front to back in 16-byte steps;
 * a request too big for a fresh block gets a block of its own, linked just
 * behind the current one so that the current block keeps serving small
 * requests. Every allocation is zeroed. */
#include "arena.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diag.h"

#define ARENA_ALIGN 16
#define ARENA_BLOCK ((size_t)64 * 1024)

struct ArenaBlock {
    ArenaBlock *next;
    size_t size; /* usable bytes in data */
    size_t used; /* bytes handed out from data */
    _Alignas(ARENA_ALIGN) unsigned char data[];
};

/* A new block with room for at least size bytes (size a multiple of 16). */
static ArenaBlock *block_new(size_t size) {
    size_t bytes = sizeof(ArenaBlock) + size;
    ArenaBlock *b = aligned_alloc(ARENA_ALIGN,
                                  (bytes + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1));
    if (!b) diag_fatal("out of memory");
    b->next = NULL;
    b->size = size;
    b->used = 0;
    return b;
}

void *arena_alloc(Arena *a, size_t size) {
    if (size > ARENA_LIMIT || a->total + size > ARENA_LIMIT)
        diag_fatal("program too large (the compiler's memory limit is %zu MiB)", ARENA_LIMIT >> 20);
    size = (size + ARENA_ALIGN - 1) & ~(size_t)(ARENA_ALIGN - 1);
    if (size == 0) size = ARENA_ALIGN;
    a->total += size;

    ArenaBlock *b = a->head;
    if (!b || b->size - b->used < size) {
        if (size > ARENA_BLOCK / 4) {
            /* A big request: its own block, behind the current one. */
            ArenaBlock *big = block_new(size);
            big->used = size;
            if (b) {
                big->next = b->next;
                b->next = big;
            } else {
                a->head = big;
            }
            memset(big->data, 0, size);
            return big->data;
        }
        b = block_new(ARENA_BLOCK);
        b->next = a->head;
        a->head = b;
    }
    void *p = b->data + b->used;
    b->used += size;
    memset(p, 0, size);
    return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n) {
    char *p = arena_alloc(a, n + 1);
    memcpy(p, s, n);
    p[n] = '\0';
    return p;
}

char *arena_vprintf(Arena *a, const char *fmt, va_list ap) {
    va_list ap2;
    va_copy(ap2, ap);
    int n = vsnprintf(NULL, 0, fmt, ap);
    if (n < 0) n = 0;
    char *p = arena_alloc(a, (size_t)n + 1);
    vsnprintf(p, (size_t)n + 1, fmt, ap2);
    va_end(ap2);
    return p;
}

char *arena_printf(Arena *a, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    char *p = arena_vprintf(a, fmt, ap);
    va_end(ap);
    return p;
}

void arena_free(Arena *a) {
    ArenaBlock *b = a->head;
    while (b) {
        ArenaBlock *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->total = 0;
}
