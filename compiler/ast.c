/* ast.c: small helpers for the syntax tree (ast.h). */
#include "ast.h"

#include <string.h>

const char *op_name(Op op)
{
    static const char *const names[OP_COUNT] = {
        [OP_ADD] = "+",  [OP_SUB] = "-",  [OP_MUL] = "*",  [OP_DIV] = "/",
        [OP_MOD] = "%",  [OP_POW] = "^",  [OP_SHL] = "<<", [OP_SHR] = ">>",
        [OP_BAND] = "&", [OP_BOR] = "|",  [OP_XOR] = "xor",
        [OP_EQ] = "==",  [OP_NE] = "!=",  [OP_LT] = "<",   [OP_LE] = "<=",
        [OP_GT] = ">",   [OP_GE] = ">=",  [OP_AND] = "&&", [OP_OR] = "||",
        [OP_NEG] = "-",  [OP_NOT] = "!",  [OP_SQRT] = "sqrt", [OP_SIN] = "sin",
        [OP_COS] = "cos",
    };
    if ((unsigned)op >= OP_COUNT)
        return "?";
    return names[op];
}

bool op_is_float_function(Op op) { return op == OP_SQRT || op == OP_SIN || op == OP_COS; }

/* Appends item; the array doubles in the arena (the old copy is abandoned). */
void ptrlist_push(Arena *a, PtrList *l, void *item)
{
    if (l->len == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        void **items = NEW_ARRAY(a, void *, cap);
        if (l->len)
            memcpy(items, l->items, sizeof(void *) * (size_t)l->len);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->len++] = item;
}
