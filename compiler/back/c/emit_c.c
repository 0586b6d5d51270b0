/* emit_c.c: the schedule as portable C11 (--target=c).
 *
 * Each phase is a loop nest shaped like the CUDA kernel it stands for: a
 * loop over blocks (tile cosets), a gather of the tile, the steps on the
 * tile, and a scatter back. The host API is the CUDA one over host pointers,
 * so everything the GPU runs can be tested on any machine. */
#include "emit.h"

#include <string.h>

#include "emit_elem.h"

static void emit_tables(FILE *out, const char *name, const uint64_t *cols, int count) {
    fprintf(out, "    static const uint64_t %s[%d] = {", name, count > 0 ? count : 1);
    for (int i = 0; i < count; i++)
        fprintf(out, "%s0x%llxu", i ? ", " : "", (unsigned long long)cols[i]);
    if (count == 0) fputs("0", out);
    fputs("};\n", out);
}

/* The head of a phase's function: its planes, the LOCAL phases' work
 * memory, and the entry's run-time scalars (which a phase may not read);
 * with ranks (plan.h, "Ranks"), first the rank whose slices the planes are. */
static void emit_phase_head(FILE *out, const Schedule *s, const Phase *p, const char *name,
                            bool work) {
    fprintf(out, "static void %s(%sconst void *const *src, void *const *dst%s", name,
            s->gpu_log ? "const uint64_t parm_rank, " : "", work ? ", char *work" : "");
    if (emit_phase_reduces(s, p)) emit_partial_params(out, s, &target_c);
    emit_arg_params(out, s);
    fputs(")\n{\n", out);
    emit_arg_loads(out, s);
}

/* Declarations of the typed plane pointers of a phase: in0.., out0... */
static void emit_planes(FILE *out, const ElemType *in_elem, const ElemType *out_elem) {
    for (int k = 0; k < in_elem->nslots; k++) {
        const char *t = prim_ctype(elem_slot_prim(in_elem, k));
        /* a map's body may not read every field */
        fprintf(out, "    const %s *in%d = (const %s *)src[%d];\n    (void)in%d;\n", t, k, t, k, k);
    }
    for (int k = 0; k < out_elem->nslots; k++) {
        const char *t = prim_ctype(elem_slot_prim(out_elem, k));
        fprintf(out, "    %s *out%d = (%s *)dst[%d];\n", t, k, t, k);
        /* an unstored plane (Schedule.out_unstored) is not written */
        fprintf(out, "    (void)out%d;\n", k);
    }
}

/* The loop of a stage on groups of 2^g elements, g >= 2: u runs over the
 * tile and stops at each group's base (its low logical bits all 0); the
 * group's element c is u ^ G(c), a literal. */
static void emit_group_loop(FILE *out, const Phase *p, const Step *st, Arena *a, const char **at) {
    fprintf(out, "        for (uint64_t u = 0; u < %lluu; u++) {\n            if (0",
            1ULL << p->tile_log);
    for (int i = 0; i < st->group_log; i++) {
        const char *vars[2] = {"u", "b"};
        uint64_t masks[2] = {st->order[i], st->order_block[i]};
        fprintf(out, "\n                | (%s)",
                emit_parity(a, 2, vars, masks, NULL, (int)(st->order_const >> i & 1)));
    }
    fputs(") continue;\n", out);
    for (unsigned c = 0; c < 1u << st->group_log; c++) {
        uint64_t g = f2_combine(st->group, st->group_log, c);
        at[c] = g ? arena_printf(a, "u ^ 0x%llxu", (unsigned long long)g) : "u";
    }
}

/* One stage on the tile: pairs (lo, hi), groups, or every element of a map. */
static void emit_stage(FILE *out, const Phase *p, const Step *st, int index) {
    const ElemType *t = p->elem;
    int ns = t->nslots, width = ns << st->group_log;
    fprintf(out, "        /* stage %d: ", index);
    ir_print_stmt_brief(out, st->stmt);
    fputs(" */\n", out);
    Arena scratch = {0};
    const char **at = NEW_ARRAY(&scratch, const char *, 1u << st->group_log);
    if (st->group_log == 1) {
        int piv = f2_top_bit(st->group[0]);
        fprintf(out, "        for (uint64_t p = 0; p < %lluu; p++) {\n", 1ULL << (p->tile_log - 1));
        /* p with a 0 inserted at bit piv (no low bits to keep when piv is 0) */
        if (piv == 0)
            fprintf(out, "            uint64_t lo = p << 1, hi = lo ^ 0x%llxu;\n",
                    (unsigned long long)st->group[0]);
        else
            fprintf(
                out,
                "            uint64_t lo = ((p >> %d) << %d) | (p & 0x%llxu), hi = lo ^ 0x%llxu;\n",
                piv, piv + 1, (unsigned long long)f2_mask(piv), (unsigned long long)st->group[0]);
        const char *vars[2] = {"lo", "b"};
        uint64_t masks[2] = {st->order[0], st->order_block[0]};
        const char *swap = emit_parity(&scratch, 2, vars, masks, NULL, (int)(st->order_const & 1));
        if (strcmp(swap, "0") != 0)
            fprintf(out, "            if (%s) { uint64_t t = lo; lo = hi; hi = t; }\n", swap);
        at[0] = "lo";
        at[1] = "hi";
    } else if (st->group_log == 0) {
        fprintf(out, "        for (uint64_t u = 0; u < %lluu; u++) {\n", 1ULL << p->tile_log);
        at[0] = "u";
    } else {
        emit_group_loop(out, p, st, &scratch, at);
    }
    for (int k = 0; k < width; k++)
        fprintf(out, "            const %s e%d = tile%d[%s];\n",
                prim_ctype(elem_slot_prim(t, k % ns)), k, k % ns, at[k / ns]);
    if (st->group_log > 1) { /* a body on many elements may leave some unread */
        fputs("           ", out);
        for (int k = 0; k < width; k++) fprintf(out, " (void)e%d;", k);
        fputs("\n", out);
    }
    /* the body may not read every field of the elements */
    for (int k = 0; k < width; k++) fprintf(out, "            (void)e%d;\n", k);
    for (int k = 0; k < width; k++)
        fprintf(out, "            %s r%d;\n", prim_ctype(elem_slot_prim(t, k % ns)), k);
    const char *prefix = arena_printf(&scratch, "s%d_", index);
    PosAt pos = {p, st, st->group_log == 1 ? "lo" : "u", "b", false};
    ElemPositions positions = emit_positions_at(&pos);
    emit_elem_named(out, st->body, width, prefix, 12, &positions);
    for (int k = 0; k < width; k++)
        fprintf(out, "            tile%d[%s] = r%d;\n", k % ns, at[k / ns], k);
    fputs("        }\n", out);
    arena_free(&scratch);
}

/* Tile element u to memory index `index` of the phase's output. */
static void emit_store(FILE *out, const Schedule *s, const Phase *p, const char *index,
                       const char *u) {
    Arena scratch = {0};
    const char *fields[SCHED_MAX_SLOTS];
    for (int k = 0; k < p->elem->nslots; k++)
        fields[k] = arena_printf(&scratch, "tile%d[%s]", k, u);
    emit_tile_element_store(out, s, p, index, fields, 3);
    arena_free(&scratch);
}

/* The gather of tile element u (emit_tile_element_load). */
static void emit_tile_load(FILE *out, const Schedule *s, const Phase *p) {
    Arena scratch = {0};
    const char *dest[SCHED_MAX_SLOTS];
    for (int k = 0; k < p->elem->nslots; k++) dest[k] = arena_printf(&scratch, "tile%d[u]", k);
    emit_tile_element_load(out, s, p, "x0 ^ off[u]", dest, 3);
    arena_free(&scratch);
}

/* The tile to its place in the next layout: output tile coordinate sigma
 * goes to z0 ^ Z·sigma and comes from tile element G·sigma (⊕ src_const:
 * a halved write has half as many sigma, plan.h). */
static void emit_permuted_write(FILE *out, const Schedule *s, const Phase *p) {
    fprintf(out, "        uint64_t z0 = 0x%llxu;\n", (unsigned long long)p->write_compl);
    fprintf(out, "        for (int k = 0; k < %d; k++) if (b >> k & 1) z0 ^= ZB[k];\n",
            p->block_log);
    if (s->gpu_log)
        fprintf(out, "        z0 &= 0x%llxu;\n", (unsigned long long)f2_mask(p->n - s->gpu_log));
    fprintf(out, "        for (uint64_t sigma = 0; sigma < %lluu; sigma++) {\n",
            1ULL << p->out_tile_log);
    if (p->src_const)
        fprintf(out, "            uint64_t z = z0, u = 0x%llxu;\n",
                (unsigned long long)p->src_const);
    else fputs("            uint64_t z = z0, u = 0;\n", out);
    fprintf(
        out,
        "            for (int i = 0; i < %d; i++) if (sigma >> i & 1) { z ^= Z[i]; u ^= G[i]; }\n",
        p->out_tile_log);
    emit_store(out, s, p, "z", "u");
    fputs("        }\n", out);
}

/* The reduce fused into this phase (Schedule.reduce): block b's tile,
 * reduced in the order of u (the operator is commutative), is element b
 * of the partials. */
static void emit_tile_reduce(FILE *out, const Schedule *s, const Phase *p) {
    const IrStmt *r = s->reduce;
    fputs("        { /* the fused reduce */\n", out);
    for (int k = 0; k < r->nres; k++)
        fprintf(out, "        %s v%d = tile%d[0], nv%d;\n", prim_ctype(emit_reduce_prim(r, k)), k,
                k, k);
    fprintf(out, "        for (uint64_t u = 1; u < %lluu; u++) {\n", 1ULL << p->tile_log);
    emit_reduce_apply(out, r, "v%d", "tile%d[u]", "nv%d", 12);
    for (int k = 0; k < r->nres; k++) fprintf(out, "            v%d = nv%d;\n", k, k);
    fputs("        }\n", out);
    for (int k = 0; k < r->nres; k++) fprintf(out, "        q%d[b] = v%d;\n", k, k);
    fputs("        }\n", out);
}

/* Phase.live_check: a block of empty rows is left out. */
static void emit_live_check(FILE *out, const Schedule *s, const Phase *p) {
    if (!p->live_check) return;
    Arena scratch = {0};
    fprintf(
        out,
        "        int parm_live = 0;   /* Phase.live_check */\n"
        "        for (uint64_t r = 0; r < %lluu && !parm_live; r++) parm_live = parm_lens[%s] != "
        "0;\n"
        "        if (!parm_live) continue;\n",
        1ULL << s->live_dim, emit_live_row(&scratch, s, p, "r"));
    arena_free(&scratch);
}

static void emit_local(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    int ns = p->elem->nslots;
    emit_phase_head(out, s, p, name, true);
    emit_planes(out, p->in_elem, plan_out_elem(p));
    emit_tables(out, "W", p->tile_cols, p->tile_log);
    emit_tables(out, "C", p->block_cols, p->block_log);
    if (!p->writes_in_place) {
        emit_tables(out, "Z", p->out_cols, p->out_tile_log);
        emit_tables(out, "G", p->src_cols, p->out_tile_log);
        emit_tables(out, "ZB", p->out_block_cols, p->block_log);
    }
    fputs("    uint64_t *off = (uint64_t *)work;\n", out);
    for (int k = 0; k < ns; k++) {
        const char *t = prim_ctype(elem_slot_prim(p->elem, k));
        fprintf(out, "    %s *tile%d = (%s *)(work + %llu);\n", t, k, t, p->work_tile_off[k]);
    }
    fprintf(
        out,
        "    off[0] = 0;\n"
        "    for (uint64_t u = 1; u < %lluu; u++) off[u] = off[u & (u - 1)] ^ W[parm_ctz(u)];\n",
        1ULL << p->tile_log);
    /* with ranks: the rank's blocks (the rank bits are the top block bits),
       at local indices (the tile has no rank bit, the write keeps the rank) */
    int local = p->block_log - s->gpu_log;
    if (s->gpu_log)
        fprintf(out, "    for (uint64_t b = parm_rank << %d; b < (parm_rank + 1) << %d; b++) {\n",
                local, local);
    else fprintf(out, "    for (uint64_t b = 0; b < %lluu; b++) {\n", 1ULL << p->block_log);
    fprintf(out,
            "        uint64_t x0 = 0;\n"
            "        for (int k = 0; k < %d; k++) if (b >> k & 1) x0 ^= C[k];\n",
            p->block_log);
    if (s->gpu_log)
        fprintf(out, "        x0 &= 0x%llxu;\n", (unsigned long long)f2_mask(p->n - s->gpu_log));
    emit_live_check(out, s, p);
    fprintf(out, "        for (uint64_t u = 0; u < %lluu; u++) {\n", 1ULL << p->tile_log);
    emit_tile_load(out, s, p);
    fputs("        }\n", out);
    for (int i = 0; i < p->nsteps; i++) emit_stage(out, p, &p->steps[i], i);
    if (p->writes_in_place) {
        fprintf(out, "        for (uint64_t u = 0; u < %lluu; u++) {\n", 1ULL << p->tile_log);
        emit_store(out, s, p, "x0 ^ off[u]", "u");
        fputs("        }\n", out);
    } else {
        emit_permuted_write(out, s, p);
    }
    if (emit_phase_reduces(s, p)) emit_tile_reduce(out, s, p);
    fputs("    }\n}\n\n", out);
}

static void emit_map(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    const ElemType *in = p->in_elem, *res = p->elem;
    emit_phase_head(out, s, p, name, false);
    emit_planes(out, in, res);
    int local = p->n - s->gpu_log; /* with ranks: x is the global index */
    if (s->gpu_log)
        fprintf(out, "    for (uint64_t x = parm_rank << %d; x < (parm_rank + 1) << %d; x++) {\n",
                local, local);
    else fprintf(out, "    for (uint64_t x = 0; x < %lluu; x++) {\n", 1ULL << p->n);
    emit_map_element(out, s, p);
    fputs("    }\n}\n\n", out);
}

/* A permutation: one planned one-pass kernel per slot (emit_bmmc.c). */
static void emit_permute(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    emit_permute_kernels(out, s, p, name, bmmc_emit_c);
    emit_phase_head(out, s, p, name, false);
    for (int k = 0; k < p->elem->nslots; k++) {
        const char *t = prim_ctype(elem_slot_prim(p->elem, k));
        fprintf(out, "    %s_slot%d((const %s *)src[%d], (%s *)dst[%d]%s);\n", name, k, t, k, t, k,
                s->pad ? emit_shape_args(s) : "");
    }
    fputs("}\n\n", out);
}

/* A pack or unpack without a one-pass plan, over one piece's buffer
 * indices v (the piece's bits, from piece_lo up, are `piece`): the
 * pack gathers (from M·v, M the pack's inverse, to v; an element of the
 * kept chunk to keep_dst at v ^ keep_xor), the unpack scatters (from v to
 * M·v ^ K[rank]). */
static void emit_move_body(FILE *out, const Schedule *s, const Phase *p, const F2Mat *m,
                           bool gather) {
    int ln = p->n - s->gpu_log, lo = p->piece_lo, ns = p->elem->nslots;
    emit_planes(out, p->elem, p->elem);
    uint64_t cols[F2_MAX];
    for (int i = 0; i < ln; i++) cols[i] = f2_column(m, i);
    emit_tables(out, "M", cols, ln);
    fprintf(out, "    for (uint64_t i = 0; i < %lluu; i++) {\n", 1ULL << (ln - p->piece_log));
    fprintf(out, "        const uint64_t v = (i >> %d << %d) | piece << %d | (i & 0x%llxu);\n", lo,
            lo + p->piece_log, lo, (unsigned long long)f2_mask(lo));
    fputs(gather ? "        uint64_t from = 0;\n" : "        uint64_t to = K[parm_rank];\n", out);
    fprintf(out, "        for (int j = 0; j < %d; j++) if (v >> j & 1) %s ^= M[j];\n", ln,
            gather ? "from" : "to");
    if (gather) {
        fputs("        const uint64_t to = v;\n", out);
        fprintf(out, "        if ((to >> %d) == keep) {\n", ln - p->chunk_log);
        for (int k = 0; k < ns; k++) {
            const char *t = prim_ctype(elem_slot_prim(p->elem, k));
            fprintf(out, "            ((%s *)keep_dst[%d])[to ^ keep_xor] = in%d[from];\n", t, k,
                    k);
        }
        fputs("            continue;\n        }\n", out);
    } else {
        fputs("        const uint64_t from = v;\n", out);
    }
    for (int k = 0; k < ns; k++) fprintf(out, "        out%d[to] = in%d[from];\n", k, k);
    fputs("    }\n", out);
}

/* An EXCHANGE's pack and unpack (plan.h), one piece per call: the pack
 * writes the chunk its rank keeps into keep_dst (the receive buffer). The
 * routing between them is the run's (emit_rank_calls). */
static void emit_exchange(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    int ns = p->elem->nslots;
    emit_exchange_kernel_plans(out, s, p, name, bmmc_emit_c);
    const char *piece_arg = p->piece_log ? ", piece" : "";
    if (p->packs) {
        fprintf(
            out,
            "static void %s_pack(const void *const *src, void *const *dst, void *const *keep_dst, "
            "uint64_t keep, "
            "uint64_t keep_xor, uint64_t piece)\n{\n    (void)piece;\n",
            name);
        if (p->pack_plans) {
            for (int k = 0; k < ns; k++) {
                const char *t = prim_ctype(elem_slot_prim(p->elem, k));
                fprintf(
                    out,
                    "    %s_pack%d((const %s *)src[%d], (%s *)dst[%d], (%s *)keep_dst[%d], keep, "
                    "keep_xor%s);\n",
                    name, k, t, k, t, k, t, k, piece_arg);
            }
        } else {
            emit_move_body(out, s, p, &p->pack_inv, true);
        }
        fputs("}\n\n", out);
    }
    if (p->unpack_plans) {
        fprintf(
            out,
            "static void %s_unpack(const uint64_t parm_rank, const void *const *src, void *const "
            "*dst, uint64_t piece)\n{\n"
            "    (void)piece;\n    switch (parm_rank) {\n",
            name);
        for (int d = 0; d < 1 << s->gpu_log; d++) {
            fprintf(out, "    case %d:\n", d);
            for (int k = 0; k < ns; k++) {
                const char *t = prim_ctype(elem_slot_prim(p->elem, k));
                fprintf(out, "        %s_unpack%d_r%d((const %s *)src[%d], (%s *)dst[%d]%s);\n",
                        name, k, emit_unpack_kernel_of(p, d), t, k, t, k, piece_arg);
            }
            fputs("        break;\n", out);
        }
        fputs("    }\n}\n\n", out);
    } else if (p->unpacks) {
        fprintf(
            out,
            "static void %s_unpack(const uint64_t parm_rank, const void *const *src, void *const "
            "*dst, uint64_t piece)\n{\n",
            name);
        emit_tables(out, "K", p->unpack_const, 1 << s->gpu_log);
        emit_move_body(out, s, p, &p->unpack, false);
        fputs("}\n\n", out);
    }
}

/* ---- several GPUs simulated (plan.h, "Ranks") ----
 *
 * Rank r's slices of the input and the output and its scratch (in the
 * plan's layout: planes, work memory, send and receive buffers) are
 * allocations of their own, so that the sanitizers catch a phase that
 * strays off its rank; each phase runs for every rank in turn, an
 * exchange's steps as the plan orders them. */

static const char *const rank_bufs[] = {"in_r", "out_r", "sa_r", "sb_r"};

static void emit_rank_table(FILE *out, const char *name, const int *v, int count) {
    fprintf(out, "        static const int %s[%d] = {", name, count);
    for (int i = 0; i < count; i++) fprintf(out, "%s%d", i ? ", " : "", v[i]);
    fputs("};\n", out);
}

/* The buffers an exchange sends from and receives into (plan.h, EXCHANGE),
 * every rank's. */
static const char *send_bufs(const Phase *p) { return p->packs ? "xs_r" : rank_bufs[p->src]; }
static const char *recv_bufs(const Phase *p) {
    return !p->crosses ? send_bufs(p) : p->unpacks ? "xr_r" : rank_bufs[p->dst];
}

static void emit_keep_copy(FILE *out, const Schedule *s, const Phase *p) {
    int h = p->chunk_log, ln = p->n - s->gpu_log;
    fprintf(out, "        for (int r = 0; r < %d; r++) {\n            if (kept[r] < 0) continue;\n",
            1 << s->gpu_log);
    for (int k = 0; k < p->elem->nslots; k++) {
        int bytes = prim_bits(elem_slot_prim(p->elem, k)) / 8;
        fprintf(
            out,
            "            memcpy((char *)%s[r][%d] + ((size_t)slot[r << %d | kept[r]] << %d) * %d, "
            "(const char *)%s[r][%d] + "
            "((size_t)kept[r] << %d) * %d, (size_t)%d << %d);\n",
            recv_bufs(p), k, h, ln - h, bytes, send_bufs(p), k, ln - h, bytes, bytes, ln - h);
    }
    fputs("        }\n", out);
}

/* Piece k of every chunk that crosses, copied from its rank's send buffer
 * to its receiver's receive buffer, run by run (plan.h, Phase.piece_lo). */
static void emit_send_recv(FILE *out, const Schedule *s, const Phase *p) {
    int g = s->gpu_log, ln = p->n - g, h = p->chunk_log, lo = p->piece_lo;
    int runs = ln - h - p->piece_log - lo; /* log: of a piece of a chunk */
    fprintf(
        out,
        "            for (int c = 0; c < %d; c++) {\n                int r = c >> %d, t = c & %d;\n"
        "                if (to[c] == r) continue;\n"
        "                for (size_t j = 0; j < %du; j++) {\n",
        1 << (g + h), h, (1 << h) - 1, 1 << runs);
    for (int k = 0; k < p->elem->nslots; k++) {
        int bytes = prim_bits(elem_slot_prim(p->elem, k)) / 8;
        fprintf(
            out,
            "                    memcpy((char *)%s[to[c]][%d] + ((size_t)slot[c] << %d | j << %d | "
            "k << %d) * %d,\n"
            "                        (const char *)%s[r][%d] + ((size_t)t << %d | j << %d | k << "
            "%d) * %d, (size_t)%d << %d);\n",
            recv_bufs(p), k, ln - h, lo + p->piece_log, lo, bytes, send_bufs(p), k, ln - h,
            lo + p->piece_log, lo, bytes, bytes, lo);
    }
    fputs("                }\n            }\n", out);
}

/* An exchange's host step (plan.h, ExchangeStep) on the C target: every
 * rank in turn, the chunks copied between the ranks' buffers; the events
 * are nothing (one process runs the steps in order). */
void emit_c_exchange_step(FILE *out, const Schedule *s, const Phase *p, const char *name,
                          const ExchangeStep *step) {
    int g = s->gpu_log, h = p->chunk_log, ln = p->n - g;
    const char *ind = step->in_loop ? "            " : "        ";
    switch (step->kind) {
    case XSTEP_TABLES:
        emit_rank_table(out, "to", p->send_to, 1 << (g + h));
        emit_rank_table(out, "slot", p->send_slot, 1 << (g + h));
        emit_rank_table(out, "kept", p->kept, 1 << g);
        break;
    case XSTEP_FORK:
    case XSTEP_PACKED:
    case XSTEP_RECEIVED:
    case XSTEP_WAIT_RECEIVED: break;
    case XSTEP_KEEP_COPY: emit_keep_copy(out, s, p); break;
    case XSTEP_PIECES:
        fprintf(out, "        for (uint64_t k = 0; k < %du; k++) {\n", 1 << p->piece_log);
        break;
    case XSTEP_END: fputs("        }\n", out); break;
    case XSTEP_PACK:
        fprintf(out,
                "%sfor (int r = 0; r < %d; r++)\n"
                "%s    %s_pack((const void *const *)%s[r], xs_r[r], %s[r], kept[r] >= 0 ? "
                "(uint64_t)kept[r] : ~(uint64_t)0,\n"
                "%s        kept[r] >= 0 ? (uint64_t)(kept[r] ^ slot[r << %d | kept[r]]) << %d : 0, "
                "k);\n",
                ind, 1 << g, ind, name, rank_bufs[p->src], recv_bufs(p), ind, h, ln - h);
        break;
    case XSTEP_SEND_RECV: emit_send_recv(out, s, p); break;
    case XSTEP_UNPACK:
        fprintf(out,
                "%sfor (int r = 0; r < %d; r++) %s_unpack((uint64_t)r, (const void *const *)%s[r], "
                "%s[r], %s);\n",
                ind, 1 << g, name, recv_bufs(p), rank_bufs[p->dst], step->in_loop ? "k" : "0");
        break;
    }
}

static void emit_rank_calls(FILE *out, const Schedule *s, const char *fname) {
    int ranks = 1 << s->gpu_log;
    Arena names = {0};
    for (int i = 0; i < s->nphases; i++) {
        const Phase *p = &s->phases[i];
        const char *name = plan_phase_name(&names, fname, i);
        if (p->kind == PHASE_EXCHANGE) {
            fputs("    {\n", out);
            emit_exchange_steps(out, s, p, name, &target_c);
            fputs("    }\n", out);
            continue;
        }
        fprintf(out,
                "    for (int r = 0; r < %d; r++)\n"
                "        %s((uint64_t)r, (const void *const *)%s[r], %s[r]",
                ranks, name, rank_bufs[p->src], rank_bufs[p->dst]);
        if (p->kind == PHASE_LOCAL) fputs(", work_r[r]", out);
        emit_arg_values(out, s);
        fputs(");\n", out);
    }
    arena_free(&names);
}


/* Allocations of rank r: `name`[r][k] of bytes[k] each, k < count, for
 * `what` (the standalone main names it when one fails). */
static void emit_rank_alloc(FILE *out, const char *name, const unsigned long long *bytes, int count,
                            const char *what) {
    for (int k = 0; k < count; k++)
        fprintf(
            out,
            "        if (!(%s[r][%d] = malloc(0x%llxu))) status = parm_out_of_memory(ctx, 0x%llxu, "
            "\"%s\");\n",
            name, k, bytes[k], bytes[k], what);
}

static void emit_rank_free(FILE *out, const char *name, int count) {
    if (count) fprintf(out, "        for (int k = 0; k < %d; k++) free(%s[r][k]);\n", count, name);
}

static void slot_bytes(const ElemType *t, int ln, unsigned long long *bytes) {
    for (int k = 0; k < t->nslots; k++)
        bytes[k] = (unsigned long long)(prim_bits(elem_slot_prim(t, k)) / 8) << ln;
}

/* A chain too small to split (Schedule.whole_log) on each rank r: every
 * rank's slice of the input copied into r's whole input (the all-gather),
 * the one-GPU phases (NAME_whole) from it into r's whole result, and r's
 * slice of that kept. */
static void emit_whole_calls(FILE *out, const Schedule *s, const char *fname,
                             const unsigned long long *in_bytes,
                             const unsigned long long *out_bytes) {
    int ranks = 1 << s->whole_log, nin = s->in_elem->nslots, nout = s->out_elem->nslots;
    fprintf(out,
            "    for (int r = 0; r < %d; r++) {\n        const void *whole_in[%d];\n"
            "        void *whole_out[%d];\n",
            ranks, nin, nout);
    for (int k = 0; k < nin; k++)
        fprintf(out,
                "        whole_in[%d] = scratch_r[r] + 0x%llxu;\n"
                "        for (int q = 0; q < %d; q++) memcpy(scratch_r[r] + 0x%llxu + (size_t)q * "
                "0x%llxu, in_r[q][%d], 0x%llxu);\n",
                k, s->whole_in_off[k], ranks, s->whole_in_off[k], in_bytes[k], k, in_bytes[k]);
    for (int k = 0; k < nout; k++)
        fprintf(out, "        whole_out[%d] = scratch_r[r] + 0x%llxu;\n", k, s->whole_out_off[k]);
    fprintf(out, "        if ((status = %s_whole(ctx, whole_in, whole_out, scratch_r[r]", fname);
    emit_arg_values(out, s);
    fputs("))) goto done;\n", out);
    for (int k = 0; k < nout; k++)
        fprintf(out,
                "        memcpy(out_r[r][%d], scratch_r[r] + 0x%llxu + (size_t)r * 0x%llxu, "
                "0x%llxu);\n",
                k, s->whole_out_off[k], out_bytes[k], out_bytes[k]);
    fputs("    }\n", out);
}

/* The body of a chain's function with ranks: each rank's memory (not the
 * scratch given), the input split among the ranks, the phases (or the
 * whole chain on each rank: Schedule.whole_log), and the output gathered. */
void emit_c_rank_body(FILE *out, const Schedule *s, const char *fname) {
    int g = s->gpu_log ? s->gpu_log : s->whole_log;
    int ranks = 1 << g, ln = s->n - g, nin = s->in_elem->nslots, nout = s->out_elem->nslots;
    unsigned long long in_bytes[SCHED_MAX_SLOTS], out_bytes[SCHED_MAX_SLOTS];
    unsigned long long scratch = s->chain_scratch_bytes;
    slot_bytes(s->in_elem, ln, in_bytes);
    slot_bytes(s->out_elem, ln, out_bytes);
    int nx = s->nx;
    /* (NAME_exec_start is NAME_whole's: each rank's scratch is its own) */
    if (s->whole_log) fputs("    (void)scratch;\n", out);
    fputs("    int status = PARM_OK;\n", out);
    fprintf(out,
            "    void *in_r[%d][%d] = {{0}}, *out_r[%d][%d] = {{0}}, *xs_r[%d][%d] = {{0}}, "
            "*xr_r[%d][%d] = {{0}};\n",
            ranks, nin, ranks, nout, ranks, nx ? nx : 1, ranks, nx ? nx : 1);
    fprintf(out,
            "    void *sa_r[%d][%d] = {{0}}, *sb_r[%d][%d] = {{0}};\n"
            "    char *scratch_r[%d] = {0}, *work_r[%d] = {0};\n",
            ranks, s->scratch_planes[0] ? s->scratch_planes[0] : 1, ranks,
            s->scratch_planes[1] ? s->scratch_planes[1] : 1, ranks, ranks);
    fputs("    (void)in_r; (void)out_r; (void)xs_r; (void)xr_r; (void)sa_r; (void)sb_r; "
          "(void)work_r;\n",
          out);
    fprintf(out, "    for (int r = 0; r < %d; r++) {\n", ranks);
    emit_rank_alloc(out, "in_r", in_bytes, nin, "a rank's slice of a chain's input");
    emit_rank_alloc(out, "out_r", out_bytes, nout, "a rank's slice of a chain's result");
    scratch = scratch ? scratch : 1;
    fprintf(
        out,
        "        if (!(scratch_r[r] = malloc(0x%llxu))) status = parm_out_of_memory(ctx, 0x%llxu, "
        "\"a rank's scratch memory\");\n",
        scratch, scratch);
    /* (NAME_whole finds its planes and work in the scratch itself) */
    if (!s->whole_log)
        fprintf(out, "        work_r[r] = scratch_r[r] ? scratch_r[r] + 0x%llxu : NULL;\n",
                s->work_off);
    for (int x = 0; x < 2 && !s->whole_log; x++)
        for (int k = 0; k < s->scratch_planes[x]; k++)
            fprintf(out, "        %s[r][%d] = scratch_r[r] ? scratch_r[r] + 0x%llxu : NULL;\n",
                    rank_bufs[BUF_SCRATCH_A + x], k, s->scratch_plane_off[x][k]);
    for (int k = 0; k < nx; k++)
        fprintf(out,
                "        xs_r[r][%d] = scratch_r[r] ? scratch_r[r] + 0x%llxu : NULL;\n"
                "        xr_r[r][%d] = scratch_r[r] ? scratch_r[r] + 0x%llxu : NULL;\n",
                k, s->xs_off[k], k, s->xr_off[k]);
    for (int k = 0; k < nin; k++)
        fprintf(out,
                "        if (in_r[r][%d]) memcpy(in_r[r][%d], (const char *)in[%d] + (size_t)r * "
                "0x%llxu, 0x%llxu);\n",
                k, k, k, in_bytes[k], in_bytes[k]);
    fputs("    }\n    if (status) goto done;\n", out);
    for (int k = 0; s->nphases == 0 && !s->whole_log && k < nout; k++)
        fprintf(out,
                "    for (int r = 0; r < %d; r++) memcpy(out_r[r][%d], in_r[r][%d], 0x%llxu);\n",
                ranks, k, k, out_bytes[k]);
    if (s->whole_log) emit_whole_calls(out, s, fname, in_bytes, out_bytes);
    else emit_rank_calls(out, s, fname);
    fprintf(out, "    for (int r = 0; r < %d; r++) {\n", ranks);
    for (int k = 0; k < nout; k++)
        fprintf(out,
                "        memcpy((char *)out[%d] + (size_t)r * 0x%llxu, out_r[r][%d], 0x%llxu);\n",
                k, out_bytes[k], k, out_bytes[k]);
    fprintf(out, "    }\ndone:\n    for (int r = 0; r < %d; r++) {\n", ranks);
    emit_rank_free(out, "in_r", nin);
    emit_rank_free(out, "out_r", nout);
    fputs("        free(scratch_r[r]);\n    }\n    return status;\n}\n\n", out);
}

/* ---- the target's chain functions (emit_target.h) ---- */

void emit_c_phase_call(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    fprintf(out, "    %s((const void *const *)%s, %s", name, plan_buf_name(p->src),
            plan_buf_name(p->dst));
    if (p->kind == PHASE_LOCAL) fprintf(out, ", scratch + 0x%llxu", s->work_off);
    for (int k = 0; emit_phase_reduces(s, p) && k < s->reduce->nres; k++)
        fprintf(out, ", (%s *)partial[%d]", prim_ctype(emit_reduce_prim(s->reduce, k)), k);
    emit_arg_values(out, s);
    fputs(");\n", out);
}

void emit_c_exec_start(FILE *out, const Schedule *s) {
    fputs("    (void)ctx;\n    (void)scratch;\n", out);
    emit_arg_unused(out, s);
}

void (*const emit_c_phases[])(FILE *, const Schedule *, const Phase *, const char *) = {
    [PHASE_LOCAL] = emit_local,
    [PHASE_PERMUTE] = emit_permute,
    [PHASE_MAP] = emit_map,
    [PHASE_EXCHANGE] = emit_exchange,
};
