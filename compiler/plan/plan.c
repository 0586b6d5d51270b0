/* plan.c: what the readers of a plan compute from it (plan.h). */
#include "plan.h"

#include "machine.h"

const char *plan_buf_name(BufId b) {
    static const char *const names[] = {"in", "out", "sa", "sb"};
    return names[b];
}

const char *plan_code_base(Arena *a, const IrFunc *f) {
    return arena_printf(a, "parm_%s", f->name);
}

bool plan_one_chain(const EntryPlan *e) {
    if (e->nnodes != 1 || e->nodes[0].kind != NODE_CHAIN) return false;
    const PlanNode *n = &e->nodes[0];
    for (int k = 0; k < n->nin; k++)
        if (n->in[k].kind != LOC_PARAM) return false;
    for (int k = 0; k < n->nout; k++)
        if (n->out[k].kind != LOC_RESULT) return false;
    return true;
}

bool plan_one_copy(const EntryPlan *e) {
    if (e->nnodes != 1 || e->nodes[0].kind != NODE_COPY ||
        (e->nodes[0].copy != COPY_PLAIN && e->nodes[0].copy != COPY_SHAPE))
        return false;
    const PlanNode *n = &e->nodes[0];
    for (int k = 0; k < n->nin; k++)
        if (n->in[k].kind != LOC_PARAM || n->out[k].kind != LOC_RESULT) return false;
    return true;
}

unsigned long long plan_plane_bytes(const PlaneRef *p) {
    return (unsigned long long)(prim_bits(p->prim) / 8) << p->log_len;
}

unsigned long long plan_rank_bytes(const EntryPlan *e, const PlaneRef *p) {
    return plan_plane_bytes(p) >> (p->log_len ? e->gpu_log : 0);
}

bool plan_empty_shape_writes_nothing(const EntryPlan *e) {
    if (!e->pad || e->segments) return false;
    for (int k = 0; k < e->nout_planes; k++)
        if (!e->out_planes[k].shaped || e->out_planes[k].row_cut) return false;
    return true;
}

const char *plan_node_name(Arena *a, const EntryPlan *e, int node) {
    const char *base = plan_code_base(a, e->func);
    return plan_one_chain(e) ? base : arena_printf(a, "%s_n%d", base, node);
}

const char *plan_phase_name(Arena *a, const char *chain, int phase) {
    return arena_printf(a, "%s_%d", chain, phase);
}

const char *plan_node_kind_name(NodeKind k) {
    static const char *const names[] = {"chain",  "reduce", "fill",   "copy",
                                        "serial", "expand", "gather", "scan"};
    return names[k];
}

const char *plan_table_place_name(TablePlace place) {
    static const char *const names[] = {"global memory (read-only cache)", "constant memory",
                                        "the kernel's code (immediates)"};
    return names[place];
}

unsigned long long plan_align(unsigned long long bytes) {
    return (bytes + PLAN_ALIGN - 1) & ~(PLAN_ALIGN - 1ULL);
}

uint64_t plan_slot(const Phase *p, uint64_t u) { return f2_combine(p->slot_cols, p->tile_log, u); }

uint64_t plan_reg_mask(const Round *rd, uint64_t f) {
    uint64_t mask = 0;
    for (int i = 0; i < rd->reg_log; i++) mask |= (uint64_t)f2_parity(f & rd->regs[i]) << i;
    return mask;
}

int plan_block_tile_log(const Phase *p) { return p->tile_log - p->cluster_log; }
int plan_block_threads_log(const Phase *p) { return p->threads_log - p->cluster_log; }

bool plan_shifted_load(const Schedule *s, const Phase *p) {
    if (p->src != BUF_IN) return false;
    if (s->in_slice.log) return true;
    for (int k = 0; k < SCHED_MAX_SLOTS; k++)
        if (s->in_shift[k]) return true;
    return false;
}

uint64_t plan_slice_index(const Slice *sl, uint64_t x) {
    uint64_t i = sl->value;
    for (int bit = 0; bit < sl->log; bit++) {
        if (sl->fixed >> bit & 1) continue;
        i |= (x & 1) << bit;
        x >>= 1;
    }
    return i;
}

bool plan_vector_load(const Schedule *s, const Phase *p) {
    return p->vec_log && p->buffers <= 1 && !p->map && !plan_shifted_load(s, p);
}

bool plan_stores_slot(const Schedule *s, const Phase *p, int k) {
    return p->dst != BUF_OUT || !(s->out_unstored >> k & 1);
}

const ElemType *plan_out_elem(const Phase *p) {
    return p->store_map ? p->store_map->res[0]->elem : p->elem;
}

bool plan_fits_output(const Schedule *s, const Phase *p) {
    const ElemType *t = plan_out_elem(p);
    if (t->nslots > s->out_elem->nslots) return false;
    for (int k = 0; k < t->nslots; k++)
        if (elem_slot_prim(t, k) != elem_slot_prim(s->out_elem, k)) return false;
    return true;
}

/* Bit k of a POS's value over coordinates whose bit j is parity(coord[j] &
 * the variable): the XOR of coord[j] over the bits j of the statement's row k. */
static int compose(const IrStmt *pos, const uint64_t *coord, int coord_bits, uint64_t *on) {
    for (int k = 0; k < pos->mat->n; k++) {
        on[k] = 0;
        for (int j = 0; j < coord_bits; j++)
            if (pos->mat->row[k] >> j & 1) on[k] ^= coord[j];
    }
    return pos->mat->n;
}

/* The constant bits of a POS over coordinates that carry coord_const. */
static uint64_t pos_const(const IrStmt *pos, int coord_bits, uint64_t coord_const) {
    uint64_t konst = pos->compl ;
    for (int k = 0; k < pos->mat->n; k++)
        for (int j = 0; j < coord_bits; j++)
            if (pos->mat->row[k] >> j & 1) konst ^= (coord_const >> j & 1) << k;
    return konst;
}

int plan_pos(const Phase *p, const Step *st, const IrStmt *pos, uint64_t *on_u, uint64_t *on_b,
             uint64_t *konst) {
    /* the element's position: bit j from masks over u (and b for a step) */
    int coord_bits = st ? st->pos_bits : p->n;
    compose(pos, st ? st->pos_u : p->map_pos.row, coord_bits, on_u);
    if (st) compose(pos, st->pos_b, coord_bits, on_b);
    else
        for (int k = 0; k < pos->mat->n; k++) on_b[k] = 0;
    *konst = pos_const(pos, coord_bits, st ? st->pos_const : p->map_pos_const);
    return pos->mat->n;
}

int plan_store_pos(const Phase *p, const IrStmt *pos, uint64_t *on_u, uint64_t *konst) {
    /* over the output's index bits: fewer than the tile's input after halves */
    compose(pos, p->store_pos.row, p->store_pos.n, on_u);
    *konst = pos_const(pos, p->store_pos.n, p->store_pos_const);
    return pos->mat->n;
}

int plan_pos_threads(const Step *st, const IrStmt *pos, uint64_t *on_tid) {
    return compose(pos, st->pos_tid, st->pos_bits, on_tid);
}

bool plan_pad_by_rows(const EntryPlan *e) { return e->pad_rows_log >= 0 && !e->segments; }

int plan_grid_y_log(int blocks_log) {
    int x_most = MACHINE_GRID_X_LOG - 1;
    return blocks_log > x_most ? blocks_log - x_most : 0;
}

NodeLoads plan_node_loads(const PlanNode *n) {
    return (NodeLoads){n->stmt, n->in, n->nin, n->pre, n->npre, n->in_shift};
}

NodeLoads plan_partial_loads(const PlanNode *n) {
    return (NodeLoads){n->stmt, n->partial, n->npartial, NULL, 0, NULL};
}

bool plan_reduce_partials(const PlanNode *n) {
    return n->stmt->op != IR_REDUCEBLOCKS || n->blocks_log > 0;
}

bool plan_scan_looks_back(const PlanNode *n) {
    return n->stmt->k > n->per_thread_log + n->threads_log;
}

bool plan_scan_spans_warps(const PlanNode *n) {
    return n->threads_log > MACHINE_WARP_LOG && n->stmt->k - n->per_thread_log > MACHINE_WARP_LOG;
}

const SharedArray *plan_shared_array(const SharedPlan *sh, SharedRole role, int field) {
    for (int i = 0; i < sh->n; i++)
        if (sh->arrays[i].role == role && sh->arrays[i].field == field) return &sh->arrays[i];
    return NULL;
}
