/* names.c: the hash table of names (names.h). */
#include "names.h"

#include <limits.h>
#include <stdint.h>
#include <string.h>

#include "diag.h"

/* Small, since most tables hold the few names of one pattern. */
enum { FIRST_CAP = 8 };

/* FNV-1a. */
static size_t name_hash(const char *name) {
    uint64_t h = 14695981039346656037u;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211u;
    return (size_t)h;
}

/* The slot of name: its own, or the empty one where it would go. */
static NameSlot *name_slot(const NameTable *t, const char *name) {
    size_t mask = (size_t)t->cap - 1;
    for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask)
        if (!t->slots[i].name || strcmp(t->slots[i].name, name) == 0) return &t->slots[i];
}

void *name_find(const NameTable *t, const char *name) {
    return t->cap ? name_slot(t, name)->item : NULL;
}

/* Doubles t when a new name would make it more than half full. */
void name_add(Arena *a, NameTable *t, const char *name, void *item) {
    if (2 * (t->count + 1) > t->cap) {
        NameTable old = *t;
        if (old.cap > INT_MAX / 4) diag_fatal("program too large: too many names");
        t->cap = old.cap ? 2 * old.cap : FIRST_CAP;
        t->slots = NEW_ARRAY(a, NameSlot, t->cap);
        for (int i = 0; i < old.cap; i++)
            if (old.slots[i].name) *name_slot(t, old.slots[i].name) = old.slots[i];
    }
    NameSlot *slot = name_slot(t, name);
    if (!slot->name) t->count++;
    *slot = (NameSlot){name, item};
}
