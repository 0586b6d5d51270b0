/* emit_elem.c: C code for element-level bodies (emit_elem.h).
 *
 * Every flattened slot of every value of the body is a node: a parameter's
 * C expression, or a C local declared for one scalar statement. Statements
 * that only move data (INDEX, BUILD, BMMC, REPLICATE, ZIP, UNZIP, CONVERT to
 * the same type) give their results the nodes of their arguments, so arrays
 * never get variables. A REDUCE applies its body in the interpreter's tree
 * order, each application a fresh copy of the body's locals.
 * Three passes: build the nodes and check the body (an unsupported form is an
 * internal error; the type rules of the scalar statements are the IR
 * verifier's, ir_verify.c), mark the nodes the results need, print the live
 * ones.
 *
 * The code uses runtime/parm_ops.h for every operator: parm_<op>_<t> and
 * parm_cvt_<to>_<from>; a scalar statement with result %id declares
 * `const <ctype> <prefix><id>`. */
#include "emit_elem.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdnoreturn.h>
#include <string.h>

#include "diag.h"

/* Arrays become one C expression per slot, so keep them small. */
#define ELEM_MAX_SLOTS (1 << 16)

typedef struct Node Node;
struct Node {
    const char *text;  /* a parameter's expression or a local's name */
    const IrStmt *def; /* the statement declaring the local; NULL for parameters */
    const char *init;  /* its initialiser */
    Prim prim;
    Node *deps[3];
    int ndeps;
    bool live;
};

typedef struct {
    Arena arena; /* everything below; freed before returning or failing */
    int min_id, nids;
    Node ***slots; /* by id - min_id: the value's slot nodes, NULL if not yet defined */
    Node **locals; /* every local, in the order they are declared */
    int nlocals, cap;
    int copy, ncopies; /* the body copy being built (0: the body itself), and how many */
    const char *prefix;
    const ElemPositions *positions;
    bool has_coord; /* inside a nested two, col or map: the instance's position, a constant */
    uint64_t coord;
} Emit;

static noreturn void fail(Emit *E, const IrStmt *s, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static noreturn void fail(Emit *E, const IrStmt *s, const char *fmt, ...) {
    arena_free(&E->arena);
    Arena scratch = {0};
    va_list ap;
    va_start(ap, fmt);
    const char *msg = arena_vprintf(&scratch, fmt, ap);
    va_end(ap);
    const char *where = !s            ? ""
                        : s->nres > 0 ? arena_printf(&scratch, " (%%%d = %s)", s->res[0]->id,
                                                     ir_op_name(s->op))
                                      : arena_printf(&scratch, " (%s)", ir_op_name(s->op));
    diag_report((Loc){0}, "internal error: element code%s: %s", where, msg);
    arena_free(&scratch);
    diag_abort();
}

static int value_slots(Emit *E, const IrStmt *s, const IrVal *v) {
    if (v->log_len > 30) fail(E, s, "array %%%d of 2^%d elements is too large", v->id, v->log_len);
    long n = (v->log_len < 0 ? 1L : 1L << v->log_len) * v->elem->nslots;
    if (n > ELEM_MAX_SLOTS)
        fail(E, s, "array %%%d has %ld slots, too many for element code", v->id, n);
    return (int)n;
}

int emit_elem_slots(const IrVal *v) {
    if (v->log_len > 30 || (v->log_len < 0 ? 1L : 1L << v->log_len) * v->elem->nslots > INT32_MAX)
        diag_fatal("internal error: element code: array %%%d of 2^%d elements is too large", v->id,
                   v->log_len);
    return (v->log_len < 0 ? 1 : 1 << v->log_len) * v->elem->nslots;
}

static Prim slot_prim(const IrVal *v, int k) {
    return elem_slot_prim(v->elem, k % v->elem->nslots);
}

/* ---- tables (IR_TABLE) ----
 *
 * A table is a file-scope array named for its number (IrStmt.index). Floats
 * are stored as their bits, so that every value (infinities and NaNs
 * included) is a constant initialiser with exactly the interpreter's bits;
 * integers and bools as literals of their own type. PARM_TABLE and
 * PARM_TABLE_READ (runtime/parm_ops.h) make it a global device array read
 * through the read-only cache in CUDA device code; where the plan puts the
 * table in constant memory (ElemPositions.tables) the read is of a copy
 * declared with PARM_CONST_TABLE, and where it has the index at compile time
 * a plain read (PARM_TABLE_AT), which the compiler folds. */

static const char *table_type(Prim p) {
    return p == PRIM_F32 ? "uint32_t" : p == PRIM_F64 ? "uint64_t" : prim_ctype(p);
}

static TablePlace table_place(const ElemPositions *positions, const IrStmt *s) {
    for (int i = 0; positions && i < positions->ntables; i++)
        if (positions->tables[i].table == s) return positions->tables[i].place;
    return TABLE_GLOBAL;
}

static const char *table_read(Arena *a, const IrStmt *s, const char *index, TablePlace place) {
    Prim p = s->res[0]->elem->prim;
    const char *read = place == TABLE_CONSTANT ? arena_printf(a, "parm_ctab%d[%s]", s->index, index)
                       : place == TABLE_IMMEDIATE
                           ? arena_printf(a, "PARM_TABLE_AT(parm_tab%d, %s)", s->index, index)
                           : arena_printf(a, "PARM_TABLE_READ(parm_tab%d, %s)", s->index, index);
    if (p == PRIM_F32 || p == PRIM_F64)
        return arena_printf(a, "parm_%s_from_bits(%s)", prim_name(p), read);
    return read;
}

static void table_decl(FILE *out, const IrStmt *s, bool constant) {
    Prim p = s->res[0]->elem->prim;
    long n = 1L << s->k;
    fprintf(out, "static %s %s parm_%s%d[%ld] = {", constant ? "PARM_CONST_TABLE" : "PARM_TABLE",
            table_type(p), constant ? "ctab" : "tab", s->index, n);
    Arena a = {0};
    for (long i = 0; i < n; i++) {
        fputs(i % 8 ? " " : "\n    ", out);
        if (p == PRIM_F32) fprintf(out, "0x%08" PRIx32 "u,", (uint32_t)s->tab[i].u);
        else if (p == PRIM_F64) fprintf(out, "0x%016" PRIx64 "ull,", s->tab[i].u);
        else fprintf(out, "%s,", emit_scalar_literal(&a, p, s->tab[i]));
    }
    arena_free(&a);
    fputs("\n};\n\n", out);
}

/* Tables with the same number share their entries: the first declares it. */
typedef struct {
    const bool *constant;
    int nconstant;
} ConstantTables;

static void body_tables(FILE *out, const IrBody *body, Arena *a, bool **done, int *ndone,
                        const ConstantTables *c) {
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *s = body->stmts[i];
        if (s->body) body_tables(out, s->body, a, done, ndone, c);
        if (s->op != IR_TABLE) continue;
        if (s->index >= *ndone) {
            int n = 2 * s->index + 16;
            bool *grown = NEW_ARRAY(a, bool, n);
            if (*ndone) memcpy(grown, *done, sizeof(bool) * (size_t)*ndone);
            *done = grown;
            *ndone = n;
        }
        if ((*done)[s->index]) continue;
        (*done)[s->index] = true;
        table_decl(out, s, false);
        if (s->index < c->nconstant && c->constant[s->index]) table_decl(out, s, true);
    }
}

void emit_elem_tables(FILE *out, const IrBody *const *bodies, int nbodies, const bool *constant,
                      int nconstant) {
    Arena a = {0};
    bool *done = NULL;
    int ndone = 0;
    ConstantTables c = {constant, nconstant};
    for (int i = 0; i < nbodies; i++) body_tables(out, bodies[i], &a, &done, &ndone, &c);
    arena_free(&a);
}

/* ---- pass 1: nodes ---- */

/* A scalar of the entry's level (a run-time scalar parameter, a constant,
 * or one that an earlier node computed), the one kind of value defined
 * outside that the planners let a body read: the C variable parm_arg<id>
 * of the function holding the body. */
static Node **entry_arg(Emit *E, const IrVal *v) {
    Node *node = NEW(&E->arena, Node);
    node->text = arena_printf(&E->arena, "parm_arg%d", v->id);
    node->prim = elem_slot_prim(v->elem, 0);
    Node **nodes = NEW_ARRAY(&E->arena, Node *, 1);
    nodes[0] = node;
    return nodes;
}

static Node **lookup(Emit *E, const IrStmt *s, const IrVal *v) {
    int i = v->id - E->min_id;
    if (i < 0 || i >= E->nids || !E->slots[i]) {
        if (ir_is_scalar(v) && !v->elem->is_tuple) return entry_arg(E, v);
        fail(E, s,
             "%%%d is not defined before its use in the body (values defined outside are not "
             "supported)",
             v->id);
    }
    return E->slots[i];
}

static void define(Emit *E, const IrStmt *s, const IrVal *v, Node **nodes) {
    int i = v->id - E->min_id;
    if (E->slots[i]) fail(E, s, "%%%d is defined twice", v->id);
    E->slots[i] = nodes;
}

/* A parameter expression can be used as an operand as it is when it is an
 * identifier with member accesses and subscripts; anything else gets
 * parentheses. */
static bool is_postfix_expr(const char *e) {
    if (!*e) return false;
    int depth = 0;
    for (const char *c = e; *c; c++) {
        if (*c == '[') depth++;
        else if (*c == ']') {
            if (--depth < 0) return false;
        } else if (depth > 0) continue;
        else if (*c == '-' && c[1] == '>') c++;
        else if (!(*c == '_' || *c == '.' || (*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') ||
                   (*c >= '0' && *c <= '9')))
            return false;
    }
    return depth == 0;
}

/* parm_<name>_<type>(a, b, ...): the runtime function of an operator. */
static const char *alu_call(Arena *a, const IrStmt *s, Prim in, Node **args) {
    const char *call = arena_printf(a, "parm_%s_%s(", op_info(s->alu)->name, prim_name(in));
    for (int i = 0; i < s->nargs; i++)
        call = arena_printf(a, "%s%s%s", call, i ? ", " : "", args[i]->text);
    return arena_printf(a, "%s)", call);
}

/* A literal with exactly the value's bits (constants are canonicalised). */
static const char *literal(Emit *E, Prim p, Scalar v) {
    return emit_scalar_literal(&E->arena, p, v);
}

const char *emit_scalar_literal(Arena *a, Prim p, Scalar v) {
    const char *ct = prim_ctype(p);
    if (p == PRIM_F32) {
        if (isfinite(v.f32)) return arena_printf(a, "%af", (double)v.f32);
        uint32_t bits;
        memcpy(&bits, &v.f32, sizeof bits);
        return arena_printf(a, "parm_f32_from_bits(0x%08" PRIx32 "u)", bits);
    }
    if (p == PRIM_F64) {
        if (isfinite(v.f64)) return arena_printf(a, "%a", v.f64);
        return arena_printf(a, "parm_f64_from_bits(0x%016" PRIx64 "ull)", v.u);
    }
    v = scalar_wrap(p, v);
    if (p == PRIM_BOOL) return arena_printf(a, "(uint8_t)%d", (int)v.u);
    int bits = prim_bits(p);
    if (!prim_is_signed(p))
        return arena_printf(a, "(%s)%" PRIu64 "%s", ct, v.u, bits == 64 ? "ull" : "u");
    int64_t max = bits == 64 ? INT64_MAX : (INT64_C(1) << (bits - 1)) - 1;
    if (v.i == -max - 1) return arena_printf(a, "(%s)(-%" PRId64 " - 1)", ct, max);
    return arena_printf(a, "(%s)%" PRId64, ct, v.i);
}

static Node *new_local(Emit *E, const IrStmt *s, Prim p, const char *init, int ndeps, Node **deps) {
    Node *n = NEW(&E->arena, Node);
    n->text = E->copy ? arena_printf(&E->arena, "%s%d_%d", E->prefix, s->res[0]->id, E->copy)
                      : arena_printf(&E->arena, "%s%d", E->prefix, s->res[0]->id);
    n->def = s;
    n->init = init;
    n->prim = p;
    n->ndeps = ndeps;
    for (int i = 0; i < ndeps; i++) n->deps[i] = deps[i];
    return n;
}

static void expect_scalars(Emit *E, const IrStmt *s, int nargs) {
    if (s->nargs != nargs) fail(E, s, "%d arguments, expected %d", s->nargs, nargs);
    if (s->nres != 1) fail(E, s, "%d results, expected 1", s->nres);
    for (int i = 0; i < nargs; i++)
        if (!ir_is_scalar(s->args[i]) || s->args[i]->elem->is_tuple)
            fail(E, s, "argument %%%d is not a scalar", s->args[i]->id);
    if (!ir_is_scalar(s->res[0]) || s->res[0]->elem->is_tuple)
        fail(E, s, "the result is not a scalar");
}

static Node **apply_body(Emit *E, const IrBody *body, Node **params);

/* REPLICATE, ZIP and UNZIP only rename slots: the nodes of every result,
 * one after the other. Element i of a zip holds the slots of element i of
 * each argument in turn; an unzip takes them apart again. */
static Node **data_nodes(Emit *E, const IrStmt *s) {
    int total = 0;
    for (int r = 0; r < s->nres; r++) total += value_slots(E, s, s->res[r]);
    Node **out = NEW_ARRAY(&E->arena, Node *, total > 0 ? total : 1);
    const IrVal *wide = s->op == IR_UNZIP ? s->args[0] : s->res[0]; /* the array of tuples */
    if (s->op == IR_REPLICATE) {
        int ns = wide->elem->nslots, len = total / ns;
        if (s->nargs != ns || s->nres != 1) fail(E, s, "%d arguments for %d slots", s->nargs, ns);
        for (int i = 0; i < len; i++)
            for (int k = 0; k < ns; k++) out[i * ns + k] = lookup(E, s, s->args[k])[0];
        return out;
    }
    if (ir_is_scalar(wide)) fail(E, s, "not an array");
    bool zip = s->op == IR_ZIP;
    int parts = zip ? s->nargs : s->nres, len = 1 << wide->log_len, NS = wide->elem->nslots;
    Node **tuples = zip ? out : lookup(E, s, wide);
    for (int part = 0, off = 0, at = 0; part < parts; part++) {
        const IrVal *v = zip ? s->args[part] : s->res[part];
        Node **narrow = zip ? lookup(E, s, v) : out + at;
        int ns = v->elem->nslots;
        if (v->log_len != wide->log_len || off + ns > NS) fail(E, s, "part %d does not fit", part);
        for (int i = 0; i < len; i++)
            for (int k = 0; k < ns; k++) {
                if (zip) tuples[i * NS + off + k] = narrow[i * ns + k];
                else narrow[i * ns + k] = tuples[i * NS + off + k];
            }
        off += ns;
        at += ns * len;
        if (part + 1 == parts && off != NS) fail(E, s, "%d of %d slots", off, NS);
    }
    return out;
}

/* reduce op z xs: pairs (x0 op x1), (x2 op x3), ... level by level, then
 * z op total (ir_eval.c's order); op's parameters are the slots of its
 * left operand, then of its right one. reduceblocks: so for each block of
 * 2^k elements, the totals one after the other. */
static Node **reduce_nodes(Emit *E, const IrStmt *s) {
    int ns = s->body->nresults;
    const IrVal *xs = s->args[ns];
    if (s->nargs != ns + 1 || ir_is_scalar(xs) || xs->elem->nslots != ns ||
        s->body->nparams != 2 * ns)
        fail(E, s, "not a reduction of %d slots", ns);
    int block = 1 << (s->op == IR_REDUCEBLOCKS ? s->k : xs->log_len),
        rows = (1 << xs->log_len) / block;
    Node **src = lookup(E, s, xs), **out = NEW_ARRAY(&E->arena, Node *, rows * ns);
    Node **level = NEW_ARRAY(&E->arena, Node *, block * ns),
         **params = NEW_ARRAY(&E->arena, Node *, 2 * ns);
    for (int row = 0; row < rows; row++) {
        memcpy(level, src + row * block * ns, sizeof(Node *) * (size_t)(block * ns));
        for (int len = block; len > 1; len /= 2)
            for (int j = 0; j < len / 2; j++) {
                memcpy(params, level + 2 * j * ns, sizeof(Node *) * (size_t)(2 * ns));
                memcpy(level + j * ns, apply_body(E, s->body, params), sizeof(Node *) * (size_t)ns);
            }
        for (int k = 0; k < ns; k++) {
            params[k] = lookup(E, s, s->args[k])[0];
            params[ns + k] = level[k];
        }
        memcpy(out + row * ns, apply_body(E, s->body, params), sizeof(Node *) * (size_t)ns);
    }
    return out;
}

/* scanblocks and exscanblocks: each block of 2^k elements left to right
 * from z (the operator is exact, so this is every grouping's result). */
static Node **scan_nodes(Emit *E, const IrStmt *s) {
    int ns = s->body->nresults;
    const IrVal *xs = s->args[ns];
    if (s->nargs != ns + 1 || ir_is_scalar(xs) || xs->elem->nslots != ns ||
        s->body->nparams != 2 * ns)
        fail(E, s, "not a scan of %d slots", ns);
    int len = 1 << xs->log_len, block = 1 << s->k;
    Node **src = lookup(E, s, xs), **out = NEW_ARRAY(&E->arena, Node *, len * ns);
    Node **run = NEW_ARRAY(&E->arena, Node *, ns), **params = NEW_ARRAY(&E->arena, Node *, 2 * ns);
    for (int i = 0; i < len; i++) {
        if ((i & (block - 1)) == 0)
            for (int k = 0; k < ns; k++) run[k] = lookup(E, s, s->args[k])[0];
        if (s->exclusive) memcpy(out + i * ns, run, sizeof(Node *) * (size_t)ns);
        memcpy(params, run, sizeof(Node *) * (size_t)ns);
        memcpy(params + ns, src + i * ns, sizeof(Node *) * (size_t)ns);
        memcpy(run, apply_body(E, s->body, params), sizeof(Node *) * (size_t)ns);
        if (!s->exclusive) memcpy(out + i * ns, run, sizeof(Node *) * (size_t)ns);
    }
    return out;
}

/* expand k ys: element i is element i >> k of ys, its nodes shared. */
static Node **expand_nodes(Emit *E, const IrStmt *s) {
    const IrVal *ys = s->args[0], *r = s->res[0];
    if (s->nres != 1 || ir_is_scalar(ys) || r->log_len != ys->log_len + s->k)
        fail(E, s, "not an expand");
    int ns = r->elem->nslots, len = 1 << r->log_len;
    Node **src = lookup(E, s, ys), **out = NEW_ARRAY(&E->arena, Node *, len * ns);
    for (int i = 0; i < len; i++)
        for (int k = 0; k < ns; k++) out[i * ns + k] = src[(i >> s->k) * ns + k];
    return out;
}

/* One instance of a nested body at position `coord` (what its POS reads). */
static Node **apply_at(Emit *E, const IrBody *body, Node **params, uint64_t coord) {
    bool had = E->has_coord;
    uint64_t outer = E->coord;
    E->has_coord = true;
    E->coord = coord;
    Node **r = apply_body(E, body, params);
    E->has_coord = had;
    E->coord = outer;
    return r;
}

/* two, col and map on a small array: a copy of the body per block, pair or
 * element (ir_eval.c's instances and positions). */
static Node **nested_nodes(Emit *E, const IrStmt *s) {
    if (s->nargs != 1 || s->nres != 1 || ir_is_scalar(s->args[0])) fail(E, s, "not an array stage");
    const IrVal *xs = s->args[0], *r = s->res[0];
    Node **src = lookup(E, s, xs);
    int ni = xs->elem->nslots, no = r->elem->nslots, len = 1 << xs->log_len;
    Node **out = NEW_ARRAY(&E->arena, Node *, value_slots(E, s, r));
    if (s->op == IR_MAP) {
        for (int i = 0; i < len; i++)
            memcpy(out + i * no, apply_at(E, s->body, src + i * ni, (uint64_t)i),
                   sizeof(Node *) * (size_t)no);
    } else if (s->op == IR_TWO) {
        int blocks = 1 << s->k, width = len / blocks;
        for (int j = 0; j < blocks; j++)
            memcpy(out + j * width * no, apply_at(E, s->body, src + j * width * ni, (uint64_t)j),
                   sizeof(Node *) * (size_t)(width * no));
    } else {
        Node **pair = NEW_ARRAY(&E->arena, Node *, 2 * ni);
        int hb = f2_top_bit(s->mask);
        for (uint64_t i = 0; i < (uint64_t)len; i++) {
            if (i >> hb & 1) continue;
            uint64_t j = i ^ s->mask;
            memcpy(pair, src + i * (uint64_t)ni, sizeof(Node *) * (size_t)ni);
            memcpy(pair + ni, src + j * (uint64_t)ni, sizeof(Node *) * (size_t)ni);
            Node **res = apply_at(E, s->body, pair, i);
            memcpy(out + i * (uint64_t)no, res, sizeof(Node *) * (size_t)no);
            memcpy(out + j * (uint64_t)no, res + no, sizeof(Node *) * (size_t)no);
        }
    }
    return out;
}

/* The result's nodes; for a scalar statement *local is set to its local. */
static Node **stmt_nodes(Emit *E, const IrStmt *s, Node **local) {
    Arena *a = &E->arena;
    *local = NULL;
    if ((s->op == IR_REDUCE || s->op == IR_REDUCEBLOCKS) && s->body) return reduce_nodes(E, s);
    if (s->op == IR_EXPAND) return expand_nodes(E, s);
    if (s->op == IR_SCAN) return scan_nodes(E, s);
    if (s->op == IR_REPLICATE || s->op == IR_ZIP || s->op == IR_UNZIP) return data_nodes(E, s);
    if (s->op == IR_TWO || s->op == IR_COL || s->op == IR_MAP) return nested_nodes(E, s);
    if (s->body)
        fail(
            E, s,
            "nested bodies other than a reduction's, a scan's, a two's, a col's or a map's are not "
            "supported");
    switch (s->op) {
    case IR_CONST:
    case IR_UNARY:
    case IR_BINARY:
    case IR_TERNARY:
    case IR_SELECT:
    case IR_CONVERT:
    case IR_POS: break;
    case IR_INDEX:
    case IR_BUILD:
    case IR_BMMC:
    case IR_TABLE: break;
    default: fail(E, s, "not supported in element code");
    }
    if (s->nres != 1) fail(E, s, "%d results, expected 1", s->nres);
    const IrVal *r = s->res[0];
    int nr = value_slots(E, s, r);
    Node **out = NEW_ARRAY(a, Node *, nr);
    Node *args[3] = {NULL, NULL, NULL};
    Prim p = r->elem->prim, in = PRIM_COUNT;
    switch (s->op) {
    case IR_CONST:
        expect_scalars(E, s, 0);
        *local = new_local(E, s, p, literal(E, p, s->cval), 0, args);
        break;
    case IR_POS:
        expect_scalars(E, s, 0);
        if (E->has_coord) {
            *local = new_local(E, s, p,
                               arena_printf(a, "(int64_t)0x%llxull",
                                            (unsigned long long)(f2_apply(s->mat, E->coord) ^
                                                                 s->compl )),
                               0, args);
            break;
        }
        if (!E->positions) fail(E, s, "a position where the caller gives none");
        *local = new_local(E, s, p, E->positions->expr(E->positions->ctx, s, &E->arena), 0, args);
        break;
    case IR_TABLE:
        expect_scalars(E, s, 1);
        args[0] = lookup(E, s, s->args[0])[0];
        *local = new_local(E, s, p, table_read(a, s, args[0]->text, table_place(E->positions, s)),
                           1, args);
        break;
    case IR_UNARY:
    case IR_BINARY:
    case IR_TERNARY: {
        int nargs = s->op == IR_UNARY ? 1 : s->op == IR_BINARY ? 2 : 3;
        expect_scalars(E, s, nargs);
        for (int i = 0; i < nargs; i++) args[i] = lookup(E, s, s->args[i])[0];
        in = s->args[0]->elem->prim;
        *local = new_local(E, s, p, alu_call(a, s, in, args), nargs, args);
        break;
    }
    case IR_SELECT:
        expect_scalars(E, s, 3);
        for (int i = 0; i < 3; i++) args[i] = lookup(E, s, s->args[i])[0];
        *local = new_local(E, s, p,
                           arena_printf(a, "%s ? %s : %s", args[0]->text, args[1]->text,
                                        args[2]->text),
                           3, args);
        break;
    case IR_CONVERT:
        expect_scalars(E, s, 1);
        args[0] = lookup(E, s, s->args[0])[0];
        in = s->args[0]->elem->prim;
        if (in == p) {
            out[0] = args[0];
            return out;
        }
        *local = new_local(E, s, p,
                           arena_printf(a, "parm_cvt_%s_%s(%s)", prim_name(p), prim_name(in),
                                        args[0]->text),
                           1, args);
        break;
    case IR_INDEX: {
        if (s->nargs != 1) fail(E, s, "%d arguments, expected 1", s->nargs);
        const IrVal *xs = s->args[0];
        Node **src = lookup(E, s, xs);
        if (ir_is_scalar(xs) || !ir_is_scalar(r) || r->elem->is_tuple)
            fail(E, s, "not an array to a scalar");
        if (s->at < 0 || s->at >> xs->log_len || s->slot < 0 || s->slot >= xs->elem->nslots)
            fail(E, s, "index %lld.%d out of range", (long long)s->at, s->slot);
        int k = (int)s->at * xs->elem->nslots + s->slot;
        if (slot_prim(xs, k) != p)
            fail(E, s, "result type %s, the slot is %s", prim_name(p), prim_name(slot_prim(xs, k)));
        out[0] = src[k];
        return out;
    }
    case IR_BUILD: {
        if (ir_is_scalar(r)) fail(E, s, "the result is not an array");
        int k = 0;
        for (int i = 0; i < s->nargs; i++) {
            Node **src = lookup(E, s, s->args[i]);
            int n = value_slots(E, s, s->args[i]);
            for (int j = 0; j < n; j++, k++) {
                if (k >= nr) fail(E, s, "more argument slots than result slots");
                if (slot_prim(s->args[i], j) != slot_prim(r, k))
                    fail(E, s, "slot %d has the wrong type", k);
                out[k] = src[j];
            }
        }
        if (k != nr) fail(E, s, "%d argument slots for %d result slots", k, nr);
        return out;
    }
    case IR_BMMC: {
        if (s->nargs != 1) fail(E, s, "%d arguments, expected 1", s->nargs);
        const IrVal *xs = s->args[0];
        Node **src = lookup(E, s, xs);
        if (ir_is_scalar(xs) || xs->log_len != r->log_len || !elem_equal(xs->elem, r->elem))
            fail(E, s, "argument and result shapes differ");
        if (!s->mat || s->mat->n != xs->log_len) fail(E, s, "matrix size differs from the array's");
        int ns = xs->elem->nslots;
        uint64_t len = UINT64_C(1) << xs->log_len;
        for (uint64_t x = 0; x < len; x++) {
            uint64_t y = f2_apply(s->mat, x) ^ s->compl ;
            if (y >= len || out[y * (uint64_t)ns]) fail(E, s, "not a permutation");
            for (int k = 0; k < ns; k++)
                out[y * (uint64_t)ns + (uint64_t)k] = src[x * (uint64_t)ns + (uint64_t)k];
        }
        return out;
    }
    default: break;
    }
    out[0] = *local;
    return out;
}

/* ---- passes 2 and 3 ---- */

static void emit_indent(FILE *out, int indent) {
    for (int i = 0; i < indent; i++) fputc(' ', out);
}

static void widen_ids(const IrBody *body, int *lo, int *hi) {
    for (int i = 0; i < body->nparams; i++) {
        int id = body->params[i]->id;
        if (*hi < *lo || id < *lo) *lo = id;
        if (id > *hi) *hi = id;
    }
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *s = body->stmts[i];
        for (int r = 0; r < s->nres; r++) {
            int id = s->res[r]->id;
            if (*hi < *lo || id < *lo) *lo = id;
            if (id > *hi) *hi = id;
        }
        if (s->body) widen_ids(s->body, lo, hi);
    }
}

static void push_local(Emit *E, Node *n) {
    if (E->nlocals == E->cap) {
        int cap = E->cap ? 2 * E->cap : 64;
        Node **grown = NEW_ARRAY(&E->arena, Node *, cap);
        if (E->nlocals) memcpy(grown, E->locals, sizeof(Node *) * (size_t)E->nlocals);
        E->locals = grown;
        E->cap = cap;
    }
    E->locals[E->nlocals++] = n;
}

/* Pass 1 over a body whose parameters are defined. */
static void body_nodes(Emit *E, const IrBody *body) {
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *s = body->stmts[i];
        Node *local;
        Node **nodes = stmt_nodes(E, s, &local);
        if (local) push_local(E, local);
        for (int r = 0, at = 0; r < s->nres; r++) {
            define(E, s, s->res[r], nodes + at);
            at += value_slots(E, s, s->res[r]);
        }
    }
}

/* Forget the nodes of a body's values, so that it can be applied again. */
static void forget(Emit *E, const IrBody *body) {
    for (int i = 0; i < body->nparams; i++) E->slots[body->params[i]->id - E->min_id] = NULL;
    for (int i = 0; i < body->nstmts; i++) {
        for (int r = 0; r < body->stmts[i]->nres; r++)
            E->slots[body->stmts[i]->res[r]->id - E->min_id] = NULL;
        if (body->stmts[i]->body) forget(E, body->stmts[i]->body);
    }
}

/* A copy of body applied to the parameter slots `params`: its result slots. */
static Node **apply_body(Emit *E, const IrBody *body, Node **params) {
    int outer = E->copy;
    E->copy = ++E->ncopies;
    forget(E, body);
    for (int i = 0, at = 0; i < body->nparams; i++) {
        define(E, NULL, body->params[i], params + at);
        at += value_slots(E, NULL, body->params[i]);
    }
    body_nodes(E, body);
    int total = 0;
    for (int r = 0; r < body->nresults; r++) total += value_slots(E, NULL, body->results[r]);
    Node **out = NEW_ARRAY(&E->arena, Node *, total > 0 ? total : 1);
    for (int r = 0, at = 0; r < body->nresults; r++) {
        int n = value_slots(E, NULL, body->results[r]);
        memcpy(out + at, lookup(E, NULL, body->results[r]), sizeof(Node *) * (size_t)n);
        at += n;
    }
    E->copy = outer;
    return out;
}

void emit_elem_body(FILE *out, const IrBody *body, const char *const *params,
                    const char *const *results, const char *prefix, int indent,
                    const ElemPositions *positions) {
    Emit E = {.prefix = prefix, .positions = positions};
    int lo = 0, hi = -1;
    widen_ids(body, &lo, &hi);
    E.min_id = lo;
    E.nids = hi - lo + 1;
    E.slots = NEW_ARRAY(&E.arena, Node **, E.nids > 0 ? E.nids : 1);

    int k = 0;
    for (int i = 0; i < body->nparams; i++) {
        const IrVal *v = body->params[i];
        int n = value_slots(&E, NULL, v);
        Node **nodes = NEW_ARRAY(&E.arena, Node *, n);
        for (int j = 0; j < n; j++, k++) {
            Node *node = NEW(&E.arena, Node);
            const char *e = params[k];
            node->text = is_postfix_expr(e) ? e : arena_printf(&E.arena, "(%s)", e);
            node->prim = slot_prim(v, j);
            nodes[j] = node;
        }
        define(&E, NULL, v, nodes);
    }
    body_nodes(&E, body);

    /* The wanted results' nodes are live, and so is everything a live local
     * reads (a local reads only locals declared before it). */
    k = 0;
    for (int r = 0; r < body->nresults; r++) {
        Node **nodes = lookup(&E, NULL, body->results[r]);
        for (int j = 0, n = value_slots(&E, NULL, body->results[r]); j < n; j++, k++)
            if (results[k]) nodes[j]->live = true;
    }
    for (int i = E.nlocals - 1; i >= 0; i--) {
        Node *n = E.locals[i];
        if (n->live)
            for (int d = 0; d < n->ndeps; d++) n->deps[d]->live = true;
    }

    for (int i = 0; i < E.nlocals; i++) {
        Node *n = E.locals[i];
        if (!n->live) continue;
        emit_indent(out, indent);
        fprintf(out, "const %s %s = %s;\n", prim_ctype(n->prim), n->text, n->init);
    }
    k = 0;
    for (int r = 0; r < body->nresults; r++) {
        Node **nodes = lookup(&E, NULL, body->results[r]);
        for (int j = 0, n = value_slots(&E, NULL, body->results[r]); j < n; j++, k++) {
            if (!results[k]) continue;
            emit_indent(out, indent);
            fprintf(out, "%s = %s;\n", results[k], nodes[j]->text);
        }
    }
    arena_free(&E.arena);
}

void emit_elem_named(FILE *out, const IrBody *body, int width, const char *prefix, int indent,
                     const ElemPositions *positions) {
    Arena names = {0};
    const char **params = NEW_ARRAY(&names, const char *, width),
               **results = NEW_ARRAY(&names, const char *, width);
    for (int k = 0; k < width; k++) {
        params[k] = arena_printf(&names, "e%d", k);
        results[k] = arena_printf(&names, "r%d", k);
    }
    emit_elem_body(out, body, params, results, prefix, indent, positions);
    arena_free(&names);
}
