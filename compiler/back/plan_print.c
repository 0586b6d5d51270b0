/* plan_print.c: --dump-plan, the plan of an entry as stable text: one line
 * per phase, then its tables, steps, register rounds and kernels, every
 * vector in hexadecimal (docs/scheduling.md, "The plan", describes the fields). */
#include "plan_print.h"

#include <string.h>

static void vectors(FILE *out, const char *name, const uint64_t *v, int count) {
    fprintf(out, "    %s:", name);
    for (int i = 0; i < count; i++) fprintf(out, " 0x%llx", (unsigned long long)v[i]);
    if (count == 0) fputs(" -", out);
    fputc('\n', out);
}

/* Positions are printed where a body reads them (POS). */
static bool reads_position(const IrBody *body) {
    for (int i = 0; i < body->nstmts; i++)
        if (body->stmts[i]->op == IR_POS) return true;
    return false;
}

/* The tables its element code reads (opt_tables.c) and where the kernel
 * reads them (the scheduler's choice: TablePlace). */
static void print_tables(FILE *out, const TableUse *uses, int n) {
    for (int i = 0; i < n; i++) {
        const IrStmt *s = uses[i].table;
        fprintf(out, "    table %d: %%%d, 2^%d %s indexed by %%%d, %s", s->index, s->res[0]->id,
                s->k, prim_name(s->res[0]->elem->prim), s->args[0]->id,
                plan_table_place_name(uses[i].place));
        if (s->loc.src) fprintf(out, ", for %s:%d:%d", s->loc.src->name, s->loc.line, s->loc.col);
        fputc('\n', out);
    }
}

static void print_step(FILE *out, const Step *st, int index) {
    fprintf(out, "  step %d: ", index);
    ir_print_stmt_brief(out, st->stmt);
    for (int j = 0; j < st->group_log; j++) {
        fprintf(out, ", %s 0x%llx, order 0x%llx block 0x%llx ^ %d",
                st->group_log == 1 ? "pair" : "group", (unsigned long long)st->group[j],
                (unsigned long long)st->order[j], (unsigned long long)st->order_block[j],
                (int)(st->order_const >> j & 1));
        /* a direction that depends on the thread costs selects in the kernel */
        if (st->order_tid[j]) fprintf(out, " thread 0x%llx", (unsigned long long)st->order_tid[j]);
        if (st->order_reg[j])
            fprintf(out, " registers 0x%llx", (unsigned long long)st->order_reg[j]);
    }
    if (st->group_log == 0) fputs(", elementwise", out);
    fputc('\n', out);
    if (!reads_position(st->body)) return;
    fprintf(out, "    position: complement 0x%llx\n", (unsigned long long)st->pos_const);
    vectors(out, "position u", st->pos_u, st->pos_bits);
    vectors(out, "position b", st->pos_b, st->pos_bits);
    vectors(out, "position thread", st->pos_tid, st->pos_bits);
    print_tables(out, st->tables, st->ntables);
}

/* Step.kept_log: the registers a step works on, where halves decide it. */
static void print_kept_regs(FILE *out, const Step *st, int index) {
    if (!st->kept_log) return;
    fprintf(out, "    step %d works on 2^-%d of the registers, where", index, st->kept_log);
    for (int i = 0; i < st->kept_log; i++)
        fprintf(out, "%s parity(reg & 0x%llx) = %d", i ? " and" : "",
                (unsigned long long)st->kept_regs[i], (int)(st->kept_value >> i & 1));
    fputc('\n', out);
}

/* A MAP phase's function, or a LOCAL phase's load map, and the positions
 * it reads. */
static void print_map(FILE *out, const Phase *p) {
    fputs(p->kind == PHASE_LOCAL ? "    load through " : ": ", out);
    ir_print_stmt_brief(out, p->map);
    fputc('\n', out);
    if (!reads_position(p->map->body)) return;
    fprintf(out, "    position: complement 0x%llx\n", (unsigned long long)p->map_pos_const);
    vectors(out, "position rows", p->map_pos.row, p->map_pos.n);
    print_tables(out, p->map_tables, p->nmap_tables);
}

/* A LOCAL phase's store map, from its tile's type, and the positions it
 * reads. */
static void print_store_map(FILE *out, const Phase *p) {
    fputs("    store through ", out);
    ir_print_stmt_brief(out, p->store_map);
    fputs(", from tiles of ", out);
    elem_print(out, p->elem);
    fputc('\n', out);
    if (!reads_position(p->store_map->body)) return;
    fprintf(out, "    store position: complement 0x%llx\n", (unsigned long long)p->store_pos_const);
    vectors(out, "store position rows", p->store_pos.row, p->store_pos.n);
}

/* Phase.live_check: the block's class of rows, which it checks first. */
static void print_live_check(FILE *out, const Schedule *s, const Phase *p) {
    fprintf(out,
            "    a block of empty rows returns: a class of 2^%d rows, block b's row bit i "
            "parity(b & M_i) ^ bit i of 0x%llx\n",
            s->live_dim, (unsigned long long)p->live_const);
    vectors(out, "rows M", p->live_b, s->pad_rows_log);
    vectors(out, "class", s->live_basis, s->live_dim);
}

static void print_local(FILE *out, const Schedule *s, const Phase *p) {
    fprintf(out, ", tile 2^%d, segment 2^%d, 2^%d blocks of 2^%d threads, %s", p->tile_log,
            p->seg_log, p->block_log, p->threads_log,
            p->writes_in_place ? "in place" : "into the next layout");
    if (p->cluster_log)
        fprintf(out, ", clusters of 2^%d blocks (2^%d of the tile and 2^%d threads each)",
                p->cluster_log, plan_block_tile_log(p), plan_block_threads_log(p));
    if (p->vec_log)
        fprintf(out, ", copies in 16-byte vectors of 2^%d%s", p->vec_log,
                p->vec_write ? " (the write too)" : "");
    if (p->buffers > 1)
        fprintf(out, ", %d tile buffers (persistent blocks, cp.async loads)", p->buffers);
    if (p->vec_log && !plan_vector_load(s, p)) fputs(", the load element by element", out);
    if (p->copies_narrowed)
        fputs(", copies element by element where 16-byte vectors fit (--narrow-copies)", out);
    fputc('\n', out);
    if (p->live_check) print_live_check(out, s, p);
    if (p->map) print_map(out, p);
    if (p->store_map) print_store_map(out, p);
    fprintf(out, "    CUDA kernel: %d bytes of shared memory, a tile buffer's planes at:",
            p->shared_bytes);
    for (int k = 0; k < p->elem->nslots; k++) fprintf(out, " %d", p->plane_off[k]);
    fprintf(out, "; launch bounds of %d block%s per SM\n", p->blocks_per_sm,
            p->blocks_per_sm == 1 ? "" : "s");
    vectors(out, "tile W", p->tile_cols, p->tile_log);
    vectors(out, "block C", p->block_cols, p->block_log);
    vectors(out, "slot P", p->slot_cols, p->tile_log);
    if (p->half_log)
        fprintf(out,
                "    write halved: of y = matrix·x ^ 0x%llx the y whose top %d bits are 0x%llx, "
                "without them: "
                "2^%d per tile, the source G·sigma ^ 0x%llx\n",
                (unsigned long long)p->half_compl, p->half_log, (unsigned long long)p->half_keep,
                p->out_tile_log, (unsigned long long)p->src_const);
    if (!p->writes_in_place) {
        fprintf(out, "    write: complement 0x%llx\n", (unsigned long long)p->write_compl);
        vectors(out, "write matrix rows", p->write_mat.row, p->write_mat.n);
        vectors(out, "write Z", p->out_cols, p->out_tile_log);
        vectors(out, "write G", p->src_cols, p->out_tile_log);
        vectors(out, "write block", p->out_block_cols, p->block_log);
    }
    for (int i = 0; i < p->nsteps; i++) print_step(out, &p->steps[i], i);
    for (int r = 0; r < p->nrounds; r++) {
        const Round *rd = &p->rounds[r];
        fprintf(out, "  round %d: steps %d..%d, 2^%d registers%s\n", r, rd->first,
                rd->first + rd->count - 1, rd->reg_log, rd->loops ? ", steps as loops" : "");
        vectors(out, "registers R", rd->regs, rd->reg_log);
        vectors(out, "threads", rd->threads, p->threads_log);
        if (memcmp(rd->slots, p->slot_cols, sizeof(uint64_t) * (size_t)p->tile_log))
            vectors(out, "layout P", rd->slots, p->tile_log);
        if (rd->sync) fputs("    a block barrier before the store\n", out);
        if (rd->remote)
            fputs("    remote: through the cluster's shared memory, between cluster barriers\n",
                  out);
        if (rd->live_log) {
            fprintf(out, "    2^-%d of the warps work, where", rd->live_log);
            for (int i = 0; i < rd->live_log; i++)
                fprintf(out, "%s parity(tid & 0x%llx) = %d", i ? " and" : "",
                        (unsigned long long)rd->live_tid[i], (int)(rd->live_value >> i & 1));
            fputc('\n', out);
        }
        for (int i = rd->first; i < rd->first + rd->count; i++)
            print_kept_regs(out, &p->steps[i], i);
    }
}

static void print_permute(FILE *out, const Phase *p) {
    fprintf(out, ", complement 0x%llx\n", (unsigned long long)p->compl );
    vectors(out, "matrix rows", p->mat.row, p->mat.n);
    for (int k = 0; k < p->elem->nslots; k++) {
        const BmmcPlan *b = &p->slot_plans[k];
        fprintf(
            out,
            "  field %d: %d-byte elements, tile 2^%d, segment 2^%d, 2^%d blocks of 2^%d threads", k,
            b->elem_bytes, b->tile_log, b->seg_log, b->block_log, b->thread_log);
        if (b->vec_log) fprintf(out, " moving 16-byte vectors of 2^%d elements", b->vec_log);
        fputc('\n', out);
        vectors(out, "read B", b->read_cols, b->tile_log);
        vectors(out, "write Z", b->write_cols, b->tile_log);
        vectors(out, "source G", b->src_cols, b->tile_log);
        vectors(out, "slot P", b->slot_cols, b->tile_log);
    }
}

static void print_move(FILE *out, const char *what, const BmmcPlan *plans) {
    if (plans)
        fprintf(out, "    %s: one-pass kernels, tile 2^%d, 2^%d blocks of 2^%d threads%s\n", what,
                plans[0].tile_log, plans[0].block_log, plans[0].thread_log,
                plans[0].piece_log ? ", the top block bits the piece" : "");
    else fprintf(out, "    %s: one element per thread\n", what);
}

static const char *const xstep_names[] = {
    [XSTEP_TABLES] = "routing tables",
    [XSTEP_FORK] = "fork the communication stream",
    [XSTEP_KEEP_COPY] = "copy the kept chunk",
    [XSTEP_PIECES] = "for each piece k {",
    [XSTEP_END] = "}",
    [XSTEP_PACK] = "pack",
    [XSTEP_PACKED] = "record packed[k]; the communication stream waits",
    [XSTEP_SEND_RECV] = "send and receive (one group)",
    [XSTEP_RECEIVED] = "record received[k]",
    [XSTEP_WAIT_RECEIVED] = "wait for received[k]",
    [XSTEP_UNPACK] = "unpack",
};

/* The host's steps of an exchange (plan.h, ExchangeStep), on one line. */
static void print_exchange_steps(FILE *out, const Phase *p) {
    fputs("    host steps:", out);
    for (int i = 0; i < p->nxsteps; i++)
        fprintf(out, "%s %s",
                i && p->xsteps[i].kind != XSTEP_END && p->xsteps[i - 1].kind != XSTEP_PIECES ? ";"
                                                                                             : "",
                xstep_names[p->xsteps[i].kind]);
    fputc('\n', out);
}

/* An exchange's pack, routing (per rank: the ranks its chunks go to),
 * unpack and host steps. */
static void print_exchange(FILE *out, const Schedule *s, const Phase *p) {
    int ln = p->n - s->gpu_log, h = p->chunk_log;
    if (p->crosses)
        fprintf(out, ", across GPUs: each sends 2^%d chunk%s of 2^%d elements, complement 0x%llx\n",
                h, h ? "s" : "", ln - h, (unsigned long long)p->compl );
    else fprintf(out, ", on each GPU, complement 0x%llx\n", (unsigned long long)p->compl );
    vectors(out, "matrix rows", p->mat.row, p->mat.n);
    if (p->packs) {
        vectors(out, "pack rows", p->pack.row, ln);
        print_move(out, "pack", p->pack_plans);
    }
    for (int r = 0; p->crosses && r < 1 << s->gpu_log; r++) {
        fprintf(out, "    rank %d sends chunks to", r);
        for (int t = 0; t < 1 << h; t++)
            fprintf(out, " %d (slot %d)", p->send_to[r << h | t], p->send_slot[r << h | t]);
        if (p->kept[r] >= 0)
            fprintf(out, "; keeps chunk %d, %s", p->kept[r],
                    p->packs ? "packed into its slot" : "copied to its slot");
        fputc('\n', out);
    }
    if (p->crosses && p->piece_log)
        fprintf(
            out,
            "    pipelined: 2^%d pieces of each chunk (send and receive index bits %d..%d%s), each "
            "packed, sent and "
            "unpacked while the next are\n",
            p->piece_log, p->piece_lo, p->piece_lo + p->piece_log - 1,
            p->piece_lo + p->piece_log < ln - h ? ", a piece of a chunk in runs" : "");
    else if (p->crosses) fprintf(out, "    not pipelined: %s\n", p->serial_why);
    if (p->unpacks) {
        vectors(out, "unpack rows", p->unpack.row, ln);
        vectors(out, "unpack complement per rank", p->unpack_const, 1 << s->gpu_log);
        print_move(out, "unpack", p->unpack_plans ? p->unpack_plans[0] : NULL);
    }
    print_exchange_steps(out, p);
}

/* The shape an entry of any length takes, and its pad. */
static void print_pad(FILE *out, const Scalar *pad, const ElemType *elem, int rows_log,
                      int cols_log) {
    if (rows_log >= 0)
        fprintf(out, "    any shape: up to 2^%d rows of up to 2^%d, pad", rows_log, cols_log);
    else fprintf(out, "    any length: up to 2^%d, pad", cols_log);
    for (int k = 0; k < elem->nslots; k++) {
        fputc(' ', out);
        scalar_print(out, elem_slot_prim(elem, k), pad[k]);
    }
    fputc('\n', out);
}

/* A slice the chain reads or writes in place (Schedule.in_slice,
 * out_slice), if any: `side` is input or output. */
static void print_slice(FILE *out, const char *side, const Slice *sl, const char *how) {
    if (!sl->log) return;
    fprintf(out, "    %s: a slice of 2^%d elements, index bits 0x%llx fixed to 0x%llx (%s)\n", side,
            sl->log, (unsigned long long)sl->fixed, (unsigned long long)sl->value, how);
}

static const char *const shared_role_names[SHARED_ROLE_COUNT] = {
    [SHARED_WARP_TOTALS] = "the warps' totals",
    [SHARED_CHUNKS] = "the chunk buffer, a row a warp",
    [SHARED_WARP_SCANS] = "the warps' totals and prefixes",
    [SHARED_TILE_TOTAL] = "the tile's total",
    [SHARED_TILE_PREFIX] = "the tile's prefix",
    [SHARED_TILE_HAS] = "whether the look-back found a prefix",
    [SHARED_LOOK_STOP] = "whether the look-back stops",
    [SHARED_TILE_NUMBER] = "the tile's number",
};

/* A kernel's own shared arrays (SharedPlan), one a line. */
static void print_shared(FILE *out, const char *kernel, const SharedPlan *sh) {
    fprintf(out, "    CUDA shared memory of %s: %d bytes\n", kernel, sh->bytes);
    for (int i = 0; i < sh->n; i++) {
        const SharedArray *a = &sh->arrays[i];
        fprintf(out, "      %s", shared_role_names[a->role]);
        if (a->field >= 0) fprintf(out, ", field %d", a->field);
        if (a->rows > 1) fprintf(out, ": %d rows of %d", a->rows, a->cols);
        else fprintf(out, ": %d", a->cols);
        fprintf(out, " of %d bytes", a->elem_bytes);
        if (a->role == SHARED_CHUNKS)
            fputs(", lane l's chunk c at slot l*C + (c ^ ((l >> (3 - log C)) mod C)), C the "
                  "plane's chunks a thread",
                  out);
        fputc('\n', out);
    }
}

void plan_print(FILE *out, const Schedule *s) {
    fprintf(out, "plan %s: 2^%d ", s->func->name, s->n);
    elem_print(out, s->in_elem);
    fputs(" -> ", out);
    elem_print(out, s->out_elem);
    static const char *const alias[] = {"harmless", "harmless where exact", "copied"};
    fprintf(out, ", %d phase%s, scratch of %llu bytes, an input overlapping the output: %s\n",
            s->nphases, s->nphases == 1 ? "" : "s", s->scratch_bytes, alias[s->alias]);
    if (s->gpu_log) {
        int exchanges = 0;
        for (int i = 0; i < s->nphases; i++)
            exchanges += s->phases[i].kind == PHASE_EXCHANGE && s->phases[i].crosses;
        fprintf(out, "    on %d GPUs, 2^%d elements each: %d exchange%s between them\n",
                1 << s->gpu_log, s->n - s->gpu_log, exchanges, exchanges == 1 ? "" : "s");
    }
    if (s->whole_log)
        fprintf(
            out,
            "    on %d GPUs: too small to split (a block of element code spans them), the whole "
            "chain on every "
            "rank: the input gathered, 2^%d elements of the result kept on each\n",
            1 << s->whole_log, s->n - s->whole_log);
    for (int k = 0; k < s->nargs; k++)
        fprintf(out, "    scalar parameter %%%d : %s, by value\n", s->args[k]->id,
                prim_name(elem_slot_prim(s->args[k]->elem, 0)));
    if (s->pad) print_pad(out, s->pad, s->in_elem, s->pad_rows_log, s->pad_cols_log);
    for (int i = 0; i < s->nhalves; i++) {
        fprintf(out, "    half %d, in the last phase's write: ", i);
        ir_print_stmt_brief(out, s->halves[i]);
        fputc('\n', out);
    }
    if (s->nhalves) fprintf(out, "    2^%d elements out\n", s->n - s->nhalves);
    print_slice(out, "input", &s->in_slice, "halves read in place");
    print_slice(out, "output", &s->out_slice, "its half of a join, written in place");
    for (int k = 0; k < s->in_elem->nslots; k++)
        if (s->in_shift[k])
            fprintf(
                out,
                "    input plane %d: 2^%d elements, element x read from x >> %d (an expand, read "
                "in place)\n",
                k, s->n - s->in_shift[k], s->in_shift[k]);
    for (int k = 0; k < s->out_elem->nslots; k++)
        if (s->out_unstored >> k & 1)
            fprintf(out, "    output plane %d: not stored (nothing reads it)\n", k);
    if (s->reduce) {
        fprintf(out, "    phase %d also reduces each block's tile for ", s->reduce_phase);
        ir_print_stmt_brief(out, s->reduce);
        fputs(" into the partials\n", out);
        print_shared(out, "the fused reduce", &s->reduce_shared);
    }
    for (int x = 0; x < 2; x++) {
        if (!s->scratch_planes[x]) continue;
        fprintf(out, "    %s planes at:", plan_buf_name(BUF_SCRATCH_A + x));
        for (int k = 0; k < s->scratch_planes[x]; k++)
            fprintf(out, " 0x%llx", s->scratch_plane_off[x][k]);
        fputc('\n', out);
    }
    for (int i = 0; i < s->nphases; i++) {
        const Phase *p = &s->phases[i];
        static const char *const kinds[] = {"local", "permute", "map", "exchange"};
        fprintf(out, "phase %d: %s, %s -> %s, ", i, kinds[p->kind], plan_buf_name(p->src),
                plan_buf_name(p->dst));
        elem_print(out, p->in_elem);
        fputs(" -> ", out);
        elem_print(out, plan_out_elem(p));
        switch (p->kind) {
        case PHASE_LOCAL: print_local(out, s, p); break;
        case PHASE_PERMUTE: print_permute(out, p); break;
        case PHASE_MAP: print_map(out, p); break;
        case PHASE_EXCHANGE: print_exchange(out, s, p); break;
        }
    }
}

/* ---- the entry graph ---- */

static void print_plane(FILE *out, const EntryPlan *e, const PlaneRef *p) {
    switch (p->kind) {
    case LOC_PARAM: fprintf(out, " in%d", p->index); break;
    case LOC_RESULT: fprintf(out, " out%d", p->index); break;
    case LOC_TEMP: fprintf(out, " t%d@0x%llx", p->index, e->temps[p->index].off); break;
    case LOC_VALUE: fprintf(out, " %%%d", p->val->id); break;
    case LOC_UNSTORED: fputs(" unstored", out); break;
    }
    if (p->row_cut)
        fprintf(out, ":%s[rows of %lld of 2^%d]", prim_name(p->prim), p->row_cut, p->log_len);
    else if (p->shaped) fprintf(out, ":%s[shape of 2^%d]", prim_name(p->prim), p->log_len);
    else fprintf(out, ":%s[2^%d]", prim_name(p->prim), p->log_len);
}

static void print_planes(FILE *out, const EntryPlan *e, const char *what, const PlaneRef *planes,
                         int count) {
    fprintf(out, "    %s:", what);
    for (int k = 0; k < count; k++) print_plane(out, e, &planes[k]);
    if (!count) fputs(" -", out);
    fputc('\n', out);
}

static const char *const region_names[] = {
    [REGION_TEMP] = "temporary",
    [REGION_CHAIN] = "planes of the chain of node",
    [REGION_WORK] = "work of the chain of node",
    [REGION_SEND] = "send buffer of node",
    [REGION_RECV] = "receive buffer of node",
    [REGION_WHOLE_IN] = "whole input of node",
    [REGION_WHOLE_OUT] = "whole result of node",
    [REGION_COPY] = "copy of parameter plane",
};

static void print_region(FILE *out, const ScratchRegion *r) {
    if ((r->kind == REGION_WHOLE_IN || r->kind == REGION_WHOLE_OUT) && r->node < 0) {
        fprintf(out, "    0x%llx..0x%llx: whole %s%d of the graph run whole\n", r->off,
                r->off + r->bytes, r->kind == REGION_WHOLE_IN ? "in" : "out", r->index);
        return;
    }
    fprintf(out, "    0x%llx..0x%llx: %s", r->off, r->off + r->bytes, region_names[r->kind]);
    if (r->node >= 0) fprintf(out, " %d", r->node);
    if (r->kind == REGION_SEND || r->kind == REGION_RECV || r->kind == REGION_WHOLE_IN ||
        r->kind == REGION_WHOLE_OUT)
        fprintf(out, ", plane %d", r->index);
    else if (r->kind != REGION_CHAIN && r->kind != REGION_WORK) fprintf(out, " %d", r->index);
    fputc('\n', out);
}

static void print_action(FILE *out, const EntryPlan *e, const HostAction *a, int step) {
    const HostProgram *h = &e->host;
    fprintf(out, "    %d. ", step);
    switch (a->kind) {
    case HOST_RESULTS_DISJOINT:
        fputs("PARM_ERROR_ALIAS when two result planes overlap\n", out);
        break;
    case HOST_ALIAS_TEST:
        if (!a->tests)
            fprintf(
                out,
                "in%d may overlap the results (harmless: the chain reads it whole before it writes "
                "them)\n",
                a->index);
        else if (a->exact_ok >= 0)
            fprintf(out, "in%d copied if it overlaps a result, other than exactly out%d\n",
                    a->index, a->exact_ok);
        else fprintf(out, "in%d copied if it overlaps a result\n", a->index);
        break;
    case HOST_SCRATCH:
        fprintf(out, "scratch of 0x%llx bytes (0x%llx with the copies)\n", h->bytes,
                h->bytes_copies);
        break;
    case HOST_COPY_INPUT:
        fprintf(out, "copy in%d to 0x%llx if so\n", a->index, h->regions[a->region].off);
        break;
    case HOST_GATHER_INPUT:
        fprintf(out, "in%d gathered whole from every rank's slice, to 0x%llx\n", a->index,
                h->regions[a->region].off);
        break;
    case HOST_KEEP_SLICE:
        if (e->out_planes[a->index].log_len)
            fprintf(out, "out%d: the rank's slice of the whole result at 0x%llx\n", a->index,
                    h->regions[a->region].off);
        else
            fprintf(out, "out%d: the scalar at 0x%llx, on every rank\n", a->index,
                    h->regions[a->region].off);
        break;
    case HOST_NODE: {
        const PlanNode *n = &e->nodes[a->index];
        fprintf(out, "node %d (%s)", a->index, plan_node_kind_name(n->kind));
        if (n->grid_threads)
            fprintf(out, ": %llu block%s of %d thread%s", n->grid_blocks,
                    n->grid_blocks == 1 ? "" : "s", n->grid_threads,
                    n->grid_threads == 1 ? "" : "s");
        fputc('\n', out);
        break;
    }
    }
}

/* NAME_run: the scratch regions and the actions in order (plan.h, "The
 * host program"). */
static void print_host(FILE *out, const EntryPlan *e) {
    fprintf(out, "host program of %s: scratch regions\n", e->func->name);
    for (int i = 0; i < e->host.nregions; i++) print_region(out, &e->host.regions[i]);
    if (!e->host.nregions) fputs("    -\n", out);
    fputs("  actions\n", out);
    for (int i = 0; i < e->host.nactions; i++) print_action(out, e, &e->host.actions[i], i + 1);
}

void plan_print_entry(FILE *out, const EntryPlan *e) {
    if (plan_one_chain(e)) {
        plan_print(out, &e->nodes[0].chain);
        print_host(out, e);
        return;
    }
    fprintf(out, "graph %s: %d node%s, %d temporar%s, chains' scratch at 0x%llx (%llu bytes)\n",
            e->func->name, e->nnodes, e->nnodes == 1 ? "" : "s", e->ntemps,
            e->ntemps == 1 ? "y" : "ies", e->chain_off, e->chain_bytes);
    if (e->pad) print_pad(out, e->pad, e->pad_elem, e->pad_rows_log, e->pad_cols_log);
    if (e->whole_graph)
        fprintf(out,
                "    on %d GPUs: an entry graph, planned for one GPU and run whole on every rank "
                "(its array parameters gathered, each rank's slice of its results kept)\n",
                1 << e->gpu_log);
    for (int i = 0; i < e->nnodes; i++) {
        const PlanNode *n = &e->nodes[i];
        fprintf(out, "node %d: %s on 2^%d", i, plan_node_kind_name(n->kind), n->n);
        if (n->stmt) {
            fputs(", ", out);
            ir_print_stmt_brief(out, n->stmt);
        }
        for (int m = 0; m < n->npre; m++) {
            fputs(m ? ", " : ", its loads through ", out);
            ir_print_stmt_brief(out, n->pre[m]);
        }
        if (n->kind == NODE_COPY && n->copy != COPY_PLAIN)
            fputs(n->copy == COPY_PAD     ? ", the shape padded"
                  : n->copy == COPY_SHAPE ? ", the shape as it lies"
                  : n->out[0].row_cut     ? ", cut to the given rows of the result row length"
                                          : ", cut to the shape",
                  out);
        if (n->kind == NODE_REDUCE && n->stmt->op == IR_REDUCEBLOCKS)
            fprintf(out,
                    ", 2^%d rows, CUDA: 2^%d threads of 2^%d elements a row, 2^%d threads a block",
                    n->rows_log, n->row_threads_log + n->blocks_log, n->per_thread_log,
                    n->threads_log);
        else if (n->kind == NODE_SCAN)
            fprintf(out, ", CUDA: 2^%d tiles of 2^%d threads of 2^%d elements%s", n->grid_log,
                    n->threads_log, n->per_thread_log,
                    n->stmt->k > n->per_thread_log + n->threads_log
                        ? ", each looking back over the tiles before it in its block"
                        : "");
        else if (n->kind == NODE_REDUCE)
            fprintf(out, ", CUDA: 2^%d blocks of 2^%d threads of 2^%d elements", n->blocks_log,
                    n->threads_log, n->per_thread_log);
        if (n->kind == NODE_REDUCE && n->grid_y_log)
            fprintf(out, ", a grid of 2^%d by 2^%d blocks", n->grid_log - n->grid_y_log,
                    n->grid_y_log);
        if (n->kind == NODE_REDUCE && n->final_grid_y_log)
            fprintf(out, " and of 2^%d by 2^%d for the rows' partials",
                    n->rows_log - n->final_grid_y_log, n->final_grid_y_log);
        for (int k = 0; n->kind == NODE_SCAN && k < n->nin; k++)
            if (n->chunks_log[k] >= 0)
                fprintf(out, ", plane %d through shared memory (2^%d 16-byte chunks a thread)", k,
                        n->chunks_log[k]);
        fputc('\n', out);
        print_planes(out, e, "reads", n->in, n->nin);
        print_planes(out, e, "writes", n->out, n->nout);
        if (n->npartial) print_planes(out, e, "partials", n->partial, n->npartial);
        if (n->nargs) print_planes(out, e, "scalars", n->arg_at, n->nargs);
        bool two_kernels = n->kind == NODE_REDUCE && plan_reduce_partials(n);
        if (n->kind == NODE_SCAN) print_shared(out, "the tiles' kernel", &n->shared);
        if (n->kind == NODE_REDUCE)
            print_shared(out, two_kernels ? "the blocks' kernel" : "its kernel", &n->shared);
        if (two_kernels) print_shared(out, "the partials' kernel", &n->final_shared);
        for (int k = 0; n->in_shift && k < n->nin; k++)
            if (n->in_shift[k])
                fprintf(
                    out,
                    "    input plane %d: element x read from x >> %d (an expand, read in place)\n",
                    k, n->in_shift[k]);
        if (n->kind == NODE_CHAIN) plan_print(out, &n->chain);
    }
    print_host(out, e);
}
