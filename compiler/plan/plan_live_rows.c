/* plan_live_rows.c: the blocks of an entry with segments that can return at
 * once (Schedule.live_rows, Phase.live_check).
 *
 * A segmented sort or top-k (docs/language.md 7.3) is planned for 2^b rows,
 * but a caller binning segments by size class passes far fewer: the rows it
 * leaves out have length 0. Their results are never written (a result of
 * the padded length is written back into the segments alone), so a block
 * whose rows are all empty may skip its work, as CUB's segmented sorts let
 * the blocks of segments of another size return, provided the skipped
 * values never reach a row that is written.
 *
 * The chain's statements carry each element's row: the maps and twos keep
 * positions, and its permutations must keep every row bit (checked). The
 * tiles then mix elements whose rows differ by a vector of V, the span of
 * the row parts of every phase's tile coordinates, so rows of one coset of
 * V (a class) only ever meet each other. A block that finds every row of
 * its class empty returns: the blocks of that class do so in every phase
 * (the same class, the same lengths), so the values of a class that is
 * not empty are computed in full, from values computed in full. The
 * chain's outputs must go to the segments alone (written there by the
 * chain, or by COPY_CUT nodes of the padded length): a cut result
 * (`: [k]`) or any other reader would see the skipped rows. */
#include "plan_live_rows.h"

/* The row bits of logical bit cols + i at step st: its masks over the
 * tile coordinate u and the block b, and its constant. */
static void row_bit(const Step *st, int bit, uint64_t *on_u, uint64_t *on_b, int *konst) {
    int drop = st->group_log;
    if (bit < drop) {
        *on_u = st->order[bit];
        *on_b = st->order_block[bit];
        *konst = (int)(st->order_const >> bit & 1);
    } else {
        *on_u = st->pos_u[bit - drop];
        *on_b = st->pos_b[bit - drop];
        *konst = (int)(st->pos_const >> (bit - drop) & 1);
    }
}

/* Whether every statement of the chain keeps each element in its row. */
static bool keeps_rows(const Schedule *s) {
    const IrBody *body = s->func->body;
    for (int i = 0; i < body->nstmts; i++) {
        const IrStmt *st = body->stmts[i];
        if (st->op == IR_TWO || st->op == IR_MAP) continue;
        if (st->op != IR_BMMC || st->compl >> s->pad_cols_log) return false;
        for (int r = s->pad_cols_log; r < s->n; r++)
            if (st->mat->row[r] != UINT64_C(1) << r) return false;
    }
    return true;
}

/* V: the rows that the chain's tiles put together, as row-index vectors. */
static F2Space row_classes(const Schedule *s) {
    int rows = s->pad_rows_log;
    F2Space v = f2_space_empty(rows);
    for (int k = 0; k < s->nphases; k++) {
        const Phase *p = &s->phases[k];
        if (p->kind != PHASE_LOCAL) continue;
        for (int j = 0; j < p->nsteps; j++)
            for (int c = 0; c < p->tile_log; c++) {
                uint64_t vec = 0, on_u, on_b;
                int konst;
                for (int i = 0; i < rows; i++) {
                    row_bit(&p->steps[j], s->pad_cols_log + i, &on_u, &on_b, &konst);
                    vec |= (on_u >> c & 1) << i;
                }
                f2_space_add(&v, vec);
            }
    }
    return v;
}

static bool same_plane(const PlaneRef *a, const PlaneRef *b) {
    return a->kind == b->kind && a->index == b->index;
}

/* Whether node `chain`'s outputs go to the segments alone: results it
 * writes into them itself, or temporaries that only the write-back of
 * segments reads. */
static bool feeds_segments_only(const EntryPlan *e, int chain) {
    const PlanNode *c = &e->nodes[chain];
    for (int o = 0; o < c->nout; o++) {
        bool written_back = c->out[o].kind == LOC_RESULT && c->out[o].shaped && !c->out[o].row_cut;
        if (c->out[o].kind != LOC_TEMP && !written_back) return false;
        for (int j = 0; j < e->nnodes; j++) {
            const PlanNode *r = &e->nodes[j];
            for (int k = 0; k < r->nin; k++) {
                if (!same_plane(&r->in[k], &c->out[o])) continue;
                if (r->kind != NODE_COPY || r->copy != COPY_CUT || r->out[k].row_cut) return false;
            }
            for (int k = 0; k < r->nargs; k++)
                if (r->arg_at && same_plane(&r->arg_at[k], &c->out[o])) return false;
        }
    }
    return true;
}

/* The phases of s that check their class: LOCAL phases with steps whose
 * blocks are tiles of their own (no cluster, no persistent blocks). */
static bool checks_class(const Phase *p) {
    return p->kind == PHASE_LOCAL && p->nsteps > 0 && p->cluster_log == 0 && p->buffers <= 1;
}

static void plan_chain(Schedule *s) {
    if (!s->segments || s->gpu_log || s->reduce || s->nhalves || !keeps_rows(s)) return;
    F2Space v = row_classes(s);
    if (v.dim >= s->pad_rows_log) return; /* one class: every block works */
    s->live_rows = true;
    s->live_dim = v.dim;
    for (int i = 0; i < v.dim; i++) s->live_basis[i] = v.basis[i];
    for (int k = 0; k < s->nphases; k++) {
        Phase *p = &s->phases[k];
        if (!checks_class(p)) continue;
        p->live_check = true;
        p->live_const = 0;
        for (int i = 0; i < s->pad_rows_log; i++) {
            uint64_t on_u;
            int konst;
            row_bit(&p->steps[0], s->pad_cols_log + i, &on_u, &p->live_b[i], &konst);
            p->live_const |= (uint64_t)konst << i;
        }
    }
}

void plan_live_rows(EntryPlan *e) {
    for (int k = 0; k < e->nnodes; k++)
        if (e->nodes[k].kind == NODE_CHAIN && feeds_segments_only(e, k))
            plan_chain(&e->nodes[k].chain);
}
