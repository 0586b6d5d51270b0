/* ast.c: small helpers for the syntax tree (ast.h). */
#include "ast.h"

#include <string.h>

/* spelling, name, arity, on integers, floats, bools, function, cost */
static const OpInfo ops[OP_COUNT] = {
    [OP_ADD] = {"+", "add", 2, true, true, false, false, 1},
    [OP_SUB] = {"-", "sub", 2, true, true, false, false, 1},
    [OP_MUL] = {"*", "mul", 2, true, true, false, false, 1},
    [OP_DIV] = {"/", "div", 2, true, true, false, false, 8},
    [OP_MOD] = {"%", "mod", 2, true, false, false, false, 8},
    [OP_POW] = {"^", "power", 2, false, false, false, false, 1},
    [OP_SHL] = {"<<", "shl", 2, true, false, false, false, 1},
    [OP_SHR] = {">>", "shr", 2, true, false, false, false, 1},
    [OP_BAND] = {"&", "and", 2, true, false, true, false, 1},
    [OP_BOR] = {"|", "or", 2, true, false, true, false, 1},
    [OP_XOR] = {"xor", "xor", 2, true, false, true, false, 1},
    [OP_EQ] = {"==", "eq", 2, true, true, true, false, 1},
    [OP_NE] = {"!=", "ne", 2, true, true, true, false, 1},
    [OP_LT] = {"<", "lt", 2, true, true, false, false, 1},
    [OP_LE] = {"<=", "le", 2, true, true, false, false, 1},
    [OP_GT] = {">", "gt", 2, true, true, false, false, 1},
    [OP_GE] = {">=", "ge", 2, true, true, false, false, 1},
    [OP_AND] = {"&&", "land", 2, false, false, true, false, 1},
    [OP_OR] = {"||", "lor", 2, false, false, true, false, 1},
    [OP_INDEX] = {"!", "at", 2, false, false, false, false, 1},
    [OP_NEG] = {"-", "neg", 1, true, true, false, false, 1},
    [OP_NOT] = {"!", "not", 1, false, false, true, false, 1},
    [OP_SQRT] = {"sqrt", "sqrt", 1, false, true, false, true, 16},
    [OP_SIN] = {"sin", "sin", 1, false, true, false, true, 16},
    [OP_COS] = {"cos", "cos", 1, false, true, false, true, 16},
    [OP_EXP] = {"exp", "exp", 1, false, true, false, true, 16},
    [OP_LOG] = {"log", "log", 1, false, true, false, true, 16},
    [OP_TANH] = {"tanh", "tanh", 1, false, true, false, true, 16},
    [OP_FLOOR] = {"floor", "floor", 1, false, true, false, true, 1},
    [OP_CEIL] = {"ceil", "ceil", 1, false, true, false, true, 1},
    [OP_ABS] = {"abs", "abs", 1, true, true, false, true, 1},
    [OP_ATAN2] = {"atan2", "atan2", 2, false, true, false, true, 16},
    [OP_FPOW] = {"pow", "pow", 2, false, true, false, true, 16},
    [OP_FMA] = {"fma", "fma", 3, false, true, false, true, 1},
};

const OpInfo *op_info(Op op) {
    static const OpInfo unknown = {"?", "?", 0, false, false, false, false, 1};
    return (unsigned)op < OP_COUNT ? &ops[op] : &unknown;
}

const char *op_name(Op op) { return op_info(op)->spelling; }

bool op_is_comparison(Op op) { return op >= OP_EQ && op <= OP_GE; }

bool op_takes(Op op, Prim p) {
    const OpInfo *o = op_info(op);
    return p == PRIM_BOOL ? o->on_bool : prim_is_float(p) ? o->on_float : o->on_int;
}

bool op_is_function(Op op) { return op_info(op)->function; }

/* Appends item; the array doubles in the arena (the old copy is abandoned). */
void ptrlist_push(Arena *a, PtrList *l, void *item) {
    if (l->len == l->cap) {
        int cap = l->cap ? l->cap * 2 : 4;
        void **items = NEW_ARRAY(a, void *, cap);
        if (l->len) memcpy(items, l->items, sizeof(void *) * (size_t)l->len);
        l->items = items;
        l->cap = cap;
    }
    l->items[l->len++] = item;
}
