/* ast.c: small helpers for the syntax tree (ast.h). */
#include "ast.h"

#include <string.h>

/* spelling, name, unary, on integers, floats, bools */
static const OpInfo ops[OP_COUNT] = {
    [OP_ADD] = {"+", "add", false, true, true, false},
    [OP_SUB] = {"-", "sub", false, true, true, false},
    [OP_MUL] = {"*", "mul", false, true, true, false},
    [OP_DIV] = {"/", "div", false, true, true, false},
    [OP_MOD] = {"%", "mod", false, true, false, false},
    [OP_POW] = {"^", "pow", false, false, false, false},
    [OP_SHL] = {"<<", "shl", false, true, false, false},
    [OP_SHR] = {">>", "shr", false, true, false, false},
    [OP_BAND] = {"&", "and", false, true, false, true},
    [OP_BOR] = {"|", "or", false, true, false, true},
    [OP_XOR] = {"xor", "xor", false, true, false, true},
    [OP_EQ] = {"==", "eq", false, true, true, true},
    [OP_NE] = {"!=", "ne", false, true, true, true},
    [OP_LT] = {"<", "lt", false, true, true, false},
    [OP_LE] = {"<=", "le", false, true, true, false},
    [OP_GT] = {">", "gt", false, true, true, false},
    [OP_GE] = {">=", "ge", false, true, true, false},
    [OP_AND] = {"&&", "land", false, false, false, true},
    [OP_OR] = {"||", "lor", false, false, false, true},
    [OP_INDEX] = {"!", "at", false, false, false, false},
    [OP_NEG] = {"-", "neg", true, true, true, false},
    [OP_NOT] = {"!", "not", true, false, false, true},
    [OP_SQRT] = {"sqrt", "sqrt", true, false, true, false},
    [OP_SIN] = {"sin", "sin", true, false, true, false},
    [OP_COS] = {"cos", "cos", true, false, true, false},
};

const OpInfo *op_info(Op op)
{
    static const OpInfo unknown = {"?", "?", false, false, false, false};
    return (unsigned)op < OP_COUNT ? &ops[op] : &unknown;
}

const char *op_name(Op op) { return op_info(op)->spelling; }

bool op_takes(Op op, Prim p)
{
    const OpInfo *o = op_info(op);
    return p == PRIM_BOOL ? o->on_bool : prim_is_float(p) ? o->on_float : o->on_int;
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
