/* specialise.c: check and specialise a program from its entry points.
 *
 * The program is evaluated with static values for everything that does not
 * depend on array elements (see value.h). Recursion over sizes therefore
 * unrolls, functions are instantiated at the element types they meet, and
 * what remains is an IR program over arrays of fixed length. */
#include "specialise.h"

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "scalar_ops.h"
#include "value.h"

static Value *eval(Spec *s, const Expr *e, Env *env);

/* ---- environments and the function table ---- */

/* Binds name to v in the level being matched (s->bound), growing it. */
static void bind(Spec *s, const char *name, Value *v) {
    Bound *b = &s->bound;
    if (b->len == b->cap) {
        if (b->cap > INT_MAX / 4) diag_fatal("program too large: too many names in one binding");
        int cap = b->cap ? 2 * b->cap : 64;
        const char **names = NEW_ARRAY(s->arena, const char *, cap);
        Value **values = NEW_ARRAY(s->arena, Value *, cap);
        if (b->len) {
            memcpy(names, b->names, sizeof *names * (size_t)b->len);
            memcpy(values, b->values, sizeof *values * (size_t)b->len);
        }
        *b = (Bound){names, values, b->len, cap};
    }
    b->names[b->len] = name;
    b->values[b->len++] = v;
}

/* The level of what was bound since s->bound.len was `mark`, inside env;
 * env itself when nothing was. */
static Env *env_level(Spec *s, Env *env, int mark) {
    Bound *b = &s->bound;
    int n = b->len - mark;
    b->len = mark;
    if (n == 0) return env;
    Env *level = NEW(s->arena, Env);
    *level = (Env){n, NEW_ARRAY(s->arena, const char *, n), NEW_ARRAY(s->arena, Value *, n), NULL,
                   env};
    memcpy(level->names, b->names + mark, sizeof *level->names * (size_t)n);
    memcpy(level->values, b->values + mark, sizeof *level->values * (size_t)n);
    if (n > ENV_SCAN) {
        level->index = NEW(s->arena, NameTable);
        for (int i = 0; i < n; i++)
            name_add(s->arena, level->index, level->names[i], level->values[i]);
    }
    return level;
}

static Env *env_bind(Spec *s, Env *env, const char *name, Value *v) {
    int mark = s->bound.len;
    bind(s, name, v);
    return env_level(s, env, mark);
}

/* The innermost binding of name, NULL if none. */
static Value *env_find(const Env *env, const char *name) {
    for (; env; env = env->next) {
        if (env->index) {
            Value *v = name_find(env->index, name);
            if (v) return v;
            continue;
        }
        for (int i = env->n - 1; i >= 0; i--)
            if (strcmp(env->names[i], name) == 0) return env->values[i];
    }
    return NULL;
}

static Function *find_function(Spec *s, const char *name) { return name_find(&s->funcs, name); }

/* A function's equations come from one file: an imported file cannot add
 * equations to a function of the importer, nor take over its name. */
static noreturn void defined_twice(const Function *f, const Equation *eq) {
    diag_report(f->loc, "'%s' is also defined in %s", f->name, eq->loc.src->name);
    diag_note(eq->loc, "the other definition of '%s' is here", f->name);
    diag_abort();
}

/* Group equations by name; every equation of a name takes as many parameters. */
static void build_function_table(Spec *s, const Program *p) {
    for (int i = 0; i < p->equations.len; i++) {
        Equation *eq = p->equations.items[i];
        if (builtin_lookup(eq->name))
            diag_error(eq->loc, "'%s' is a built-in and cannot be redefined", eq->name);
        Function *f = find_function(s, eq->name);
        if (!f) {
            f = NEW(s->arena, Function);
            f->name = eq->name;
            f->loc = eq->loc;
            f->arity = eq->params.len;
            name_add(s->arena, &s->funcs, f->name, f);
        } else if (f->loc.src != eq->loc.src) {
            defined_twice(f, eq);
        } else if (f->arity != eq->params.len) {
            diag_report(eq->loc, "equation for '%s' has %d parameter%s, but the first one has %d",
                        eq->name, eq->params.len, eq->params.len == 1 ? "" : "s", f->arity);
            diag_note(f->loc, "first equation of '%s' is here", f->name);
            diag_abort();
        }
        ptrlist_push(s->arena, &f->equations, eq);
    }
}

/* ---- helpers on values ---- */

void spec_static_note(Loc loc) {
    diag_note(
        loc,
        "sizes and the exponents of '^' must be known at compile time, but an entry's scalar "
        "parameters are run-time values; for several sizes, give the entry a size range, as in "
        "`entry main (n : 1..20) (xs : [2^n]i32) = ...` (one instance per n)");
}

int64_t spec_expect_int(Spec *s, Value *v, Loc loc, const char *what) {
    if (v->kind == V_INT) return v->i;
    if (v->kind == V_RT && ir_is_scalar(v->rt)) {
        diag_report(loc, "%s must be static, but it is %s", what, value_describe(s, v));
        spec_static_note(loc);
        diag_abort();
    }
    diag_error(loc, "%s must be an integer, got %s", what, value_describe(s, v));
}

IrVal *spec_expect_array(Spec *s, Value *v, Loc loc, const char *what) {
    if (v->kind == V_RT && !ir_is_scalar(v->rt)) return v->rt;
    diag_error(loc, "%s must be an array, got %s", what, value_describe(s, v));
}

static const ElemType *elem_type_of(Spec *s, Value *v, bool static_bools) {
    if (v->kind == V_RT) return ir_is_scalar(v->rt) ? v->rt->elem : NULL;
    if (v->kind == V_BOOL && static_bools) return elem_prim(PRIM_BOOL);
    if (v->kind != V_TUPLE) return NULL;
    const ElemType **fields = NEW_ARRAY(s->arena, const ElemType *, v->n);
    for (int i = 0; i < v->n; i++) {
        fields[i] = elem_type_of(s, v->elems[i], static_bools);
        if (!fields[i]) return NULL;
    }
    return elem_tuple(s->arena, v->n, fields);
}

const ElemType *spec_elem_type(Spec *s, Value *v) { return elem_type_of(s, v, false); }

/* true and false can only be bools, unlike a static number, which takes the
 * type it meets (docs/language.md, 3); so an element made of them has a type. */
const ElemType *spec_element_of(Spec *s, Value *v) { return elem_type_of(s, v, true); }

static IrVal *emit_const(Spec *s, Prim p, Scalar c, Loc loc) {
    IrStmt *st = ir_append(s->prog, s->body, IR_CONST, loc, 0, NULL);
    st->cval = c;
    return ir_add_result(s->prog, st, -1, elem_prim(p));
}

/* A static number takes the type it meets only if it fits: nothing wraps
 * silently (`x < 300` on u8 would otherwise compare with 44). */
static void check_fits(Spec *s, const Value *v, Prim p, Loc loc) {
    Loc at = v->loc.src ? v->loc : loc;
    if (v->kind == V_INT && !scalar_int_fits(p, v->i)) {
        diag_report(at, "the integer %lld does not fit %s (%s)", (long long)v->i, prim_name(p),
                    prim_range_text(s->arena, p));
    } else if (v->kind == V_FLOAT && !scalar_double_fits(p, v->f)) {
        diag_report(at, "the number %g does not fit %s (it would be an infinity)", v->f,
                    prim_name(p));
    } else {
        return;
    }
    if (at.src != loc.src || at.line != loc.line)
        diag_note(loc, "it is used as %s here", prim_name(p));
    diag_abort();
}

Value *spec_coerce(Spec *s, Value *v, const ElemType *t, Loc loc) {
    if (t->is_tuple) {
        const char *want = elem_text(s->arena, t);
        if (v->kind != V_TUPLE || v->n != t->nfields)
            diag_error(loc, "expected a value of type %s, got %s", want, value_describe(s, v));
        Value **elems = NEW_ARRAY(s->arena, Value *, v->n);
        for (int i = 0; i < v->n; i++) elems[i] = spec_coerce(s, v->elems[i], t->fields[i], loc);
        return value_tuple(s, v->n, elems);
    }
    Prim p = t->prim;
    switch (v->kind) {
    case V_RT:
        if (ir_is_scalar(v->rt) && v->rt->elem->prim == p) return v;
        break;
    case V_INT:
        if (p != PRIM_BOOL) check_fits(s, v, p, loc);
        if (p != PRIM_BOOL) return value_rt(s, emit_const(s, p, scalar_from_int(p, v->i), loc));
        break;
    case V_BOOL:
        if (p == PRIM_BOOL) return value_rt(s, emit_const(s, p, scalar_from_int(p, v->i), loc));
        break;
    case V_FLOAT:
        if (prim_is_float(p)) check_fits(s, v, p, loc);
        if (prim_is_float(p))
            return value_rt(s, emit_const(s, p, scalar_convert(PRIM_F64, p, (Scalar){.f64 = v->f}),
                                          loc));
        break;
    default: break;
    }
    diag_error(loc, "type mismatch: expected %s, got %s", prim_name(p), value_describe(s, v));
}

void spec_flatten(Spec *s, Value *v, IrVal **slots) {
    if (v->kind == V_RT) {
        slots[0] = v->rt;
        return;
    }
    for (int i = 0; i < v->n; i++) {
        spec_flatten(s, v->elems[i], slots);
        const ElemType *t = spec_elem_type(s, v->elems[i]);
        slots += t->nslots;
    }
}

Value *spec_unflatten(Spec *s, const ElemType *t, IrVal **slots) {
    if (!t->is_tuple) return value_rt(s, slots[0]);
    Value **elems = NEW_ARRAY(s->arena, Value *, t->nfields);
    for (int i = 0; i < t->nfields; i++) {
        elems[i] = spec_unflatten(s, t->fields[i], slots);
        slots += t->fields[i]->nslots;
    }
    return value_tuple(s, t->nfields, elems);
}

/* Reading an element of an array built from scalars gives the scalars back,
 * so small arrays such as a comparator's [a, b] never reach the IR as
 * build-then-index pairs. */
Value *spec_index(Spec *s, IrVal *arr, int64_t i, Loc loc) {
    int nslots = arr->elem->nslots;
    IrVal **slots = NEW_ARRAY(s->arena, IrVal *, nslots);
    IrStmt *def = arr->def;
    for (int k = 0; k < nslots; k++) {
        if (def && def->op == IR_BUILD) {
            slots[k] = def->args[i * nslots + k];
            continue;
        }
        IrStmt *st = ir_append(s->prog, s->body, IR_INDEX, loc, 1, &arr);
        st->at = i;
        st->slot = k;
        slots[k] = ir_add_result(s->prog, st, -1, elem_prim(elem_slot_prim(arr->elem, k)));
    }
    return spec_unflatten(s, arr->elem, slots);
}

static int log2_exact(int64_t n) {
    if (n <= 0 || (n & (n - 1))) return -1;
    int k = 0;
    while ((INT64_C(1) << k) != n) k++;
    return k;
}

/* A list literal with a run-time element is an array; its element type is
 * the first run-time element's, else bool for true and false, else the
 * fallback (the element type that the array must have, or NULL), and static
 * elements are converted to it. */
Value *spec_build_as(Spec *s, int n, Value **elems, const ElemType *fallback, Loc loc) {
    int log_len = log2_exact(n);
    if (log_len < 0)
        diag_error(loc, "array literal has %d elements, which is not a power of two", n);
    const ElemType *t = NULL;
    for (int i = 0; i < n && !t; i++) t = spec_elem_type(s, elems[i]);
    for (int i = 0; i < n && !t; i++) t = spec_element_of(s, elems[i]);
    if (!t) t = fallback;
    if (!t)
        diag_error(loc, "array literal needs an element of a run-time type; give an element a "
                        "type, e.g. `i32 0`");
    IrVal **slots = NEW_ARRAY(s->arena, IrVal *, (size_t)n * (size_t)t->nslots);
    for (int i = 0; i < n; i++) {
        Value *e = spec_coerce(s, elems[i], t, loc);
        spec_flatten(s, e, slots + (size_t)i * (size_t)t->nslots);
    }
    IrStmt *st = ir_append(s->prog, s->body, IR_BUILD, loc, n * t->nslots, slots);
    return value_rt(s, ir_add_result(s->prog, st, log_len, t));
}

Value *spec_build(Spec *s, int n, Value **elems, Loc loc) {
    return spec_build_as(s, n, elems, NULL, loc);
}

/* ---- patterns ---- */

/* One step of static evaluation (a call, an expression, a pattern): bounds
 * the work of a compilation and the size of the IR it builds, so that huge
 * unrollings stop with an error within a second or two. */
static void spend(Spec *s, Loc loc) {
    if (++s->work > SPEC_MAX_WORK)
        diag_error(loc, "specialisation too large: more than %ld evaluation steps", SPEC_MAX_WORK);
    if (s->prog->next_id > SPEC_MAX_STMTS)
        diag_error(loc, "specialisation too large: the IR has more than %ld values",
                   SPEC_MAX_STMTS);
}

/* Binds the pattern's names in the level being matched (env_level makes
 * it). Returns false when it does not match. */
static bool match(Spec *s, const Pattern *p, Value *v) {
    spend(s, p->loc);
    switch (p->kind) {
    case PAT_WILD: return true;
    case PAT_VAR: bind(s, p->name, v); return true;
    case PAT_INT:
        if (v->kind == V_INT) return v->i == p->value;
        diag_report(p->loc, "pattern %lld needs a static integer argument, got %s",
                    (long long)p->value, value_describe(s, v));
        if (v->kind == V_RT && ir_is_scalar(v->rt))
            diag_note(p->loc,
                      "equations are chosen at compile time; to choose on a run-time value, use "
                      "'if' in one equation");
        diag_abort();
    case PAT_TUPLE:
        if (v->kind != V_TUPLE || v->n != p->elems.len) return false;
        for (int i = 0; i < v->n; i++)
            if (!match(s, p->elems.items[i], v->elems[i])) return false;
        return true;
    case PAT_LIST:
        if (v->kind == V_LIST) {
            if (v->n != p->elems.len) return false;
            for (int i = 0; i < v->n; i++)
                if (!match(s, p->elems.items[i], v->elems[i])) return false;
            return true;
        }
        if (v->kind != V_RT || ir_is_scalar(v->rt)) return false;
        if (v->rt->log_len > 20 || (INT64_C(1) << v->rt->log_len) != p->elems.len) return false;
        for (int i = 0; i < p->elems.len; i++)
            if (!match(s, p->elems.items[i], spec_index(s, v->rt, i, p->loc))) return false;
        return true;
    }
    return false;
}

/* ---- calls ---- */

/* "in the call of 'sort' with 3 <[2^4]>": the call of stack[i]. */
static const char *frame_text(Spec *s, int i) {
    const Frame *f = &s->stack[i];
    if (f->entry) return arena_printf(s->arena, "in entry '%s'", f->name);
    const char *args = "";
    for (int a = 0; a < f->nargs; a++)
        args = arena_printf(s->arena, "%s%s%s", args, a ? " " : " with ",
                            value_render(s, f->args[a]));
    if (f->name) return arena_printf(s->arena, "in the call of '%s'%s", f->name, args);
    return arena_printf(s->arena, "in the call of a lambda%s", args);
}

/* Notes for the frames stack[last..first], innermost first; of a long
 * chain, the innermost `inner` (the cycle of a recursion) and the outermost
 * `outer` (how it began), with the number of calls left out between them. */
enum { CHAIN_INNER = 5, CHAIN_OUTER = 2, IMPORT_INNER = 3, IMPORT_OUTER = 1 };

static void frame_notes(Spec *s, int first, int last, int inner, int outer) {
    bool elide = first - last + 1 > inner + outer + 1;
    for (int i = first; i >= last; i--) {
        if (elide && i <= first - inner && i >= last + outer) {
            if (i == first - inner)
                diag_note(s->stack[i].loc, "... %d more calls ...",
                          first - last + 1 - inner - outer);
            continue;
        }
        diag_note(s->stack[i].loc, "%s", frame_text(s, i));
    }
}

/* The innermost frame in the user's own file (the file of the entry,
 * stack[0]): the call by which the user's code led to an error in an
 * imported file. */
static int user_frame(const Spec *s) {
    const Source *user = s->stack[0].loc.src;
    int last = s->depth - 1;
    while (last > 0 && s->stack[last].loc.src != user) last--;
    return last;
}

static bool in_import(const Spec *s, Loc error) {
    return error.src && s->depth > 0 && error.src != s->stack[0].loc.src;
}

/* The diag lead of specialisation: an error in imported code is led by the
 * user's call that reached it, with its arguments (the sizes it was given). */
static void call_lead(void *data, Loc error) {
    Spec *s = data;
    if (!in_import(s, error)) return;
    int last = user_frame(s);
    diag_lead(s->stack[last].loc, "%s", frame_text(s, last));
}

static bool same_place(Loc a, Loc b) {
    return a.src == b.src && a.line == b.line && a.col == b.col;
}

/* A call that takes fewer arguments than its application gives, and fails:
 * most likely a call used as an argument without parentheses, `two f x ys`
 * for `two (f x) ys`. */
static void over_application_note(Spec *s, Loc error) {
    const Value *fn = s->over.fn;
    if (!fn || !same_place(error, s->over.loc)) return;
    const char *name = fn->fn == FN_NAMED ? fn->named->name
                       : fn->fn == FN_BUILTIN && fn->builtin != builtin_opsection()
                           ? fn->builtin->name
                           : NULL;
    if (!name) return;
    diag_note(error,
              "'%s' takes %d argument%s, but is given %d here; if one of them is a call, it needs "
              "parentheses, as in `two (f x) ys`",
              name, fn->arity, fn->arity == 1 ? "" : "s", s->over.given);
}

bool spec_negative_argument_noted(const Spec *s, Loc loc) {
    const NegativeArg *n = &s->neg;
    if (!n->minus || n->depth != s->depth) return false;
    return n->function || same_place(loc, n->minus->neg_literal->loc);
}

/* `shift -1 0 xs` is shift - (1 0 xs), `x + f -1` is (x + f) - 1: an error
 * in a subtraction written as a negative argument (NegativeArg). */
static void negative_argument_note(Spec *s, Loc error) {
    if (!spec_negative_argument_noted(s, error)) return;
    const Expr *m = s->neg.minus;
    const char *f = m->neg_head->name, *k = m->neg_literal->name;
    diag_note(
        m->loc,
        "`%s -%s` is a subtraction, not %s applied to -%s; a negative argument needs parentheses: "
        "%s (-%s)",
        f, k, f, k, f, k);
}

/* The smallest integer that an equation of f matches in parameter a, or
 * INT64_MAX when none is an integer pattern. */
static int64_t least_int_pattern(const Function *f, int a) {
    int64_t least = INT64_MAX;
    for (int i = 0; i < f->equations.len; i++) {
        const Equation *eq = f->equations.items[i];
        const Pattern *p = eq->params.items[a];
        if (p->kind == PAT_INT && p->value < least) least = p->value;
    }
    return least;
}

/* The base case that f lacks: `bsort 0 xs = ...`, with the names of its
 * first equation and 0 for the parameter a that counts down. */
static const char *base_case_text(Spec *s, const Function *f, int a) {
    const Equation *eq = f->equations.items[0];
    const char *text = f->name;
    for (int i = 0; i < f->arity; i++) {
        const Pattern *p = eq->params.items[i];
        text = arena_printf(s->arena, "%s %s", text,
                            i == a               ? "0"
                            : p->kind == PAT_VAR ? p->name
                                                 : "_");
    }
    return arena_printf(s->arena, "%s = ...", text);
}

/* An error inside a recursion whose static argument counts down past
 * where it should stop: the function has no equation for its end (a
 * missing base case; noted once the number reached 0, so that a deep but
 * finite recursion is not blamed) or the number went below it. */
static void recursion_note(Spec *s) {
    int top = s->depth - 1, prev = -1;
    while (top > 0 && !s->stack[top].fn) top--;
    for (int i = top - 1; i > 0 && prev < 0; i--)
        if (s->stack[i].fn == s->stack[top].fn) prev = i;
    if (top <= 0 || prev < 0) return;
    const Function *f = s->stack[top].fn;
    for (int a = 0; a < f->arity; a++) {
        const Value *now = s->stack[top].args[a], *before = s->stack[prev].args[a];
        if (now->kind != V_INT || before->kind != V_INT || now->i >= before->i) continue;
        int64_t least = least_int_pattern(f, a);
        if (least == INT64_MAX) {
            if (now->i > 0) return;
            diag_note(
                f->loc,
                "'%s' calls itself with a smaller number each time, %lld here, and no equation "
                "stops the recursion; add a base case before the others, such as `%s`",
                f->name, (long long)now->i, base_case_text(s, f, a));
        } else if (now->i < least) {
            diag_note(
                f->loc,
                "'%s' is called with %lld, below its base case %lld: the recursion went past it",
                f->name, (long long)now->i, (long long)least);
        }
        return;
    }
}

/* The diag notes of specialisation: hints for the usual causes of an
 * error, then, for an error in imported code, the calls that led to it,
 * down to the user's call that the lead names. */
static void call_chain(void *data, Loc error) {
    Spec *s = data;
    if (s->depth == 0) return;
    over_application_note(s, error);
    negative_argument_note(s, error);
    recursion_note(s);
    if (in_import(s, error))
        frame_notes(s, s->depth - 1, user_frame(s), IMPORT_INNER, IMPORT_OUTER);
}

/* The base case to suggest to the function whose body holds the call of
 * stack[i]: `halve 0 xs = ...` for its first run-time scalar parameter. */
static const char *static_base_case(Spec *s, int i) {
    const Frame *caller = &s->stack[i - 1];
    for (int a = 0; caller->fn && a < caller->nargs; a++)
        if (caller->args[a]->kind == V_RT && ir_is_scalar(caller->args[a]->rt))
            return base_case_text(s, caller->fn, a);
    return "f 0 xs = ...";
}

/* A recursion through the branch of an `if` on a run-time condition: both
 * branches are specialised, so the condition never stops it. The same `if`
 * holds two of the calls on the stack. */
static void runtime_if_note(Spec *s) {
    for (int i = s->depth - 1; i > 0; i--) {
        Loc at = s->stack[i].runtime_if;
        if (at.line == 0) continue;
        for (int j = i - 1; j > 0; j--)
            if (same_place(s->stack[j].runtime_if, at)) {
                diag_note(
                    at,
                    "the recursion goes through this `if`, whose condition is a run-time value: "
                    "both "
                    "branches of such an `if` are specialised, so it does not stop the recursion; "
                    "make "
                    "the condition static: recurse on a static number, with an equation for its "
                    "end "
                    "such as `%s` (as the stdlib's networks do)",
                    static_base_case(s, i));
                return;
            }
    }
}

static noreturn void too_deep(Spec *s, Loc loc, const char *what) {
    diag_set_context(NULL, NULL, NULL); /* the notes below show every file's calls */
    diag_report(loc, "%s", what);
    recursion_note(s);
    runtime_if_note(s);
    frame_notes(s, s->depth - 1, 0, CHAIN_INNER, CHAIN_OUTER);
    diag_abort();
}

static void push_frame(Spec *s, const char *name, Value **args, int nargs, Loc loc) {
    spend(s, loc);
    if (s->depth == SPEC_MAX_DEPTH)
        too_deep(s, loc,
                 arena_printf(s->arena, "recursion too deep: more than %d nested calls",
                              SPEC_MAX_DEPTH));
    s->stack[s->depth++] = (Frame){.loc = loc,
                                   .name = name,
                                   .args = args,
                                   .nargs = nargs,
                                   .runtime_if = s->runtime_if};
}

/* The body of a call: errors in it are not at the call, so it runs with no
 * over-application recorded, and outside the caller's run-time `if`. */
static Value *eval_body(Spec *s, const Expr *body, Env *env) {
    const Value *saved = s->over.fn;
    Loc saved_if = s->runtime_if;
    s->over.fn = NULL;
    s->runtime_if = (Loc){0};
    Value *r = eval(s, body, env);
    s->over.fn = saved;
    s->runtime_if = saved_if;
    return r;
}

/* A tuple pattern p given an array, or a list pattern given a tuple: the
 * note that says which brackets match which. Returns whether it gave one. */
static bool shape_note(Spec *s, const Pattern *p, Value *arg) {
    bool array = arg->kind == V_LIST || (arg->kind == V_RT && !ir_is_scalar(arg->rt));
    if (p->kind == PAT_TUPLE && array) {
        diag_note(p->loc,
                  "this tuple pattern does not match %s: an array is matched by [a, b] "
                  "(the pairs that col, vcolumn and the sorting networks pass are arrays)",
                  value_describe(s, arg));
        return true;
    }
    if (p->kind == PAT_LIST && arg->kind == V_TUPLE) {
        diag_note(p->loc,
                  "this array pattern does not match a tuple: a tuple is matched by (a, b)");
        return true;
    }
    return false;
}

/* The first equation's pattern of f whose shape its argument lacks, noted. */
static void pattern_shape_note(Spec *s, const Function *f, Value **args) {
    for (int i = 0; i < f->equations.len; i++) {
        const Equation *eq = f->equations.items[i];
        for (int a = 0; a < f->arity; a++)
            if (shape_note(s, eq->params.items[a], args[a])) return;
    }
}

static Value *call_named(Spec *s, const Function *f, Value **args, Loc loc) {
    push_frame(s, f->name, args, f->arity, loc);
    s->stack[s->depth - 1].fn = f;
    for (int i = 0; i < f->equations.len; i++) {
        Equation *eq = f->equations.items[i];
        int mark = s->bound.len;
        bool ok = true;
        for (int a = 0; a < f->arity && ok; a++) ok = match(s, eq->params.items[a], args[a]);
        if (!ok) {
            s->bound.len = mark; /* the next equation binds names of its own */
            continue;
        }
        Value *r = eval_body(s, eq->body, env_level(s, NULL, mark));
        s->depth--;
        return r;
    }
    const char *shown = "";
    for (int a = 0; a < f->arity; a++)
        shown = arena_printf(s->arena, "%s%s %s", shown, a ? "," : "", value_describe(s, args[a]));
    diag_report(loc, "no equation of '%s' matches the arguments:%s", f->name, shown);
    diag_note(f->loc, "'%s' is defined here", f->name);
    pattern_shape_note(s, f, args);
    diag_abort();
}

static Value *call_lambda(Spec *s, const Value *fn, Value **args, Loc loc) {
    const Expr *lam = fn->lambda;
    int mark = s->bound.len;
    push_frame(s, NULL, args, fn->arity, loc);
    s->stack[s->depth - 1].lambda = lam;
    for (int a = 0; a < fn->arity; a++) {
        const Pattern *p = lam->params.items[a];
        if (!match(s, p, args[a])) {
            if (lam->name)
                diag_report(p->loc, "parameter %d of the local function '%s' does not match %s",
                            a + 1, lam->name, value_describe(s, args[a]));
            else
                diag_report(p->loc, "lambda parameter does not match %s",
                            value_describe(s, args[a]));
            shape_note(s, p, args[a]);
            diag_abort();
        }
    }
    Value *r = eval_body(s, lam->body, env_level(s, fn->env, mark));
    s->depth--;
    return r;
}

static Value *call_saturated(Spec *s, const Value *fn, Value **args, Loc loc) {
    switch (fn->fn) {
    case FN_NAMED: return call_named(s, fn->named, args, loc);
    case FN_LAMBDA: return call_lambda(s, fn, args, loc);
    case FN_BUILTIN:
        if (fn->builtin == builtin_opsection()) return builtin_call_opsection(s, fn->op, args, loc);
        return fn->builtin->impl(s, args, loc);
    }
    return NULL;
}

Value *spec_apply(Spec *s, Value *fn, Value *arg, Loc loc) {
    if (fn->kind != V_FUNC)
        diag_error(loc, "%s cannot be applied to an argument", value_describe(s, fn));
    Value **args = NEW_ARRAY(s->arena, Value *, fn->n + 1);
    if (fn->n) memcpy(args, fn->elems, sizeof(Value *) * (size_t)fn->n);
    args[fn->n] = arg;
    if (fn->n + 1 < fn->arity) {
        Value *partial = NEW(s->arena, Value);
        *partial = *fn;
        partial->n = fn->n + 1;
        partial->elems = args;
        return partial;
    }
    return call_saturated(s, fn, args, loc);
}

Value *spec_apply_n(Spec *s, Value *fn, int nargs, Value **args, Loc loc) {
    for (int i = 0; i < nargs; i++) fn = spec_apply(s, fn, args[i], loc);
    return fn;
}

/* ---- expressions ---- */

/* The parser bounds the nesting of one expression and push_frame the nesting
 * of calls, but the two multiply; this bounds the product, so that deep
 * programs stop with an error instead of overflowing the C stack. */
#define SPEC_MAX_EVAL_DEPTH 10000
static int eval_depth; /* reset by specialise_program */

/* One level of evaluation of e (the caller decrements eval_depth after). */
static void enter_eval(Spec *s, const Expr *e) {
    spend(s, e->loc);
    if (++eval_depth > SPEC_MAX_EVAL_DEPTH)
        too_deep(s, e->loc,
                 arena_printf(s->arena, "evaluation too deep: more than %d nested expressions",
                              SPEC_MAX_EVAL_DEPTH));
}

/* fn arg, followed in its expression by `later` more arguments (the
 * application `((two f) x) ys` is evaluated from its innermost call out).
 * A call that these arguments saturate before the later ones runs with
 * s->over set, for the note of an error at the call. */
static Value *eval_app(Spec *s, const Expr *e, Env *env, int later) {
    Value *fn;
    if (e->fn->kind == EXPR_APP) {
        enter_eval(s, e->fn); /* as eval would */
        fn = eval_app(s, e->fn, env, later + 1);
        eval_depth--;
    } else {
        fn = eval(s, e->fn, env);
    }
    Value *arg = eval(s, e->arg, env);
    if (later == 0 || fn->kind != V_FUNC || fn->n + 1 < fn->arity)
        return spec_apply(s, fn, arg, e->loc);
    OverApplied saved = s->over;
    s->over.fn = fn;
    s->over.loc = e->loc;
    s->over.given = fn->arity + later;
    Value *r = spec_apply(s, fn, arg, e->loc);
    s->over = saved;
    return r;
}

static Value *func_value(Spec *s, FnKind kind, int arity) {
    Value *v = NEW(s->arena, Value);
    v->kind = V_FUNC;
    v->fn = kind;
    v->arity = arity;
    return v;
}

/* Keeps cand in *best when it is near enough to name to suggest, and
 * nearer than *best (of equally near names, the first). */
static void consider(const char *name, const char *cand, const char **best, int *best_d) {
    if (!diag_similar(name, cand)) return;
    int d = diag_edit_distance(name, cand, (int)strlen(name));
    if (!*best || d < *best_d) {
        *best = cand;
        *best_d = d;
    }
}

/* The name in scope nearest to `name`, if one is near enough to suggest:
 * local names (innermost first), then functions, then built-ins. */
static const char *nearest_name(Spec *s, const char *name, Env *env) {
    const char *best = NULL;
    int d = 0;
    for (const Env *b = env; b; b = b->next)
        for (int i = b->n - 1; i >= 0; i--) consider(name, b->names[i], &best, &d);
    const PtrList *eqs = &s->program->equations;
    for (int i = 0; i < eqs->len; i++)
        consider(name, ((const Equation *)eqs->items[i])->name, &best, &d);
    for (int i = 0; builtin_at(i); i++) consider(name, builtin_at(i)->name, &best, &d);
    return best;
}

/* The local function named name whose body is being evaluated, or NULL:
 * a name that it does not see, as local functions are not recursive. */
static const Expr *calling_local(const Spec *s, const char *name) {
    for (int i = s->depth - 1; i >= 0; i--) {
        const Expr *lam = s->stack[i].lambda;
        if (lam && lam->name && strcmp(lam->name, name) == 0) return lam;
    }
    return NULL;
}

/* An unknown name: the import that defines it, a local function that calls
 * itself, or a near name in scope. */
static noreturn void unknown_name(Spec *s, const Expr *e, Env *env) {
    const char *lib = s->import_path ? imports_stdlib_defining(s->arena, s->import_path, e->name)
                                     : NULL;
    if (lib) {
        diag_report(e->loc, "unknown name '%s'", e->name);
        diag_note(e->loc, "'%s' is defined in the stdlib: add import \"%s\"", e->name, lib);
        diag_abort();
    }
    if (s->range_ahead && strcmp(s->range_ahead->name, e->name) == 0) {
        diag_report(e->loc, "unknown name '%s'", e->name);
        diag_note(s->range_ahead->loc,
                  "the size range '%s' comes after this parameter, whose type sees only the "
                  "parameters before it; put the range first",
                  e->name);
        diag_abort();
    }
    const Expr *local = calling_local(s, e->name);
    if (local) {
        diag_report(e->loc, "unknown name '%s'", e->name);
        diag_note(local->loc,
                  "'%s' is a local function (`let %s ... in`), which cannot call itself; define it "
                  "with a top-level equation to recurse",
                  e->name, e->name);
        diag_abort();
    }
    const char *near = nearest_name(s, e->name, env);
    if (near) diag_error(e->loc, "unknown name '%s'; did you mean '%s'?", e->name, near);
    diag_error(e->loc, "unknown name '%s'", e->name);
}

static Value *lookup(Spec *s, const Expr *e, Env *env) {
    Value *bound = env_find(env, e->name);
    if (bound) return bound;
    const Function *f = find_function(s, e->name);
    if (f) {
        if (f->arity == 0) return call_named(s, f, NULL, e->loc);
        Value *v = func_value(s, FN_NAMED, f->arity);
        v->named = f;
        return v;
    }
    const Builtin *b = builtin_lookup(e->name);
    if (b) {
        Value *v = func_value(s, FN_BUILTIN, b->arity);
        v->builtin = b;
        return v;
    }
    unknown_name(s, e, env);
}

static Value *select_values(Spec *s, IrVal *cond, Value *a, Value *b, Loc loc);

static Value *select_arrays(Spec *s, IrVal *cond, IrVal *a, IrVal *b, Loc loc) {
    if (a->log_len != b->log_len || !elem_equal(a->elem, b->elem))
        diag_error(loc, "the branches of 'if' have different types: %s and %s",
                   value_describe(s, value_rt(s, a)), value_describe(s, value_rt(s, b)));
    if (a->log_len > 6)
        diag_error(loc,
                   "a condition on array elements cannot choose between arrays of %lld elements "
                   "(at most 64); use 'col' or 'map' to select element by element",
                   (long long)1 << a->log_len);
    int n = 1 << a->log_len;
    Value **elems = NEW_ARRAY(s->arena, Value *, n);
    for (int i = 0; i < n; i++)
        elems[i] = select_values(s, cond, spec_index(s, a, i, loc), spec_index(s, b, i, loc), loc);
    return spec_build(s, n, elems, loc);
}

/* The element type that the branches a, b of a run-time `if` take: a
 * run-time branch's, else bool for a static bool, which has no other type;
 * NULL for two static numbers, which could be of any. */
static const ElemType *branch_type(Spec *s, Value *a, Value *b) {
    const ElemType *t = spec_elem_type(s, a);
    if (!t) t = spec_elem_type(s, b);
    if (!t && (a->kind == V_BOOL || b->kind == V_BOOL)) t = elem_prim(PRIM_BOOL);
    return t;
}

/* Two static numbers that a run-time `if` cannot select (of no type; the
 * same integer is the result itself): the hint types the first float, as
 * a float literal takes no integer type, or else the first integer. */
static noreturn void untyped_branches(Spec *s, Value *a, Value *b, Loc loc) {
    bool numbers = (a->kind == V_INT || a->kind == V_FLOAT) &&
                   (b->kind == V_INT || b->kind == V_FLOAT);
    const Value *typed = a->kind == V_FLOAT || b->kind != V_FLOAT ? a : b;
    const char *hint = arena_printf(s->arena, "; give a branch an element type, e.g. `%s`",
                                    numbers ? value_typed(s, typed) : "");
    diag_error(loc, "a condition on array elements cannot choose between %s and %s%s",
               value_describe(s, a), value_describe(s, b), numbers ? hint : "");
}

/* `if` on a run-time condition: both branches were evaluated; merge them. */
static Value *select_values(Spec *s, IrVal *cond, Value *a, Value *b, Loc loc) {
    if (a->kind == V_RT && b->kind == V_RT && !ir_is_scalar(a->rt) && !ir_is_scalar(b->rt))
        return select_arrays(s, cond, a->rt, b->rt, loc);
    if (a->kind == V_LIST && b->kind == V_LIST && a->n == b->n) {
        Value **elems = NEW_ARRAY(s->arena, Value *, a->n);
        for (int i = 0; i < a->n; i++)
            elems[i] = select_values(s, cond, a->elems[i], b->elems[i], loc);
        return spec_build(s, a->n, elems, loc);
    }
    if (a->kind == V_TUPLE && b->kind == V_TUPLE && a->n == b->n) {
        Value **elems = NEW_ARRAY(s->arena, Value *, a->n);
        for (int i = 0; i < a->n; i++)
            elems[i] = select_values(s, cond, a->elems[i], b->elems[i], loc);
        return value_tuple(s, a->n, elems);
    }
    const ElemType *t = branch_type(s, a, b);
    if (!t || t->is_tuple) {
        if (a->kind == V_INT && b->kind == V_INT && a->i == b->i) return a;
        untyped_branches(s, a, b, loc);
    }
    IrVal *args[3] = {cond, spec_coerce(s, a, t, loc)->rt, spec_coerce(s, b, t, loc)->rt};
    IrStmt *st = ir_append(s->prog, s->body, IR_SELECT, loc, 3, args);
    return value_rt(s, ir_add_result(s->prog, st, -1, t));
}

static Value *eval_if(Spec *s, const Expr *e, Env *env) {
    Value *c = eval(s, e->cond, env);
    if (c->kind == V_BOOL) return eval(s, c->i ? e->then : e->els, env);
    if (c->kind == V_RT && ir_is_scalar(c->rt) && c->rt->elem->prim == PRIM_BOOL) {
        Loc outer = s->runtime_if;
        s->runtime_if = e->loc;
        Value *a = eval(s, e->then, env);
        Value *b = eval(s, e->els, env);
        s->runtime_if = outer;
        return select_values(s, c->rt, a, b, e->loc);
    }
    diag_error(e->cond->loc, "condition must be a bool, got %s", value_describe(s, c));
}

static Value *eval_let(Spec *s, const Expr *e, Env *env) {
    if (e->params.len > 0) {
        /* let f p1 p2 = v in body: a local function, closed over env */
        Value *fn = func_value(s, FN_LAMBDA, e->params.len);
        Expr *lam = NEW(s->arena, Expr);
        lam->kind = EXPR_LAMBDA;
        lam->loc = e->loc;
        lam->params = e->params;
        lam->body = e->value_expr;
        lam->name = e->bind->name;
        fn->lambda = lam;
        fn->env = env;
        return eval(s, e->body, env_bind(s, env, e->bind->name, fn));
    }
    Value *v = eval(s, e->value_expr, env);
    int mark = s->bound.len;
    if (!match(s, e->bind, v))
        diag_error(e->bind->loc, "pattern does not match %s", value_describe(s, v));
    return eval(s, e->body, env_level(s, env, mark));
}

static Value *eval_list(Spec *s, const Expr *e, Env *env) {
    int n = e->elems.len;
    Value **elems = NEW_ARRAY(s->arena, Value *, n);
    bool all_static = true;
    for (int i = 0; i < n; i++) {
        elems[i] = eval(s, e->elems.items[i], env);
        if (!value_is_static(elems[i])) all_static = false;
    }
    if (!all_static) return spec_build(s, n, elems, e->loc);
    Value *v = NEW(s->arena, Value);
    v->kind = V_LIST;
    v->n = n;
    v->elems = elems;
    return v;
}

static Value *eval_binary(Spec *s, const Expr *e, Env *env) {
    Value *a = eval(s, e->lhs, env);
    /* && and || short-circuit on static operands so that guards such as
       `k > 0 && f (k-1)` stop recursion. */
    if ((e->op == OP_AND || e->op == OP_OR) && a->kind == V_BOOL && (a->i != 0) == (e->op == OP_OR))
        return a;
    if (s->neg.minus == e && a->kind == V_FUNC) s->neg.function = true;
    Value *b = eval(s, e->rhs, env);
    return spec_binary(s, e->op, a, b, e->loc);
}

/* `f -1`: evaluated as the subtraction it is, with NegativeArg set for the
 * hint of an error in it. */
static Value *eval_negative_argument(Spec *s, const Expr *e, Env *env) {
    NegativeArg outer = s->neg;
    s->neg = (NegativeArg){.minus = e, .depth = s->depth};
    Value *v = eval_binary(s, e, env);
    s->neg = outer;
    return v;
}

static Value *eval_node(Spec *s, const Expr *e, Env *env) {
    switch (e->kind) {
    case EXPR_INT: {
        Value *v = value_int(s, e->value);
        v->loc = e->loc;
        return v;
    }
    case EXPR_BOOL: return value_bool(s, e->value != 0);
    case EXPR_FLOAT: {
        Value *v = NEW(s->arena, Value);
        v->kind = V_FLOAT;
        v->f = e->fvalue;
        v->loc = e->loc;
        return v;
    }
    case EXPR_VAR: {
        Value *v = lookup(s, e, env);
        if (s->neg.minus && s->neg.minus->neg_head == e && v->kind == V_FUNC)
            s->neg.function = true;
        return v;
    }
    case EXPR_OPFN: {
        Value *v = func_value(s, FN_BUILTIN, e->op == OP_NEG || e->op == OP_NOT ? 1 : 2);
        v->builtin = builtin_opsection();
        v->op = e->op;
        return v;
    }
    case EXPR_APP: return eval_app(s, e, env, 0);
    case EXPR_BINARY:
        return e->neg_head ? eval_negative_argument(s, e, env) : eval_binary(s, e, env);
    case EXPR_UNARY: return spec_binary(s, e->op, eval(s, e->lhs, env), NULL, e->loc);
    case EXPR_IF: return eval_if(s, e, env);
    case EXPR_LET: return eval_let(s, e, env);
    case EXPR_LAMBDA: {
        Value *v = func_value(s, FN_LAMBDA, e->params.len);
        v->lambda = e;
        v->env = env;
        return v;
    }
    case EXPR_TUPLE: {
        Value **elems = NEW_ARRAY(s->arena, Value *, e->elems.len);
        for (int i = 0; i < e->elems.len; i++) elems[i] = eval(s, e->elems.items[i], env);
        return value_tuple(s, e->elems.len, elems);
    }
    case EXPR_LIST: return eval_list(s, e, env);
    }
    return NULL;
}

static Value *eval(Spec *s, const Expr *e, Env *env) {
    enter_eval(s, e);
    Value *v = eval_node(s, e, env);
    eval_depth--;
    return v;
}

/* ---- entry points ---- */

static const ElemType *eval_elem_type(Spec *s, const TypeExpr *t) {
    if (t->kind == TYPE_PRIM) {
        Prim p;
        if (!prim_from_name(t->prim, &p)) diag_error(t->loc, "unknown element type '%s'", t->prim);
        return elem_prim(p);
    }
    if (t->kind == TYPE_ARRAY)
        diag_error(t->loc, "arrays of arrays are not supported; use one array of 2^(a+b) elements");
    const ElemType **fields = NEW_ARRAY(s->arena, const ElemType *, t->fields.len);
    for (int i = 0; i < t->fields.len; i++) fields[i] = eval_elem_type(s, t->fields.items[i]);
    return elem_tuple(s->arena, t->fields.len, fields);
}

int spec_log_len(Spec *s, int64_t len, Loc loc) {
    int k = log2_exact(len);
    if (k < 0) diag_error(loc, "array length %lld is not a power of two", (long long)len);
    if (k > MAX_LOG_LEN)
        diag_error(loc, "array length 2^%d exceeds the limit of 2^%d elements", k, MAX_LOG_LEN);
    return k;
}

/* `max` or `min` given as a pad: the largest or smallest value of p. */
static Scalar pad_extreme(Prim p, bool largest) {
    if (prim_is_float(p)) return scalar_from_double(p, largest ? HUGE_VAL : -HUGE_VAL);
    if (p == PRIM_BOOL) return scalar_from_int(p, largest);
    int bits = prim_bits(p);
    if (!prim_is_signed(p)) return scalar_wrap(p, (Scalar){.u = largest ? UINT64_MAX : 0});
    int64_t max = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
    return scalar_from_int(p, largest ? max : -max - 1);
}

static bool is_builtin_named(const Value *v, const char *name) {
    return v->kind == V_FUNC && v->fn == FN_BUILTIN && v->n == 0 &&
           strcmp(v->builtin->name, name) == 0;
}

/* The pad of an entry parameter as the slots of element type t: a static
 * number (which must fit, as a literal), a bool, `max` or `min` (field by
 * field for a tuple), or a tuple of those. */
static void pad_slots(Spec *s, Value *v, const ElemType *t, Scalar *out, int *k, Loc loc) {
    bool extreme = is_builtin_named(v, "max") || is_builtin_named(v, "min");
    if (t->is_tuple) {
        if (!extreme && (v->kind != V_TUPLE || v->n != t->nfields)) {
            diag_error(loc, "the pad must be a static value of type %s, got %s",
                       elem_text(s->arena, t), value_describe(s, v));
        }
        for (int i = 0; i < t->nfields; i++)
            pad_slots(s, extreme ? v : v->elems[i], t->fields[i], out, k, loc);
        return;
    }
    Prim p = t->prim;
    if (extreme) {
        out[(*k)++] = pad_extreme(p, is_builtin_named(v, "max"));
        return;
    }
    if (v->kind == V_INT && p != PRIM_BOOL) {
        check_fits(s, v, p, loc);
        out[(*k)++] = prim_is_float(p) ? scalar_from_double(p, (double)v->i)
                                       : scalar_from_int(p, v->i);
    } else if (v->kind == V_FLOAT && prim_is_float(p)) {
        check_fits(s, v, p, loc);
        out[(*k)++] = scalar_from_double(p, v->f);
    } else if (v->kind == V_BOOL && p == PRIM_BOOL) {
        out[(*k)++] = scalar_from_int(p, v->i);
    } else {
        diag_error(loc, "the pad must be a static value of type %s (%s, max or min), got %s",
                   prim_name(p), p == PRIM_BOOL ? "true, false" : "a number", value_describe(s, v));
    }
}

/* `(xs : [2^b][2^r]t pad e)` or `(xs : [2^n]t pad e)`: records the shape
 * and the pad in f; the body sees one array of 2^(b+r) or 2^n elements. */
static int padded_param(Spec *s, IrFunc *f, const EntryParam *p, Env *env,
                        const TypeExpr **elem_type) {
    if (f->pad_param >= 0) diag_error(p->loc, "an entry may have at most one parameter with a pad");
    const TypeExpr *t = p->type;
    if (t->kind != TYPE_ARRAY) diag_error(p->pad->loc, "only an array parameter can have a pad");
    int dims[2], ndims = 0;
    for (; t->kind == TYPE_ARRAY; t = t->elem) {
        if (ndims == 2)
            diag_error(t->loc, "a padded parameter has one or two dimensions (rows of elements)");
        int64_t len = spec_expect_int(s, eval(s, t->length, env), t->length->loc, "array length");
        dims[ndims++] = spec_log_len(s, len, t->length->loc);
    }
    int log_len = ndims == 2 ? dims[0] + dims[1] : dims[0];
    if (log_len > MAX_LOG_LEN)
        diag_error(p->type->loc, "array length 2^%d exceeds the limit of 2^%d elements", log_len,
                   MAX_LOG_LEN);
    f->pad_param = f->body->nparams;
    f->pad_rows_log = ndims == 2 ? dims[0] : -1;
    f->pad_cols_log = ndims == 2 ? dims[1] : dims[0];
    *elem_type = t;
    return log_len;
}

static Value *entry_param(Spec *s, IrFunc *f, const EntryParam *p, Env *env) {
    const TypeExpr *t = p->type;
    int log_len = -1;
    if (p->pad) {
        log_len = padded_param(s, f, p, env, &t);
    } else if (t->kind == TYPE_ARRAY) {
        int64_t len = spec_expect_int(s, eval(s, t->length, env), t->length->loc, "array length");
        log_len = spec_log_len(s, len, t->length->loc);
        t = t->elem;
    }
    const ElemType *elem = eval_elem_type(s, t);
    if (log_len < 0 && elem->is_tuple)
        diag_error(p->loc, "scalar entry parameters must have a primitive type");
    if (p->pad) {
        Scalar *pad = NEW_ARRAY(s->arena, Scalar, elem->nslots);
        int k = 0;
        pad_slots(s, eval(s, p->pad, env), elem, pad, &k, p->pad->loc);
        f->pad = pad;
    }
    return value_rt(s, ir_body_add_param(s->prog, f->body, log_len, elem));
}

/* A static value where an entry returns: a tuple's part is named by its
 * place among the results, and a number or a bool gets the type it needs;
 * the error is at the value (with a note at the entry's body when that is
 * on another line, as for a number that does not fit). */
static noreturn void static_result(Spec *s, IrBody *body, Value *v, bool in_tuple, Loc loc) {
    const char *what = in_tuple
                           ? arena_printf(s->arena, "result %d of the entry", body->nresults + 1)
                           : "the result of an entry";
    const char *hint = "";
    if (v->kind == V_INT || v->kind == V_FLOAT)
        hint = arena_printf(s->arena, "; give it a type, e.g. `%s`", value_typed(s, v));
    else if (v->kind == V_BOOL)
        hint = arena_printf(s->arena, "; give it a type, e.g. `bool %s`", value_describe(s, v));
    else if (v->kind == V_FUNC) hint = " (a call that lacks an argument)";
    Loc at = v->loc.src ? v->loc : loc;
    diag_report(at, "%s must be run-time data (arrays or scalars), got %s%s", what,
                value_describe(s, v), hint);
    if (at.src != loc.src || at.line != loc.line) diag_note(loc, "the entry returns it here");
    diag_abort();
}

static void add_results(Spec *s, IrBody *body, Value *v, bool in_tuple, Loc loc) {
    if (v->kind == V_RT) {
        ir_body_add_result(s->prog, body, v->rt);
        return;
    }
    if (v->kind != V_TUPLE) static_result(s, body, v, in_tuple, loc);
    for (int i = 0; i < v->n; i++) add_results(s, body, v->elems[i], true, loc);
}

/* Appends f to the program's functions, doubling the array in the arena. */
static void add_ir_func(Spec *s, IrFunc *f) {
    IrProgram *p = s->prog;
    if (p->nfuncs == s->ir_funcs_cap) {
        if (s->ir_funcs_cap > INT_MAX / 4) diag_fatal("program too large: too many entry points");
        s->ir_funcs_cap = s->ir_funcs_cap ? 2 * s->ir_funcs_cap : 16;
        IrFunc **grown = NEW_ARRAY(s->arena, IrFunc *, s->ir_funcs_cap);
        if (p->nfuncs) memcpy(grown, p->funcs, sizeof(IrFunc *) * (size_t)p->nfuncs);
        p->funcs = grown;
    }
    p->funcs[p->nfuncs++] = f;
}

/* `: [k]` (docs/language.md 7.2): k, static, and every array result of
 * another length than the padded parameter's rows of at least k. */
static void cut_results(Spec *s, IrFunc *f, const Expr *cut, Env *env) {
    if (f->pad_param < 0)
        diag_error(
            cut->loc,
            "a result row length needs an entry of any length (a parameter with a pad, 7.1)");
    int64_t k = spec_expect_int(s, eval(s, cut, env), cut->loc, "result row length");
    if (k < 1)
        diag_error(cut->loc, "the result row length must be at least 1, got %lld", (long long)k);
    f->cut_cols = k;
    int rows_log = f->pad_rows_log < 0 ? 0 : f->pad_rows_log;
    int padded_log = f->body->params[f->pad_param]->log_len;
    bool some = false;
    for (int i = 0; i < f->body->nresults; i++) {
        const IrVal *v = f->body->results[i];
        if (ir_is_scalar(v) || v->log_len == padded_log) continue;
        some = true;
        if (v->log_len < rows_log)
            diag_error(cut->loc,
                       "result %d has 2^%d elements, fewer than the padded parameter's 2^%d rows",
                       i + 1, v->log_len, rows_log);
        if (k > (int64_t)1 << (v->log_len - rows_log))
            diag_error(
                cut->loc,
                "result %d has rows of 2^%d elements, shorter than the result row length %lld",
                i + 1, v->log_len - rows_log, (long long)k);
    }
    if (!some)
        diag_error(cut->loc,
                   "no array result to cut: every array result has the padded parameter's length");
}

/* The body parameter of the entry parameter named `name` that gives the
 * segments' `what` (starts or lengths): a 1-D array of 2^rows_log integers. */
static int segment_param(const IrFunc *f, const Entry *entry, const EntryParam *padded,
                         const char *name, const char *what) {
    for (int i = 0, param = 0; i < entry->params.len; i++) {
        const EntryParam *p = entry->params.items[i];
        if (!p->type) continue; /* a size range is not a parameter of the body */
        if (strcmp(p->name, name) == 0) {
            const IrVal *v = f->body->params[param];
            if (p == padded)
                diag_error(padded->seg_loc, "the segments' %s cannot be the padded parameter '%s'",
                           what, name);
            if (ir_is_scalar(v) || v->elem->is_tuple ||
                (elem_slot_prim(v->elem, 0) != PRIM_I32 &&
                 elem_slot_prim(v->elem, 0) != PRIM_I64) ||
                v->log_len != f->pad_rows_log)
                diag_error(padded->seg_loc,
                           "the segments' %s '%s' must be an array of 2^%d i32 or i64 (one a "
                           "row of '%s')",
                           what, name, f->pad_rows_log, padded->name);
            return param;
        }
        param++;
    }
    diag_error(padded->seg_loc, "no parameter named '%s' to give the segments' %s", name, what);
}


/* `pad e, segments starts lens` (docs/language.md 7.3): the parameters that
 * place the padded parameter's rows in the caller's array. */
static void segment_params(IrFunc *f, const Entry *entry, const EntryParam *range) {
    for (int i = 0; i < entry->params.len; i++) {
        const EntryParam *p = entry->params.items[i];
        if (!p->seg_starts) continue;
        if (f->pad_rows_log < 0)
            diag_error(p->seg_loc, "segments need a padded parameter of rows, [2^b][2^r]t");
        if (range) diag_error(p->seg_loc, "an entry with segments cannot have a size range");
        f->seg_starts = segment_param(f, entry, p, p->seg_starts, "starts");
        f->seg_lens = segment_param(f, entry, p, p->seg_lens, "lengths");
        if (f->seg_starts == f->seg_lens)
            diag_error(p->seg_loc, "the segments' starts and lengths must be two parameters");
    }
}

static void specialise_entry_at(Spec *s, const Entry *entry, const EntryParam *range,
                                int64_t size) {
    IrFunc *f = NEW(s->arena, IrFunc);
    f->name = range ? arena_printf(s->arena, "%s_%lld", entry->name, (long long)size) : entry->name;
    f->entry = entry->name;
    f->size_param = range ? size : -1;
    f->loc = entry->loc;
    f->pad_param = -1;
    f->seg_starts = f->seg_lens = -1;
    f->body = ir_new_body(s->prog);
    s->body = f->body;
    s->entry_body = f->body;
    Env *env = NULL;
    s->range_ahead = range;
    for (int i = 0; i < entry->params.len; i++) {
        const EntryParam *p = entry->params.items[i];
        if (p == range) s->range_ahead = NULL;
        Value *v = p == range ? value_int(s, size) : entry_param(s, f, p, env);
        env = env_bind(s, env, p->name, v);
    }
    segment_params(f, entry, range);
    push_frame(s, entry->name, NULL, 0, entry->loc);
    s->stack[s->depth - 1].entry = true;
    add_results(s, f->body, eval(s, entry->body, env), false, entry->body->loc);
    s->depth--;
    if (entry->cut) cut_results(s, f, entry->cut, env);
    add_ir_func(s, f);
}

static void specialise_entry(Spec *s, const Entry *entry) {
    const EntryParam *range = NULL;
    for (int i = 0; i < entry->params.len; i++) {
        const EntryParam *p = entry->params.items[i];
        if (p->type) continue;
        if (range) diag_error(p->loc, "an entry may have at most one size range");
        range = p;
    }
    if (!range) {
        specialise_entry_at(s, entry, NULL, 0);
        return;
    }
    int64_t lo = spec_expect_int(s, eval(s, range->lo, NULL), range->lo->loc, "range bound");
    int64_t hi = spec_expect_int(s, eval(s, range->hi, NULL), range->hi->loc, "range bound");
    if (lo < 0 || hi < lo || hi > MAX_LOG_LEN)
        diag_error(range->loc, "size range %lld..%lld must satisfy 0 <= lo <= hi <= %d",
                   (long long)lo, (long long)hi, MAX_LOG_LEN);
    for (int64_t n = lo; n <= hi; n++) specialise_entry_at(s, entry, range, n);
}

/* The ranged entry whose specialisation `name` (NAME_n, 4.4 of
 * docs/language.md) names, or NULL. */
static const Entry *ranged_named_by(const Program *program, const char *name) {
    for (int i = 0; i < program->entries.len; i++) {
        const Entry *e = program->entries.items[i];
        size_t n = strlen(e->name);
        if (strncmp(name, e->name, n) || name[n] != '_') continue;
        const char *digits = name + n + 1;
        if (!*digits || strspn(digits, "0123456789") != strlen(digits)) continue;
        for (int j = 0; j < e->params.len; j++)
            if (!((const EntryParam *)e->params.items[j])->type) return e;
    }
    return NULL;
}

/* Entry points are looked up by name: when the one asked for is missing, the
 * error is about the whole file, and notes say where the entries are. */
noreturn void spec_no_entry(const Program *program, const char *entry) {
    Loc file = {program->src, 0, 0};
    if (!entry || program->entries.len == 0)
        diag_error(file, "the program has no entry point (write `entry main (xs : [2^n]t) = ...`)");
    diag_report(file, "no entry point named '%s'", entry);
    enum { SHOWN = 4 };
    for (int i = 0; i < program->entries.len && i < SHOWN; i++) {
        const Entry *e = program->entries.items[i];
        diag_note(e->loc, "entry '%s' is defined here", e->name);
    }
    if (program->entries.len > SHOWN)
        diag_note(file, "and %d more entries", program->entries.len - SHOWN);
    const Entry *ranged = ranged_named_by(program, entry);
    if (ranged)
        diag_note(ranged->loc,
                  "'%s' names a size of the ranged entry '%s', whose input chooses the size: "
                  "use -e %s",
                  entry, ranged->name, ranged->name);
    for (int i = 0; i < program->imported_entries.len; i++) {
        const Entry *e = program->imported_entries.items[i];
        if (strcmp(e->name, entry) == 0)
            diag_note(e->loc,
                      "entry '%s' is defined here, in an imported file, whose entries are not "
                      "compiled",
                      entry);
    }
    diag_abort();
}

void specialise_program(Arena *arena, const Program *program, const char *entry,
                        const ImportPath *path, IrProgram *prog) {
    Spec *s = NEW(arena, Spec);
    eval_depth = 0;
    s->arena = arena;
    s->prog = prog;
    s->import_path = path;
    s->program = program;
    build_function_table(s, program);
    NameTable entries = {0};
    for (int i = 0; i < program->entries.len; i++) {
        Entry *e = program->entries.items[i];
        if (name_find(&entries, e->name))
            diag_error(e->loc, "entry '%s' is defined twice", e->name);
        name_add(arena, &entries, e->name, e);
    }
    bool found = false;
    for (int i = 0; i < program->entries.len; i++) {
        const Entry *e = program->entries.items[i];
        if (entry && strcmp(e->name, entry) != 0) continue;
        found = true;
        diag_set_context(call_lead, call_chain, s);
        specialise_entry(s, e);
        diag_set_context(NULL, NULL, NULL);
    }
    if (!found) spec_no_entry(program, entry);
}
