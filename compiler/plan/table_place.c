/* table_place.c: where each table that a kernel reads lives (plan.h,
 * TablePlace). The choice follows from how the kernel's threads index it:
 * a table index is a POS of the body, linear in the tile coordinate u and
 * the block b (plan_pos), and in a register round u is the thread's base
 * (its thread-index bits, Step.pos_tid) plus the register's constant. An index that
 * depends on neither the thread nor the block is a literal for each
 * register: the read is of a constant array at a constant index, which
 * the CUDA compiler folds into an immediate. One that depends on no lane
 * bit (the low five thread-index bits) is the same for a whole warp, which
 * the constant cache serves in one broadcast. Any other index has lanes
 * reading different entries, which constant memory would serialise, so the
 * table is read through the read-only data cache. A per-block copy in
 * shared memory is not chosen: each kernel reads an entry once per element
 * and step, which the read-only cache already serves, and the copy would
 * cost each block a pass over the table and shared memory that the tile
 * needs. */
#include "table_place.h"

#include <string.h>

static const IrStmt *defining(const IrBody *body, const IrVal *v) {
    for (int i = 0; i < body->nstmts; i++)
        for (int r = 0; r < body->stmts[i]->nres; r++)
            if (body->stmts[i]->res[r] == v) return body->stmts[i];
    return NULL;
}

static long table_bytes(const IrStmt *table) {
    return (1L << table->k) * (prim_bits(table->res[0]->elem->prim) / 8);
}

/* Whether position bit k (over the memory index, on_u) varies across a
 * warp's lanes where st is NULL: the lanes of a MAP phase take consecutive
 * elements; those of a LOCAL phase's tile load the tile's first columns. */
static bool varies_on_lanes(const Phase *p, uint64_t on_u) {
    if (p->kind != PHASE_LOCAL) return on_u & (MACHINE_WARP - 1);
    for (int i = 0; i < p->tile_log && i < MACHINE_WARP_LOG; i++)
        if (f2_parity(on_u & p->tile_cols[i])) return true;
    return false;
}

/* A table read by the top level of a step's body (its round planned) or,
 * with st NULL, of a phase's map (Phase.map) over the element at memory
 * index x. */
static TablePlace place_of(const Phase *p, const Step *st, const IrBody *body,
                           const IrStmt *table) {
    const IrStmt *pos = defining(body, table->args[0]);
    if (!pos || pos->op != IR_POS) return TABLE_GLOBAL;
    uint64_t on_u[64], on_b[64], on_tid[64], konst, varies = 0, lanes = 0;
    int bits = plan_pos(p, st, pos, on_u, on_b, &konst);
    if (st) plan_pos_threads(st, pos, on_tid);
    for (int k = 0; k < bits; k++) {
        uint64_t on_thread = st ? on_tid[k] : on_u[k];
        varies |= on_thread | (st ? on_b[k] : 0);
        lanes |= st ? on_thread & (MACHINE_WARP - 1) : varies_on_lanes(p, on_u[k]);
    }
    if (!varies) return TABLE_IMMEDIATE;
    return !lanes && table_bytes(table) <= TABLE_CONSTANT_MAX_BYTES ? TABLE_CONSTANT : TABLE_GLOBAL;
}

typedef struct {
    const Phase *p;
    const Step *st;
    const IrBody *body; /* the function's body; the others are nested in it */
    TableUse *uses;
    int n;
} Collect;

/* A nested two, col or map is a copy of its body per pair or element, whose
 * position is a constant, so its tables are read at constant indices. */
static bool collect_table(IrWalk *w, IrStmt *s) {
    Collect *c = w->ctx;
    if (s->op != IR_TABLE) return true;
    c->uses[c->n].table = s;
    c->uses[c->n++].place = w->depth > 0 ? TABLE_IMMEDIATE : place_of(c->p, c->st, c->body, s);
    return true;
}

/* ---- budgets of constant memory ---- */

typedef struct {
    Arena *arena;
    long limit, bytes;
    bool *admitted; /* by table number */
    int cap;
} Budget;

/* Constant uses of tables not yet admitted become global past the limit. */
static void budget_uses(Budget *b, TableUse *uses, int n) {
    for (int i = 0; i < n; i++) {
        if (uses[i].place != TABLE_CONSTANT) continue;
        int index = uses[i].table->index;
        if (index >= b->cap) {
            int cap = 2 * index + 16;
            bool *grown = NEW_ARRAY(b->arena, bool, cap);
            if (b->cap) memcpy(grown, b->admitted, sizeof(bool) * (size_t)b->cap);
            b->admitted = grown;
            b->cap = cap;
        }
        if (b->admitted[index]) continue;
        if (b->bytes + table_bytes(uses[i].table) > b->limit) {
            uses[i].place = TABLE_GLOBAL;
            continue;
        }
        b->bytes += table_bytes(uses[i].table);
        b->admitted[index] = true;
    }
}

static void place_body(Arena *arena, const Phase *p, const Step *st, const IrBody *body,
                       TableUse **uses, int *n) {
    *n = 0;
    *uses = NULL;
    int count = ir_count_stmts(body, IR_TABLE);
    if (!count) return;
    Collect c = {p, st, body, NEW_ARRAY(arena, TableUse, count), 0};
    IrWalk w = {.stmt = collect_table, .ctx = &c};
    ir_walk(&w, body); /* the uses in statement order */
    *uses = c.uses;
    *n = c.n;
}

void table_place_phase(Arena *arena, Phase *p) {
    Budget kernel = {.arena = arena, .limit = TABLE_CONSTANT_KERNEL_BYTES};
    if (p->map) {
        place_body(arena, p, NULL, p->map->body, &p->map_tables, &p->nmap_tables);
        budget_uses(&kernel, p->map_tables, p->nmap_tables);
    }
    for (int i = 0; i < p->nsteps; i++) {
        Step *st = &p->steps[i];
        place_body(arena, p, st, st->body, &st->tables, &st->ntables);
        budget_uses(&kernel, st->tables, st->ntables);
    }
}

void table_place_budget(Arena *arena, EntryPlan *plans, int nplans) {
    Budget b = {.arena = arena, .limit = TABLE_CONSTANT_BUDGET};
    for (int e = 0; e < nplans; e++)
        for (int k = 0; k < plans[e].nnodes; k++) {
            if (plans[e].nodes[k].kind != NODE_CHAIN) continue;
            Schedule *s = &plans[e].nodes[k].chain;
            for (int i = 0; i < s->nphases; i++) {
                Phase *p = &s->phases[i];
                budget_uses(&b, p->map_tables, p->nmap_tables);
                for (int j = 0; p->kind == PHASE_LOCAL && j < p->nsteps; j++)
                    budget_uses(&b, p->steps[j].tables, p->steps[j].ntables);
            }
        }
}
