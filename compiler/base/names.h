/* names.h: a hash table from names to items (open addressing, a power-of-
 * two size, at most half full, grown in the arena), so that a program of
 * hundreds of thousands of declarations, or a pattern of 2^16 names, is
 * checked and evaluated in linear time. A zeroed NameTable is empty. */
#ifndef PARMC_NAMES_H
#define PARMC_NAMES_H

#include "arena.h"

typedef struct {
    const char *name;
    void *item;
} NameSlot;
typedef struct {
    NameSlot *slots;
    int count, cap;
} NameTable;

/* The item of name, NULL if it has none. */
void *name_find(const NameTable *t, const char *name);
/* Gives name the item, in place of the one it had. */
void name_add(Arena *a, NameTable *t, const char *name, void *item);

#endif
