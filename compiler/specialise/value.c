/* value.c: constructing and describing specialiser values. */
#include "value.h"

#include <string.h>

static Value *value_new(Spec *s, ValueKind kind) {
    Value *v = NEW(s->arena, Value);
    v->kind = kind;
    return v;
}

Value *value_int(Spec *s, int64_t i) {
    Value *v = value_new(s, V_INT);
    v->i = i;
    return v;
}

Value *value_bool(Spec *s, bool b) {
    Value *v = value_new(s, V_BOOL);
    v->i = b;
    return v;
}

Value *value_rt(Spec *s, IrVal *rt) {
    Value *v = value_new(s, V_RT);
    v->rt = rt;
    return v;
}

Value *value_tuple(Spec *s, int n, Value **elems) {
    Value *v = value_new(s, V_TUPLE);
    v->n = n;
    v->elems = elems;
    return v;
}

/* Lists are static by construction (a list literal with a run-time element
 * becomes an array). Tuples can share parts: (x, x) built n times has 2^n
 * leaves, so the walk is bounded instead of running for ever. */
#define MAX_STATIC_WALK 1000000L

static bool is_static_walk(const Value *v, long *budget) {
    if (v->kind == V_RT) return false;
    if (v->kind != V_TUPLE) return true;
    if ((*budget -= v->n) < 0)
        diag_fatal("a tuple is too large (more than %ld parts)", MAX_STATIC_WALK);
    for (int i = 0; i < v->n; i++)
        if (!is_static_walk(v->elems[i], budget)) return false;
    return true;
}

bool value_is_static(const Value *v) {
    long budget = MAX_STATIC_WALK;
    return is_static_walk(v, &budget);
}

static const char *describe_rt(Spec *s, const IrVal *v) {
    const char *elem = elem_text(s->arena, v->elem);
    if (ir_is_scalar(v)) return arena_printf(s->arena, "a run-time %s", elem);
    return arena_printf(s->arena, "an array [2^%d]%s", v->log_len, elem);
}

const char *value_describe(Spec *s, const Value *v) {
    switch (v->kind) {
    case V_INT: return arena_printf(s->arena, "the integer %lld", (long long)v->i);
    case V_BOOL: return v->i ? "true" : "false";
    case V_FLOAT: return arena_printf(s->arena, "the number %g", v->f);
    case V_MAT: return arena_printf(s->arena, "a %dx%d matrix", v->mat->n, v->mat->n);
    case V_TUPLE: return arena_printf(s->arena, "a tuple of %d values", v->n);
    case V_LIST:
        return arena_printf(s->arena, "a static list of %d value%s", v->n, v->n == 1 ? "" : "s");
    case V_FUNC: return "a function";
    case V_RT: return describe_rt(s, v->rt);
    }
    return "a value";
}

const char *value_render(Spec *s, const Value *v) {
    switch (v->kind) {
    case V_INT: return arena_printf(s->arena, "%lld", (long long)v->i);
    case V_BOOL: return v->i ? "true" : "false";
    case V_FUNC:
        if (v->n == 0 && v->fn == FN_NAMED) return v->named->name;
        if (v->n == 0 && v->fn == FN_BUILTIN && v->builtin != builtin_opsection())
            return v->builtin->name;
        return "<function>";
    case V_RT:
        return ir_is_scalar(v->rt) ? "<scalar>"
                                   : arena_printf(s->arena, "<[2^%d]>", v->rt->log_len);
    default: return "<value>";
    }
}

/* A static number as parm source: negative ones in parentheses. */
static const char *number_source(Spec *s, const Value *v) {
    const char *text = v->kind == V_INT ? arena_printf(s->arena, "%lld", (long long)v->i)
                                        : arena_printf(s->arena, "%g", v->f);
    return text[0] == '-' ? arena_printf(s->arena, "(%s)", text) : text;
}

const char *value_typed(Spec *s, const Value *v) {
    return arena_printf(s->arena, "%s %s", v->kind == V_INT ? "i32" : "f32", number_source(s, v));
}
