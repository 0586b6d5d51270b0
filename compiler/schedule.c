/* schedule.c: cut an optimised entry into kernels (see schedule.h). */
#include "schedule.h"

#include <string.h>

#define TILE_BYTES (64 * 1024)  /* shared memory for one tile: H100 allows up to 227 KB */

int schedule_tile_log(const ElemType *elem) {
    int bytes = elem_bytes(elem), log = 0;
    while ((2 << log) * bytes <= TILE_BYTES) log++;
    return log;
}

static int max_slot_bytes(const ElemType *t) {
    int most = 1;
    for (int k = 0; k < t->nslots; k++) {
        int b = prim_bits(elem_slot_prim(t, k)) / 8;
        if (b > most) most = b;
    }
    return most;
}

typedef struct {
    Arena *arena;
    Schedule *out;
    int n, seg_log, tile_log;
    const ElemType *elem;
    F2Mat q_mat;                /* logical = Q·memory ⊕ q */
    uint64_t q_compl;
    F2Space tile;               /* V of the phase being built */
    Step *stages;              /* of the phase being built */
    int nstages, cap;
    /* Per pending stage: the memory-frame pair vector and order functional,
     * turned into tile coordinates when the tile is fixed. */
    uint64_t *pair_mem, *order_mem;
    int *order_const;
} Sched;

static Phase *new_phase(Sched *s, PhaseKind kind) {
    Schedule *out = s->out;
    Phase *grown = NEW_ARRAY(s->arena, Phase, out->nphases + 1);
    if (out->nphases) memcpy(grown, out->phases, sizeof(Phase) * (size_t)out->nphases);
    out->phases = grown;
    Phase *p = &out->phases[out->nphases++];
    p->kind = kind;
    p->n = s->n;
    p->elem = p->in_elem = s->elem;
    return p;
}

/* The segment bits: every tile contains them. */
static F2Space segment_space(const Sched *s) { return f2_space_coords(s->n, f2_mask(s->seg_log)); }

/* Pad V with coordinate vectors, low bits first (neighbouring blocks then
 * share pages), up to the tile size. */
static void pad_tile(Sched *s, F2Space *v) {
    for (int bit = 0; bit < s->n && v->dim < s->tile_log; bit++) f2_space_add(v, UINT64_C(1) << bit);
}

/* Tile coordinates: [W | C] is a basis of F2^n; its inverse gives the
 * coordinates (u, b) of a memory index. */
static void fix_tile(Sched *s, Phase *p, F2Mat *coords) {
    F2Space v = s->tile;
    pad_tile(s, &v);
    p->seg_log = s->seg_log;
    p->tile_log = v.dim;
    p->block_log = s->n - v.dim;
    int col = 0;
    for (int i = 0; i < s->seg_log; i++) p->tile_cols[col++] = UINT64_C(1) << i;
    for (int i = v.dim - 1; i >= 0; i--) {
        uint64_t w = v.basis[i] & ~f2_mask(s->seg_log);   /* reduce modulo the segment bits */
        if (w) p->tile_cols[col++] = w;
    }
    uint64_t rest = f2_space_coord_complement(&v);
    int b = 0;
    for (int bit = 0; bit < s->n; bit++)
        if (rest >> bit & 1) p->block_cols[b++] = UINT64_C(1) << bit;
    F2Mat basis = f2_zero(s->n);
    for (int i = 0; i < s->n; i++) {
        uint64_t c = i < p->tile_log ? p->tile_cols[i] : p->block_cols[i - p->tile_log];
        for (int r = 0; r < s->n; r++)
            if (c >> r & 1) basis.row[r] |= UINT64_C(1) << i;
    }
    f2_invert(&basis, coords);
}

/* A memory-frame functional f (x ↦ parity(f & x)) as masks over u and b. */
static void split_functional(const Phase *p, uint64_t f, uint64_t *on_u, uint64_t *on_b) {
    *on_u = *on_b = 0;
    for (int i = 0; i < p->tile_log; i++) *on_u |= (uint64_t)f2_parity(f & p->tile_cols[i]) << i;
    for (int k = 0; k < p->block_log; k++) *on_b |= (uint64_t)f2_parity(f & p->block_cols[k]) << k;
}

static void flush_local(Sched *s) {
    if (s->nstages == 0) return;
    Phase *p = new_phase(s, PHASE_LOCAL);
    F2Mat coords;
    fix_tile(s, p, &coords);
    p->stages = s->stages;
    p->nstages = s->nstages;
    for (int i = 0; i < s->nstages; i++) {
        Step *st = &p->stages[i];
        st->pair = f2_apply(&coords, s->pair_mem[i]);   /* lies in V: no block part */
        split_functional(p, s->order_mem[i], &st->order, &st->order_block);
        st->order_const = s->order_const[i];
    }
    s->stages = NULL;
    s->nstages = s->cap = 0;
    s->tile = segment_space(s);
}

static void push_stage(Sched *s, const IrStmt *stmt, const IrBody *body, uint64_t pair, uint64_t order,
                       int order_const) {
    if (s->nstages == s->cap) {
        int cap = s->cap ? 2 * s->cap : 16;
        Step *stages = NEW_ARRAY(s->arena, Step, cap);
        uint64_t *pairs = NEW_ARRAY(s->arena, uint64_t, cap), *orders = NEW_ARRAY(s->arena, uint64_t, cap);
        int *consts = NEW_ARRAY(s->arena, int, cap);
        if (s->nstages) {
            memcpy(stages, s->stages, sizeof(Step) * (size_t)s->nstages);
            memcpy(pairs, s->pair_mem, sizeof(uint64_t) * (size_t)s->nstages);
            memcpy(orders, s->order_mem, sizeof(uint64_t) * (size_t)s->nstages);
            memcpy(consts, s->order_const, sizeof(int) * (size_t)s->nstages);
        }
        s->stages = stages;
        s->pair_mem = pairs;
        s->order_mem = orders;
        s->order_const = consts;
        s->cap = cap;
    }
    s->stages[s->nstages] = (Step){.stmt = stmt, .body = body};
    s->pair_mem[s->nstages] = pair;
    s->order_mem[s->nstages] = order;
    s->order_const[s->nstages] = order_const;
    s->nstages++;
}

/* A column on logical bit 0: in memory the pair differs by Q⁻¹·e0, and the
 * element with logical bit 0 clear comes first. */
static void add_pair_stage(Sched *s, const IrStmt *stmt) {
    F2Mat inv;
    f2_invert(&s->q_mat, &inv);
    uint64_t pair = f2_column(&inv, 0);
    F2Space grown = s->tile;
    f2_space_add(&grown, pair);
    if (grown.dim > s->tile_log) {
        flush_local(s);
        grown = s->tile;
        f2_space_add(&grown, pair);
    }
    s->tile = grown;
    push_stage(s, stmt, stmt->body, pair, s->q_mat.row[0], (int)(s->q_compl & 1));
}

static void add_permute(Sched *s) {
    if (f2_is_identity(&s->q_mat) && s->q_compl == 0) return;
    Phase *p = new_phase(s, PHASE_PERMUTE);
    p->mat = s->q_mat;
    p->compl = s->q_compl;
}

/* The element type decides the segment bits and the tile size. */
static void set_elem(Sched *s, const ElemType *elem) {
    s->elem = elem;
    int seg = 7 - __builtin_ctz((unsigned)max_slot_bytes(elem));
    int tile = schedule_tile_log(elem);
    s->seg_log = seg < s->n ? seg : s->n;
    s->tile_log = tile < s->n ? tile : s->n;
    s->tile = segment_space(s);
}

static noreturn void unsupported(const IrStmt *stmt, const char *what) {
    diag_error(stmt->loc, "the back end does not support %s yet; use --interpret", what);
}

/* Bodies of local work: scalar code and small arrays, nothing nested. */
static bool element_body(const IrBody *b) {
    for (int i = 0; i < b->nstmts; i++) {
        const IrStmt *s = b->stmts[i];
        if (s->body || s->op == IR_REPLICATE || s->op == IR_ZIP || s->op == IR_UNZIP) return false;
        for (int a = 0; a < s->nargs; a++)
            if (!s->args[a]->def && s->args[a] != b->params[0] &&
                (b->nparams < 2 || s->args[a] != b->params[1]))
                return false;
    }
    return true;
}

static void schedule_stmt(Sched *s, const IrStmt *stmt) {
    switch (stmt->op) {
    case IR_BMMC:
        s->q_mat = f2_mul(stmt->mat, &s->q_mat);
        s->q_compl = f2_apply(stmt->mat, s->q_compl) ^ stmt->compl;
        return;
    case IR_TWO:
        if (stmt->k != s->n - 1) unsupported(stmt, "a two whose body works on more than 2 elements");
        if (!element_body(stmt->body)) unsupported(stmt, "a two whose body is not element code");
        add_pair_stage(s, stmt);
        return;
    case IR_MAP:
        if (!element_body(stmt->body)) unsupported(stmt, "a map whose function is not element code");
        if (!elem_equal(stmt->res[0]->elem, s->elem)) {
            /* a new element type: maps commute with permutations, so the map
               runs on the memory order as it is */
            flush_local(s);
            Phase *p = new_phase(s, PHASE_MAP);
            p->map = stmt;
            p->elem = stmt->res[0]->elem;
            set_elem(s, p->elem);
            return;
        }
        push_stage(s, stmt, stmt->body, 0, 0, 0);
        return;
    default:
        unsupported(stmt, ir_op_name(stmt->op));
    }
}

void schedule_func(Arena *arena, const IrFunc *f, Schedule *out) {
    const IrBody *body = f->body;
    Loc none = {0};
    if (body->nparams != 1 || body->nresults != 1 || ir_is_scalar(body->params[0]) ||
        ir_is_scalar(body->results[0]))
        diag_error(none, "the back end supports entries with one array parameter and one array result; "
                         "entry '%s' has %d parameters and %d results", f->name, body->nparams, body->nresults);
    if (body->params[0]->elem->nslots > SCHED_MAX_SLOTS || body->results[0]->elem->nslots > SCHED_MAX_SLOTS)
        diag_error(none, "the back end supports elements of at most %d fields", SCHED_MAX_SLOTS);
    memset(out, 0, sizeof *out);
    out->func = f;
    out->n = body->params[0]->log_len;
    out->in_elem = body->params[0]->elem;
    out->out_elem = body->results[0]->elem;
    Sched s = {.arena = arena, .out = out, .n = out->n};
    set_elem(&s, out->in_elem);
    s.q_mat = f2_identity(s.n);
    /* A two-element array worked on by element code alone (a comparator
       applied to the whole input) is one pair stage. */
    if (s.n == 1 && body->nstmts > 0 && body->stmts[0]->op != IR_TWO && element_body(body)) {
        push_stage(&s, body->stmts[0], body, 1, 1, 0);
        s.tile = f2_space_coords(1, 1);
        flush_local(&s);
        return;
    }
    const IrVal *cur = body->params[0];
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *stmt = body->stmts[i];
        if (stmt->nargs != 1 || stmt->args[0] != cur || stmt->nres != 1)
            unsupported(stmt, "a program that is not a single chain of array stages");
        schedule_stmt(&s, stmt);
        cur = stmt->res[0];
    }
    if (cur != body->results[0]) diag_error(none, "internal error: the entry result is not the last stage");
    flush_local(&s);
    add_permute(&s);
}
