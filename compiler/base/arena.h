/* arena.h: one allocation arena per compilation, freed once at the end.
 * Everything the front end and the optimiser build lives here, so error paths
 * (which longjmp out of deep recursion) leak nothing and need no destructors. */
#ifndef PARMC_ARENA_H
#define PARMC_ARENA_H

#include <stdarg.h>
#include <stddef.h>

typedef struct ArenaBlock ArenaBlock;
typedef struct {
    ArenaBlock *head;
    size_t total; /* bytes handed out, checked against ARENA_LIMIT */
} Arena;

/* Programs that need more than this are rejected with a diagnostic. */
#define ARENA_LIMIT ((size_t)2 << 30)

void *arena_alloc(Arena *a, size_t size); /* zeroed memory */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_printf(Arena *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
char *arena_vprintf(Arena *a, const char *fmt, va_list ap) __attribute__((format(printf, 2, 0)));
void arena_free(Arena *a);

#define NEW(arena, type) ((type *)arena_alloc((arena), sizeof(type)))
#define NEW_ARRAY(arena, type, count) ((type *)arena_alloc((arena), sizeof(type) * (size_t)(count)))

#endif
