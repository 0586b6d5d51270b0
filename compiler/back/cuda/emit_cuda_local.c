/* emit_cuda_local.c: the CUDA kernel of a LOCAL phase, with the stages in
 * registers.
 *
 * The block reads its tile coset into shared memory (whole segments), then
 * runs the stages in the register rounds of the plan (plan_rounds.c): in a
 * round each thread holds 2^r elements of the tile in registers, so every
 * comparator of the round is register code with compile-time register
 * numbers: a step is a loop over the thread's pairs that nvcc unrolls, its
 * register numbers functions of the loop variable (Round.loops; the
 * registers are an array per slot). Between rounds the tile goes back to shared memory and is read
 * again with the next round's registers: one barrier per round instead of
 * one per stage. Finally the tile is written back as whole segments. */
#include "emit.h"

#include <string.h>

#include "emit_elem.h"
#include "machine.h"

static uint64_t reg_vector(const Round *rd, unsigned j) {
    return f2_combine(rd->regs, rd->reg_log, j);
}

/* Coordinates of a tile vector of span(R) in the basis R. */
static unsigned reg_coords(const Round *rd, uint64_t v) {
    for (unsigned j = 0; j < 1u << rd->reg_log; j++)
        if (reg_vector(rd, j) == v) return j;
    diag_fatal("internal error: a pair vector outside its round");
}

/* The layout round ri stores in: the next round's, the phase's after the last. */
static const uint64_t *store_slots(const Phase *p, int ri) {
    return ri + 1 < p->nrounds ? p->rounds[ri + 1].slots : p->slot_cols;
}

/* The slot bits that index a block's shared memory (the bits above them
 * are the block's rank in a cluster's tile, Phase.cluster_log). */
static uint64_t own_slot_bits(const Phase *p) { return f2_mask(plan_block_tile_log(p)); }

/* A remote round (Round.remote): its block's threads lie below the rank
 * coordinates, so the ranks a thread's registers reach are rtop ^ (the
 * rank part of the register's vector), rtop the same for the whole block:
 * the round maps each plane's tile into the cluster's blocks once,
 * rk<plane>_<j> at block rtop ^ j, and each access indexes the one its
 * register's constant names. */
static void emit_rank_tiles(FILE *out, const Phase *p, const Round *rd) {
    int low = plan_block_tile_log(p), tb = plan_block_threads_log(p);
    fputs("        const unsigned rtop = 0", out);
    for (int k = 0; k < p->cluster_log; k++)
        fprintf(out, " ^ ((tid >> %d & 1) ? 0x%llxu : 0)", tb + k,
                (unsigned long long)(rd->threads[tb + k] >> low));
    fputs(";\n", out);
    for (int k = 0; k < p->elem->nslots; k++)
        for (unsigned j = 0; j < 1u << p->cluster_log; j++)
            fprintf(out, "        %s *const rk%d_%u = PARM_DSMEM(tile%d, rtop ^ %uu);\n",
                    prim_ctype(elem_slot_prim(p->elem, k)), k, j, k, j);
}

/* `name`: the slot of the thread's first register element in a layout. */
static void emit_base(FILE *out, const Phase *p, const Round *rd, const uint64_t *slots,
                      const char *name) {
    fprintf(out, "        unsigned %s = 0", name);
    for (int i = 0; i < p->threads_log; i++)
        fprintf(out, "\n            ^ ((tid >> %d & 1) ? 0x%llxu : 0)", i,
                (unsigned long long)(f2_combine(slots, p->tile_log, rd->threads[i]) &
                                     own_slot_bits(p)));
    fputs(";\n", out);
    /* computed again each round: kept alive across rounds, the addresses spill */
    fprintf(out, "        PARM_REMAT(%s);\n", name);
}

/* An index that is a per-thread part with bits `var_bits` combined with a
 * literal c: XOR, or an addition when they share no bit (the same value), so
 * that the literal becomes the access's immediate offset. */
char emit_index_op(uint64_t var_bits, uint64_t c) { return var_bits & c ? '^' : '+'; }

/* The loads (stores) of a round's registers at base ^ P·r, split as
 * (base ^ (P·r & bits of base)) + the rest: the XORs are as many as the
 * distinct values of the first part (plan_round_xors), the rest immediate. */
static void emit_move(FILE *out, const Phase *p, const Round *rd, const uint64_t *slots,
                      const char *base, bool load) {
    uint64_t bbits = 0, own = own_slot_bits(p);
    int low = plan_block_tile_log(p);
    for (int i = 0; i < p->threads_log; i++)
        bbits |= f2_combine(slots, p->tile_log, rd->threads[i]) & own;
    for (unsigned j = 0; j < 1u << rd->reg_log; j++)
        for (int k = 0; k < p->elem->nslots; k++) {
            uint64_t slot = f2_combine(slots, p->tile_log, reg_vector(rd, j)), u = slot & own,
                     x = u & bbits, c = u & ~bbits;
            Arena scratch = {0};
            const char *index = x ? arena_printf(&scratch, "(%s ^ 0x%llxu) + 0x%llxu", base,
                                                 (unsigned long long)x, (unsigned long long)c)
                                  : arena_printf(&scratch, "%s + 0x%llxu", base,
                                                 (unsigned long long)c);
            const char *at = rd->remote ? arena_printf(&scratch, "rk%d_%u[%s]", k,
                                                       (unsigned)(slot >> low), index)
                                        : emit_tile_at(&scratch, p, k, index, false);
            if (load) fprintf(out, "        v%d[%u] = %s;\n", k, j, at);
            else fprintf(out, "        %s = v%d[%u];\n", at, k, j);
            arena_free(&scratch);
        }
}

/* POS in register code. A position is linear in the tile coordinate, and a
 * thread's registers are its base vector plus span(R): the part that depends
 * on the thread and the block is computed once per step (s<step>_pos<id>),
 * and register rj adds s<step>_off<id>, linear in rj (a constant once nvcc
 * has unrolled the loop over the registers). */
typedef struct {
    const Phase *p;
    const Round *rd;
    const Step *st;
    int index; /* the step's */
} RegPos;

static void emit_step_positions(FILE *out, const Phase *p, const Step *st, int index) {
    for (int i = 0; i < st->body->nstmts; i++) {
        const IrStmt *pos = st->body->stmts[i];
        if (pos->op != IR_POS) continue;
        uint64_t on_u[64], on_b[64], on_tid[64], konst;
        int bits = plan_pos(p, st, pos, on_u, on_b, &konst);
        plan_pos_threads(st, pos, on_tid);
        Arena scratch = {0};
        fprintf(out, "        const uint64_t s%d_pos%d = (uint64_t)%s;\n", index, pos->res[0]->id,
                emit_pos_expr(&scratch, bits, on_tid, on_b, konst, "tid", "b"));
        arena_free(&scratch);
    }
}

/* The offset of a position on register i's vector R_i: register rj adds the
 * XOR of these over its bits. */
static uint64_t reg_pos_offset(const uint64_t *on_u, int bits, uint64_t reg) {
    uint64_t c = 0;
    for (int k = 0; k < bits; k++) c |= (uint64_t)f2_parity(on_u[k] & reg) << k;
    return c;
}

/* s<step>_off<id> of every position of the step's body, for register rj. */
static void emit_reg_offsets(FILE *out, const Phase *p, const Round *rd, const Step *st,
                             int index) {
    for (int i = 0; i < st->body->nstmts; i++) {
        const IrStmt *pos = st->body->stmts[i];
        if (pos->op != IR_POS) continue;
        uint64_t on_u[64], on_b[64], konst;
        int bits = plan_pos(p, st, pos, on_u, on_b, &konst);
        fprintf(out, "            const uint64_t s%d_off%d = ", index, pos->res[0]->id);
        const char *sep = "";
        for (int r = 0; r < rd->reg_log; r++) {
            uint64_t c = reg_pos_offset(on_u, bits, rd->regs[r]);
            if (!c) continue;
            fprintf(out, "%s((rj >> %d & 1) ? 0x%llxull : 0)", sep, r, (unsigned long long)c);
            sep = " ^ ";
        }
        fputs(*sep ? ";\n" : "0;\n", out);
    }
}

static const char *reg_pos(const void *ctx, const IrStmt *pos, Arena *a) {
    const RegPos *rp = ctx;
    uint64_t on_u[64], on_b[64], on_tid[64], konst, offsets = 0, var;
    int bits = plan_pos(rp->p, rp->st, pos, on_u, on_b, &konst);
    plan_pos_threads(rp->st, pos, on_tid);
    var = konst;
    for (int k = 0; k < bits; k++)
        if (on_tid[k] || on_b[k]) var |= UINT64_C(1) << k;
    for (int r = 0; r < rp->rd->reg_log; r++)
        offsets |= reg_pos_offset(on_u, bits, rp->rd->regs[r]);
    int s = rp->index, id = pos->res[0]->id;
    /* '+' where the thread's part has none of the register's bits: a table
     * read then takes the register's part as an immediate address offset */
    if (!(var & offsets)) return arena_printf(a, "(int64_t)(s%d_pos%d + s%d_off%d)", s, id, s, id);
    return arena_printf(
        a, "(int64_t)((s%d_off%d & 0x%llxull) ? s%d_pos%d ^ s%d_off%d : s%d_pos%d + s%d_off%d)", s,
        id, (unsigned long long)var, s, id, s, id, s, id, s, id);
}

/* Element code on named registers: params e*, results r*. */
static void emit_body_call(FILE *out, const Phase *p, const IrBody *body, int width,
                           const char *prefix, const RegPos *rp) {
    for (int k = 0; k < width; k++)
        fprintf(out, "            %s r%d;\n",
                prim_ctype(elem_slot_prim(p->elem, k % p->elem->nslots)), k);
    ElemPositions positions = {reg_pos, rp, rp->st->tables, rp->st->ntables};
    emit_elem_named(out, body, width, prefix, 12, &positions);
}

/* The code of a step on each of `count` pairs or registers, numbered rq: one
 * loop that nvcc unrolls (the registers are an array that its indices, known
 * once unrolled, keep in registers) where the plan says the round loops,
 * else one block per rq. Returns how many values of rq the block covers. */
static unsigned emit_iter_open(FILE *out, const Round *rd, unsigned count, unsigned q) {
    if (rd->loops) {
        fprintf(out, "#pragma unroll\n        for (unsigned rq = 0; rq < %uu; rq++) {\n", count);
        return count;
    }
    fprintf(out, "        {\n            const unsigned rq = %uu;\n", q);
    return 1;
}

/* Whether register rj holds elements that a half keeps (Step.kept_log). */
static bool reg_kept(const Step *st, unsigned rj) {
    for (int i = 0; i < st->kept_log; i++)
        if ((unsigned)f2_parity(st->kept_regs[i] & rj) != (unsigned)(st->kept_value >> i & 1))
            return false;
    return true;
}

/* In a loop over registers rj: the iterations on what no half keeps end at
 * once (a test on rj, which nvcc folds once it unrolls the loop). */
static void emit_kept_test(FILE *out, const Step *st) {
    if (!st->kept_log) return;
    fputs("            if (", out);
    for (int i = 0; i < st->kept_log; i++)
        fprintf(out, "%sparm_parity(rj & 0x%llxu) != %d", i ? " || " : "",
                (unsigned long long)st->kept_regs[i], (int)(st->kept_value >> i & 1));
    fputs(") continue;\n", out);
}

/* prefix: the names of the step's element code, "s<index>_". The pair of
 * register rj (bit piv of rj clear) is rj ^ c; sw says whether rh holds the
 * pair's logical first element: by the order bit of the thread's first
 * element (pb, a functional over tile coordinates, so taken per thread bit,
 * or a constant) and of register rj (known once unrolled). */
static void emit_pair_step(FILE *out, const Phase *p, const Round *rd, const Step *st, int index,
                           const char *prefix) {
    int ns = p->elem->nslots;
    unsigned c = reg_coords(rd, st->group[0]), m = (unsigned)st->order_reg[0],
             count = 1u << (rd->reg_log - 1);
    int piv = f2_top_bit(c);
    uint64_t tid_mask = st->order_tid[0];
    Arena scratch = {0};
    const char *pb = arena_printf(&scratch, "%d", (int)(st->order_const & 1));
    fputs("        {\n", out);
    if (tid_mask || st->order_block[0]) {
        const char *tid = "tid", *blockpar = arena_printf(&scratch, "blockpar%d", index);
        fprintf(out, "            const int pb = %s;\n",
                emit_parity(&scratch, 1, &tid, &tid_mask, blockpar, 0));
        pb = "pb";
    }
    emit_step_positions(out, p, st, index);
    for (unsigned q = 0; q < count;) {
        if (!rd->loops && !reg_kept(st, (q >> piv << (piv + 1)) | (q & ((1u << piv) - 1)))) {
            q++;
            continue;
        }
        q += emit_iter_open(out, rd, count, q);
        if (piv == 0) fputs("            const unsigned rj = rq << 1", out);
        else
            fprintf(out, "            const unsigned rj = (rq >> %d << %d) | (rq & 0x%xu)", piv,
                    piv + 1, (1u << piv) - 1);
        fprintf(out, ", rh = rj ^ 0x%xu;\n", c);
        if (rd->loops) emit_kept_test(out, st);
        if (!m) fprintf(out, "            const int sw = %s;\n", pb);
        else if (!strcmp(pb, "0"))
            fprintf(out, "            const int sw = parm_parity(rj & 0x%xu);\n", m);
        else fprintf(out, "            const int sw = %s ^ parm_parity(rj & 0x%xu);\n", pb, m);
        emit_reg_offsets(out, p, rd, st, index);
        for (int k = 0; k < ns; k++) {
            const char *ty = prim_ctype(elem_slot_prim(p->elem, k));
            fprintf(out,
                    "            const %s e%d = sw ? v%d[rh] : v%d[rj], "
                    "e%d = sw ? v%d[rj] : v%d[rh];\n",
                    ty, k, k, k, k + ns, k, k);
        }
        RegPos rp = {p, rd, st, index};
        emit_body_call(out, p, st->body, 2 * ns, prefix, &rp);
        for (int k = 0; k < ns; k++)
            fprintf(
                out,
                "            v%d[rj] = sw ? r%d : r%d;\n            v%d[rh] = sw ? r%d : r%d;\n", k,
                k + ns, k, k, k, k + ns);
        fputs("        }\n", out);
    }
    fputs("        }\n", out);
    arena_free(&scratch);
}

/* A group of 2^g registers in logical order: those whose logical bits are
 * the same in every thread are placed at compile time; each bit i that
 * depends on the thread or the block (pb<i>) swaps the halves of the group
 * that differ in it, in e* before the body and in r* after it. */
static void emit_group_swaps(FILE *out, const Phase *p, const Step *st, const char *v,
                             const bool *dynamic) {
    int ns = p->elem->nslots;
    for (int i = 0; i < st->group_log; i++) {
        if (!dynamic[i]) continue;
        for (unsigned c = 0; c < 1u << st->group_log; c++) {
            if (c >> i & 1) continue;
            for (int k = 0; k < ns; k++) {
                unsigned lo = c * (unsigned)ns + (unsigned)k,
                         hi = (c | 1u << i) * (unsigned)ns + (unsigned)k;
                fprintf(out,
                        "            { const %s t = sw%d ? %s%u : %s%u; %s%u = sw%d ? %s%u : %s%u; "
                        "%s%u = t; }\n",
                        prim_ctype(elem_slot_prim(p->elem, k)), i, v, hi, v, lo, v, hi, i, v, lo, v,
                        hi, v, lo);
            }
        }
    }
}

static void emit_group_step(FILE *out, const Phase *p, const Round *rd, const Step *st, int index,
                            const char *prefix) {
    int ns = p->elem->nslots, g = st->group_log, width = ns << g;
    uint64_t cg[SCHED_MAX_TILE]; /* the group vectors in register coordinates */
    bool dynamic[SCHED_MAX_TILE];
    F2Space span = f2_space_empty(rd->reg_log);
    for (int i = 0; i < g; i++) {
        cg[i] = reg_coords(rd, st->group[i]);
        f2_space_add(&span, cg[i]);
    }
    uint64_t pivots = f2_space_pivots(&span); /* a group's first register has these bits clear */
    fputs("        {\n", out);
    Arena scratch = {0};
    const char *tid = "tid";
    for (int i = 0; i < g; i++) {
        uint64_t tid_mask = st->order_tid[i];
        dynamic[i] = tid_mask || st->order_block[i];
        if (dynamic[i])
            fprintf(out, "            const int pb%d = %s;\n", i,
                    emit_parity(&scratch, 1, &tid, &tid_mask,
                                arena_printf(&scratch, "blockpar%d_%d", index, i), 0));
    }
    arena_free(&scratch);
    emit_step_positions(out, p, st, index);
    for (unsigned j = 0; j < 1u << rd->reg_log; j++) {
        if (j & pivots || !reg_kept(st, j)) continue;
        /* the logical bits of register j, where they are known */
        unsigned known = 0;
        fprintf(out, "        {\n            const unsigned rj = %uu;\n", j);
        emit_reg_offsets(out, p, rd, st, index);
        for (int i = 0; i < g; i++) {
            int bit = f2_parity(st->order_reg[i] & j);
            if (dynamic[i]) fprintf(out, "            const int sw%d = pb%d ^ %d;\n", i, i, bit);
            else known |= (unsigned)(bit ^ (int)(st->order_const >> i & 1)) << i;
        }
        for (unsigned c = 0; c < 1u << g; c++) {
            unsigned reg = j ^ (unsigned)f2_combine(cg, g, c ^ known);
            for (int k = 0; k < ns; k++)
                fprintf(out, "            %s e%u = v%d[%u];\n",
                        prim_ctype(elem_slot_prim(p->elem, k)), c * (unsigned)ns + (unsigned)k, k,
                        reg);
        }
        emit_group_swaps(out, p, st, "e", dynamic);
        RegPos rp = {p, rd, st, index};
        emit_body_call(out, p, st->body, width, prefix, &rp);
        emit_group_swaps(out, p, st, "r", dynamic);
        for (unsigned c = 0; c < 1u << g; c++) {
            unsigned reg = j ^ (unsigned)f2_combine(cg, g, c ^ known);
            for (int k = 0; k < ns; k++)
                fprintf(out, "            v%d[%u] = r%u;\n", k, reg,
                        c * (unsigned)ns + (unsigned)k);
        }
        fputs("        }\n", out);
    }
    fputs("        }\n", out);
}

static void emit_map_step(FILE *out, const Phase *p, const Round *rd, const Step *st, int index,
                          const char *prefix) {
    int ns = p->elem->nslots;
    unsigned count = 1u << rd->reg_log;
    fputs("        {\n", out);
    emit_step_positions(out, p, st, index);
    for (unsigned q = 0; q < count;) {
        if (!rd->loops && !reg_kept(st, q)) {
            q++;
            continue;
        }
        q += emit_iter_open(out, rd, count, q);
        fputs("            const unsigned rj = rq;\n", out);
        if (rd->loops) emit_kept_test(out, st);
        emit_reg_offsets(out, p, rd, st, index);
        for (int k = 0; k < ns; k++)
            fprintf(out, "            const %s e%d = v%d[rj];\n",
                    prim_ctype(elem_slot_prim(p->elem, k)), k, k);
        RegPos rp = {p, rd, st, index};
        emit_body_call(out, p, st->body, ns, prefix, &rp);
        for (int k = 0; k < ns; k++) fprintf(out, "            v%d[rj] = r%d;\n", k, k);
        fputs("        }\n", out);
    }
    fputs("        }\n", out);
}

/* A round's work for the warps whose elements the halves keep
 * (Round.live_log); the others go on to the barriers. */
static void emit_live_open(FILE *out, const Round *rd) {
    fputs("        const bool live = ", out);
    for (int i = 0; i < rd->live_log; i++)
        fprintf(out, "%sparm_parity(tid & 0x%llxu) == %d", i ? " && " : "",
                (unsigned long long)rd->live_tid[i], (int)(rd->live_value >> i & 1));
    fputs(";\n        if (live) {\n", out);
}

void emit_cuda_local_rounds(FILE *out, const Phase *p) {
    int t = p->threads_log, r = p->tile_log - t;
    for (int k = 0; k < p->elem->nslots; k++)
        fprintf(out, "    %s v%d[%u];\n", prim_ctype(elem_slot_prim(p->elem, k)), k, 1u << r);
    for (int ri = 0; ri < p->nrounds; ri++) {
        const Round *rd = &p->rounds[ri];
        int first = rd->first;
        fprintf(out, "    { /* round: steps %d..%d in registers */\n", first,
                first + rd->count - 1);
        emit_base(out, p, rd, rd->slots, "base");
        if (rd->remote) emit_rank_tiles(out, p, rd);
        if (rd->live_log) emit_live_open(out, rd);
        emit_move(out, p, rd, rd->slots, "base", true);
        for (int i = first; i < first + rd->count; i++) {
            fprintf(out, "        /* step %d: ", i);
            ir_print_stmt_brief(out, p->steps[i].stmt);
            const Step *st = &p->steps[i];
            for (int j = 0; j < st->group_log; j++)
                fprintf(out, "; %s 0x%llx, order 0x%llx, block 0x%llx ^ %d",
                        st->group_log == 1 ? "pair" : "group", (unsigned long long)st->group[j],
                        (unsigned long long)st->order[j], (unsigned long long)st->order_block[j],
                        (int)(st->order_const >> j & 1));
            fputs(" */\n", out);
            Arena scratch = {0};
            const char *prefix = arena_printf(&scratch, "s%d_", i);
            if (st->group_log == 1) emit_pair_step(out, p, rd, st, i, prefix);
            else if (st->group_log > 1) emit_group_step(out, p, rd, st, i, prefix);
            else emit_map_step(out, p, rd, st, i, prefix);
            arena_free(&scratch);
        }
        const uint64_t *next = store_slots(p, ri);
        if (memcmp(next, rd->slots, sizeof(uint64_t) * (size_t)p->tile_log)) {
            /* once every lane of the warp (of the block) has read: the
               store writes slots that its warp (another warp) read; every
               warp meets the block's barrier, working or not */
            if (rd->sync) {
                if (rd->live_log) fputs("        }\n", out);
                fprintf(out, "        %s;\n", emit_barrier(rd->remote));
                if (rd->live_log) fputs("        if (live) {\n", out);
            } else {
                fprintf(out, "        __syncwarp(0x%xu);\n",
                        t < MACHINE_WARP_LOG ? (1u << (1 << t)) - 1 : 0xffffffffu);
            }
            emit_base(out, p, rd, next, "sbase");
            emit_move(out, p, rd, next, "sbase", false);
        } else {
            emit_move(out, p, rd, rd->slots, "base", false);
        }
        if (rd->live_log) fputs("        }\n", out);
        fprintf(out, "    }\n    %s;\n",
                emit_barrier(rd->remote || emit_reaches_cluster(p, ri + 1)));
    }
}

/* A cluster's tile (Phase.cluster_log): whether round ri (the write after
 * the last) reaches other blocks' shared memory. */
bool emit_reaches_cluster(const Phase *p, int ri) {
    if (!p->cluster_log) return false;
    return ri < p->nrounds ? p->rounds[ri].remote : !p->writes_in_place;
}

/* The barrier before or after work that reaches other blocks' shared
 * memory: the cluster's; else the block's. */
const char *emit_barrier(bool cluster) {
    return cluster ? "PARM_CLUSTER_SYNC()" : "__syncthreads()";
}

/* Slot `index` of plane k: in the block's own shared memory, or where a
 * cluster's tile holds it (its top bits the block's rank). */
const char *emit_tile_at(Arena *a, const Phase *p, int k, const char *index, bool remote) {
    if (!remote) return arena_printf(a, "tile%d[%s]", k, index);
    int low = plan_block_tile_log(p);
    return arena_printf(a, "(*PARM_DSMEM(&tile%d[(%s) & 0x%llxu], (%s) >> %d))", k, index,
                        (unsigned long long)f2_mask(low), index, low);
}
