/* emit_cuda.c: the schedule as CUDA kernels and host code (the default target).
 *
 * A LOCAL phase is one kernel: a thread block per tile coset reads whole
 * segments into shared memory, runs the steps there with a barrier between
 * them, and writes the segments back. Every table is a literal. A pair is
 * always read and written at (lo, hi) in that order, never in the data-
 * dependent order of the comparator, so a warp's shared accesses fall in 32
 * distinct banks (the simulator checks it); when the pair vector lies in the
 * bank bits, the lanes of the upper half-warp take hi first (`flip`). */
#include "emit.h"

#include <string.h>

#include "emit_elem.h"
#include "machine.h"

static int threads_log(const Phase *p) { return p->threads_log; }

/* The bits a per-thread index (x0, xt, st, zt, gt) can have set. */
static uint64_t block_bits(const Phase *p, const uint64_t *cols) {
    uint64_t m = 0;
    for (int k = 0; k < p->block_log; k++) m |= cols[k];
    return m;
}

static uint64_t tile_bits(const Phase *p, const uint64_t *cols, int t, bool slots) {
    uint64_t m = 0;
    for (int i = 0; i < t; i++) m |= slots ? plan_slot(p, cols[i]) : cols[i];
    return m;
}

/* x0 = C·b as a sum of literal columns, for the tile `tile` of the grid
 * (blockIdx.x, or a persistent block's loop variable). With ranks (plan.h,
 * "Ranks") the grid is the rank's blocks, whose top bits are the rank, and
 * x0 the local index in the rank's slice. */
static void emit_block_origin(FILE *out, const Schedule *s, const Phase *p, const char *tile) {
    if (s->gpu_log)
        fprintf(out, "    const uint64_t b = %s | parm_rank << %d;\n", tile,
                p->block_log - s->gpu_log);
    else if (p->cluster_log)
        fprintf(out, "    const uint64_t b = %s >> %d;   /* the cluster's tile */\n", tile,
                p->cluster_log);
    else fprintf(out, "    const uint64_t b = %s;\n", tile);
    fputs("    const uint64_t x0 = 0", out);
    for (int k = 0; k < p->block_log; k++)
        fprintf(out, "\n        ^ ((b >> %d & 1) ? 0x%llxull : 0)", k,
                (unsigned long long)p->block_cols[k]);
    if (s->gpu_log)
        fprintf(out, "\n        & 0x%llxull", (unsigned long long)f2_mask(p->n - s->gpu_log));
    fputs(";\n", out);
}

/* ", const uint64_t parm_rank" with ranks: a kernel's first scalar. */
static void emit_rank_param(FILE *out, const Schedule *s) {
    if (s->gpu_log) fputs(", const uint64_t parm_rank", out);
}

/* The tile copies: thread tid, iteration i moves tile element u = tid |
 * i << t (t the threads' bits), or in a cluster's tile (Phase.cluster_log)
 * the block's own u = tid's low bits | i << t | the rank << (tile_log -
 * cluster_log), t the block's threads: the tile coordinate of thread bit
 * k, and the slot bits that index the block's shared memory. */
static int copy_coord(const Phase *p, int k) {
    int tb = plan_block_threads_log(p);
    return k < tb ? k : plan_block_tile_log(p) + k - tb;
}

static uint64_t own_slot(const Phase *p, uint64_t u) {
    return plan_slot(p, u) & f2_mask(plan_block_tile_log(p));
}

/* The memory offset of u: a per-thread part and literals. */
static void emit_thread_offset(FILE *out, const Phase *p, int t) {
    fputs("    uint64_t xt = x0", out);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n        ^ ((tid >> %d & 1) ? 0x%llxull : 0)", i,
                (unsigned long long)p->tile_cols[copy_coord(p, i)]);
    fputs(";\n", out);
}

/* The memory offset of iteration i's literal part. */
static uint64_t high_offset(const Phase *p, unsigned i) {
    int tb = plan_block_threads_log(p);
    return f2_combine(p->tile_cols + tb, plan_block_tile_log(p) - tb, i);
}

/* The slot of tile element u's per-thread part: a per-thread XOR of swizzled columns. */
static void emit_thread_slot(FILE *out, const Phase *p, int t) {
    fputs("    unsigned st = 0", out);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n        ^ ((tid >> %d & 1) ? 0x%llxu : 0)", i,
                (unsigned long long)own_slot(p, UINT64_C(1) << copy_coord(p, i)));
    fputs(";\n", out);
}

/* The tile copies in 16-byte vectors (Phase.vec_log) when every plane they
 * read or write is 16-byte aligned, else the element-wise copies that
 * follow (closed by the caller): thread tid, iteration i moves the vector of
 * tile elements j | tid << v | i << (t + v), consecutive in memory, between
 * registers and the elements' slots (the swizzle keeps each element's
 * stores conflict-free, schedule.c). */
static void emit_vector_copy(FILE *out, const Schedule *s, const Phase *p, int t, bool load) {
    int ns = p->elem->nslots, v = p->vec_log;
    fputs("    if (", out);
    for (int k = 0; k < ns; k++)
        fprintf(out, "%sPARM_ALIGNED16(%s%d)", k ? " && " : "", load ? "in" : "out", k);
    fputs(") {\n        const uint64_t xv = x0", out);
    uint64_t xbits = block_bits(p, p->block_cols), sbits = 0;
    for (int i = 0; i < t; i++) {
        fprintf(out, "\n            ^ ((tid >> %d & 1) ? 0x%llxull : 0)", i,
                (unsigned long long)p->tile_cols[v + i]);
        xbits |= p->tile_cols[v + i];
        sbits |= plan_slot(p, UINT64_C(1) << (v + i));
    }
    fputs(";\n        const unsigned sv = 0", out);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n            ^ ((tid >> %d & 1) ? 0x%llxu : 0)", i,
                (unsigned long long)plan_slot(p, UINT64_C(1) << (v + i)));
    fputs(";\n", out);
    for (unsigned i = 0; i < 1u << (p->tile_log - t - v); i++) {
        uint64_t off = f2_combine(p->tile_cols + t + v, p->tile_log - t - v, i);
        for (int k = 0; k < ns; k++) {
            if (!load && !plan_stores_slot(s, p, k)) continue;
            fprintf(out, "        {\n            %s a[%d];\n",
                    prim_ctype(elem_slot_prim(p->elem, k)), 1 << v);
            if (load)
                fprintf(out, "            PARM_LOAD16(a, &in%d[xv %c 0x%llxull]);\n", k,
                        emit_index_op(xbits, off), (unsigned long long)off);
            for (unsigned j = 0; j < 1u << v; j++) {
                uint64_t slot = plan_slot(p, j | (uint64_t)i << (t + v));
                char op = emit_index_op(sbits, slot);
                if (load)
                    fprintf(out, "            tile%d[sv %c 0x%llxu] = a[%u];\n", k, op,
                            (unsigned long long)slot, j);
                else
                    fprintf(out, "            a[%u] = tile%d[sv %c 0x%llxu];\n", j, k, op,
                            (unsigned long long)slot);
            }
            if (!load)
                fprintf(out, "            PARM_STORE16(&out%d[xv %c 0x%llxull], a);\n", k,
                        emit_index_op(xbits, off), (unsigned long long)off);
            fputs("        }\n", out);
        }
    }
    fputs("    } else {\n", out);
}

static void emit_copy_tile(FILE *out, const Schedule *s, const Phase *p, int t, bool load) {
    int ns = p->elem->nslots;
    bool vectors = load ? plan_vector_load(s, p) : p->vec_log;
    if (vectors) emit_vector_copy(out, s, p, t, load);
    /* the write-back computes its addresses again: kept alive from the load
       through every round, they spill (0.56 against 0.40 ms, batched) */
    if (!load) fputs("    PARM_REMAT(st);\n    PARM_REMAT64(xt);\n", out);
    uint64_t xbits = block_bits(p, p->block_cols), sbits = 0;
    for (int i = 0; i < t; i++) {
        xbits |= p->tile_cols[copy_coord(p, i)];
        sbits |= own_slot(p, UINT64_C(1) << copy_coord(p, i));
    }
    int tb = plan_block_threads_log(p);
    for (unsigned i = 0; i < 1u << (plan_block_tile_log(p) - tb); i++) {
        uint64_t off = high_offset(p, i), slot = own_slot(p, (uint64_t)i << tb);
        char op_x = emit_index_op(xbits, off), op_s = emit_index_op(sbits, slot);
        Arena scratch = {0};
        const char *index = arena_printf(&scratch, "xt %c 0x%llxull", op_x,
                                         (unsigned long long)off);
        const char *tile[SCHED_MAX_SLOTS];
        for (int k = 0; k < ns; k++)
            tile[k] = arena_printf(&scratch, "tile%d[st %c 0x%llxu]", k, op_s,
                                   (unsigned long long)slot);
        if (load) emit_tile_element_load(out, s, p, index, tile, 1);
        else emit_tile_element_store(out, s, p, index, tile, 1);
        arena_free(&scratch);
    }
    if (vectors) fputs("    }\n", out);
}

/* The write into the next layout in 16-byte vectors (Phase.vec_write) when
 * every output plane is 16-byte aligned, else the element-wise write that
 * follows (closed by the caller): thread tid, iteration i writes the vector
 * of output coordinates j | tid << v | i << (t + v), loading each element
 * from its slot; the complement's low bits c put coordinate j at position
 * j ^ c of the vector. */
static void emit_vector_write(FILE *out, const Schedule *s, const Phase *p, int t) {
    int ns = p->elem->nslots, v = p->vec_log;
    unsigned c = (unsigned)(p->write_compl & f2_mask(v));
    fputs("    if (", out);
    for (int k = 0; k < ns; k++) fprintf(out, "%sPARM_ALIGNED16(out%d)", k ? " && " : "", k);
    fprintf(out, ") {\n        const uint64_t zv = 0x%llxull",
            (unsigned long long)(p->write_compl & ~f2_mask(v)));
    uint64_t zbits = (p->write_compl & ~f2_mask(v)) | block_bits(p, p->out_block_cols), gbits = 0;
    for (int k = 0; k < p->block_log; k++)
        fprintf(out, "\n            ^ ((b >> %d & 1) ? 0x%llxull : 0)", k,
                (unsigned long long)p->out_block_cols[k]);
    for (int i = 0; i < t; i++) {
        fprintf(out, "\n            ^ ((tid >> %d & 1) ? 0x%llxull : 0)", i,
                (unsigned long long)p->out_cols[v + i]);
        zbits |= p->out_cols[v + i];
        gbits |= plan_slot(p, p->src_cols[v + i]);
    }
    fputs(";\n        const unsigned gv = 0", out);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n            ^ ((tid >> %d & 1) ? 0x%llxu : 0)", i,
                (unsigned long long)plan_slot(p, p->src_cols[v + i]));
    fputs(";\n", out);
    for (unsigned i = 0; i < 1u << (p->out_tile_log - t - v); i++) {
        uint64_t z = f2_combine(p->out_cols + t + v, p->out_tile_log - t - v, i);
        for (int k = 0; k < ns; k++) {
            if (!plan_stores_slot(s, p, k)) continue;
            fprintf(out, "        {\n            %s a[%d];\n",
                    prim_ctype(elem_slot_prim(p->elem, k)), 1 << v);
            for (unsigned j = 0; j < 1u << v; j++) {
                uint64_t g = plan_slot(p, p->src_const ^ f2_combine(p->src_cols, p->out_tile_log,
                                                                    j | (uint64_t)i << (t + v)));
                fprintf(out, "            a[%u] = tile%d[gv %c 0x%llxu];\n", j ^ c, k,
                        emit_index_op(gbits, g), (unsigned long long)g);
            }
            fprintf(out, "            PARM_STORE16(&out%d[zv %c 0x%llxull], a);\n        }\n", k,
                    emit_index_op(zbits, z), (unsigned long long)z);
        }
    }
    fputs("    } else {\n", out);
}

/* The tile to the next layout: output coordinate sigma = tid | i << t goes
 * to z0 ^ Z·sigma and comes from tile element G·sigma (⊕ src_const). A
 * halved write (plan.h) has 2^out_tile_log coordinates: with fewer than
 * the threads, those from 2^out_tile_log on write nothing. */
static void emit_permuted_write(FILE *out, const Schedule *s, const Phase *p, int threads) {
    int ns = p->elem->nslots, t = threads < p->out_tile_log ? threads : p->out_tile_log;
    if (p->vec_write) emit_vector_write(out, s, p, t);
    if (t < threads) fprintf(out, "    if (tid < %uu) {\n", 1u << t);
    fprintf(out, "    uint64_t zt = 0x%llxull", (unsigned long long)p->write_compl);
    for (int k = 0; k < p->block_log; k++)
        fprintf(out, "\n        ^ ((b >> %d & 1) ? 0x%llxull : 0)", k,
                (unsigned long long)p->out_block_cols[k]);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n        ^ ((tid >> %d & 1) ? 0x%llxull : 0)", i,
                (unsigned long long)p->out_cols[i]);
    if (s->gpu_log)
        fprintf(out, ";\n    zt &= 0x%llxull", (unsigned long long)f2_mask(p->n - s->gpu_log));
    fputs(";\n    unsigned gt = 0", out);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n        ^ ((tid >> %d & 1) ? 0x%llxu : 0)", i,
                (unsigned long long)plan_slot(p, p->src_cols[i]));
    fputs(";\n    PARM_REMAT64(zt);\n    PARM_REMAT(gt);\n", out);
    uint64_t zbits = p->write_compl | block_bits(p, p->out_block_cols) |
                     tile_bits(p, p->out_cols, t, false);
    uint64_t gbits = tile_bits(p, p->src_cols, t, true);
    for (unsigned i = 0; i < 1u << (p->out_tile_log - t); i++) {
        uint64_t z = 0, g = p->src_const;
        for (int bit = t; bit < p->out_tile_log; bit++)
            if (i >> (bit - t) & 1) {
                z ^= p->out_cols[bit];
                g ^= p->src_cols[bit];
            }
        uint64_t gs = plan_slot(p, g);
        Arena scratch = {0};
        const char *index = arena_printf(&scratch, "zt %c 0x%llxull", emit_index_op(zbits, z),
                                         (unsigned long long)z);
        const char *tile[SCHED_MAX_SLOTS];
        for (int k = 0; k < ns; k++)
            tile[k] = emit_tile_at(&scratch, p, k,
                                   arena_printf(&scratch, "gt %c 0x%llxu", emit_index_op(gbits, gs),
                                                (unsigned long long)gs),
                                   p->cluster_log > 0);
        emit_tile_element_store(out, s, p, index, tile, 1);
        arena_free(&scratch);
    }
    if (t < threads) fputs("    }\n", out);
    if (p->vec_write) fputs("    }\n", out);
}

static int slot_bytes(const ElemType *t, int k) { return prim_bits(elem_slot_prim(t, k)) / 8; }

/* The reduce fused into this phase (Schedule.reduce): after the write-back
 * the tile is still whole in shared memory; thread tid reduces slots tid,
 * tid + T, ... (consecutive words across the warp), the block its threads'
 * subtotals, and thread 0 writes the block's partial. The operator is
 * commutative, so no order matters. */
static void emit_tile_reduce(FILE *out, const Schedule *s, const Phase *p, int t) {
    const IrStmt *r = s->reduce;
    fputs("    { /* the fused reduce */\n", out);
    for (int k = 0; k < r->nres; k++)
        fprintf(out, "    %s v%d = tile%d[tid], nv%d;\n", prim_ctype(emit_reduce_prim(r, k)), k, k,
                k);
    fprintf(out, "    for (unsigned j = 1; j < %uu; j++) {\n", 1u << (p->tile_log - t));
    Arena scratch = {0};
    emit_reduce_apply(out, r, "v%d", arena_printf(&scratch, "tile%%d[tid + (j << %d)]", t), "nv%d",
                      8);
    arena_free(&scratch);
    for (int k = 0; k < r->nres; k++) fprintf(out, "        v%d = nv%d;\n", k, k);
    fputs("    }\n", out);
    emit_reduce_block_tree(out, r, &s->reduce_shared, t);
    fputs("    if (threadIdx.x == 0) {\n", out);
    for (int k = 0; k < r->nres; k++) fprintf(out, "        q%d[b] = v%d;\n", k, k);
    fputs("    }\n    }\n", out);
}

static int tile_buffers(const Phase *p) { return p->buffers > 1 ? p->buffers : 1; }

/* The kernel's signature, its shared memory and scalar arguments. */
static void emit_local_head(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    fprintf(out, "static __global__ void __launch_bounds__(%d, %d)\n",
            1 << plan_block_threads_log(p), p->blocks_per_sm);
    if (p->cluster_log) fprintf(out, "__cluster_dims__(%d, 1, 1)\n", 1 << p->cluster_log);
    fprintf(out, "%s_kernel(", name);
    /* in and out alias when the phase writes in place: no __restrict__ */
    const char *restrict_ = p->writes_in_place ? "" : "__restrict__ ";
    for (int k = 0; k < p->in_elem->nslots; k++)
        fprintf(out, "%sconst %s *%sin%d", k ? ", " : "", prim_ctype(elem_slot_prim(p->in_elem, k)),
                restrict_, k);
    const ElemType *res = plan_out_elem(p);
    for (int k = 0; k < res->nslots; k++)
        fprintf(out, ", %s *%sout%d", prim_ctype(elem_slot_prim(res, k)), restrict_, k);
    if (emit_phase_reduces(s, p)) emit_partial_params(out, s, &target_cuda);
    emit_rank_param(out, s);
    emit_arg_params(out, s);
    fputs(")\n{\n    extern __shared__ __align__(16) unsigned char parm_shared[];\n", out);
    emit_arg_loads(out, s);
    if (p->cluster_log) /* the tile's threads: the block's rank in its cluster on top */
        fprintf(out, "    const unsigned tid = PARM_CLUSTER_RANK() << %d | threadIdx.x;\n",
                plan_block_threads_log(p));
    else fputs("    const unsigned tid = threadIdx.x;\n", out);
}

/* The planes of the tile in shared memory buffer `buf` (an expression;
 * NULL: the one buffer). */
static void emit_tile_planes(FILE *out, const Phase *p, const char *buf) {
    for (int k = 0; k < p->elem->nslots; k++) {
        const char *ty = prim_ctype(elem_slot_prim(p->elem, k));
        fprintf(out, "    %s *tile%d = (%s *)(parm_shared + ", ty, k, ty);
        if (buf) fprintf(out, "%s * %du + ", buf, p->tile_bytes);
        fprintf(out, "%d);\n", p->plane_off[k]);
    }
}

/* Phase.live_check: the block returns when every row of its class is
 * empty (all its threads: no barrier has been reached). */
static void emit_live_check(FILE *out, const Schedule *s, const Phase *p) {
    if (!p->live_check) return;
    Arena scratch = {0};
    fprintf(out,
            "    { /* a block of empty rows returns (Phase.live_check) */\n"
            "    int parm_live = 0;\n"
            "    for (uint64_t r = tid; r < %lluull && !parm_live; r += %du)\n"
            "        parm_live = parm_lens[%s] != 0;\n"
            "    if (!__syncthreads_or(parm_live)) return;\n"
            "    }\n",
            1ULL << s->live_dim, 1 << threads_log(p), emit_live_row(&scratch, s, p, "r"));
    arena_free(&scratch);
}

/* The block's tile b (tile: its grid index) once it is in shared memory:
 * the register rounds, the write, the fused reduce. */
static void emit_tile_work(FILE *out, const Schedule *s, const Phase *p, const char *tile) {
    int t = threads_log(p);
    emit_block_origin(out, s, p, tile);
    emit_live_check(out, s, p);
    Arena scratch = {0};
    for (int i = 0; i < p->nsteps; i++) {
        const Step *st = &p->steps[i];
        const char *b = "b";
        if (st->group_log == 1)
            fprintf(out, "    const int blockpar%d = %s;\n", i,
                    emit_parity(&scratch, 1, &b, &st->order_block[0], NULL,
                                (int)(st->order_const & 1)));
        for (int j = 0; st->group_log > 1 && j < st->group_log; j++)
            fprintf(out, "    const int blockpar%d_%d = %s;\n", i, j,
                    emit_parity(&scratch, 1, &b, &st->order_block[j], NULL,
                                (int)(st->order_const >> j & 1)));
    }
    arena_free(&scratch);
    if (p->writes_in_place || tile_buffers(p) == 1) {
        emit_thread_offset(out, p, t);
        emit_thread_slot(out, p, t);
    }
    if (tile_buffers(p) == 1) {
        emit_copy_tile(out, s, p, t, true);
        fprintf(out, "    %s;\n", emit_barrier(emit_reaches_cluster(p, 0)));
    }
    emit_cuda_local_rounds(out, p);
    if (p->writes_in_place) emit_copy_tile(out, s, p, t, false);
    else emit_permuted_write(out, s, p, t);
    /* no block leaves while the cluster still reads its shared memory */
    if (emit_reaches_cluster(p, p->nrounds)) fputs("    PARM_CLUSTER_SYNC();\n", out);
    if (emit_phase_reduces(s, p)) emit_tile_reduce(out, s, p, t);
}

/* The tile `tile` (grid index) into shared buffer `buf` with cp.async, one
 * element per copy at its slot, in the thread order of the element-wise
 * load (emit_copy_tile): the same sectors and banks. */
static void emit_async_load(FILE *out, const Schedule *s, const Phase *p, const char *tile,
                            const char *buf) {
    int t = threads_log(p), ns = p->elem->nslots;
    emit_tile_planes(out, p, buf);
    emit_block_origin(out, s, p, tile);
    emit_thread_offset(out, p, t);
    emit_thread_slot(out, p, t);
    uint64_t xbits = block_bits(p, p->block_cols) | tile_bits(p, p->tile_cols, t, false), sbits = 0;
    for (int i = 0; i < t; i++) sbits |= plan_slot(p, UINT64_C(1) << i);
    for (unsigned i = 0; i < 1u << (p->tile_log - t); i++) {
        uint64_t off = high_offset(p, i),
                 slot = plan_slot(p, (uint64_t)i << t); /* no cluster: t is the block's */
        for (int k = 0; k < ns; k++)
            fprintf(out, "    PARM_CP_ASYNC%d(&tile%d[st %c 0x%llxu], &in%d[xt %c 0x%llxull]);\n",
                    slot_bytes(p->elem, k), k, emit_index_op(sbits, slot), (unsigned long long)slot,
                    k, emit_index_op(xbits, off), (unsigned long long)off);
    }
}

/* A persistent kernel of N = Phase.buffers tile buffers: the block's
 * iteration k loads its tile k into buffer k % N and works on its tile
 * k - (N - 1), which the loads of iterations before have brought in. The
 * wait leaves the N - 2 loads after that tile's in flight; the barrier then
 * makes the tile visible to every thread and ends all reads of the buffer
 * that the load of this iteration overwrites (the write-back of the tile
 * before). */
static void emit_persistent_loop(FILE *out, const Schedule *s, const Phase *p) {
    int n = tile_buffers(p);
    fprintf(out, "    const uint64_t parm_tiles = %lluull;\n", 1ULL << (p->block_log - s->gpu_log));
    fprintf(
        out,
        "    for (unsigned k = 0; ; k++) {\n"
        "    const uint64_t load = blockIdx.x + (uint64_t)k * gridDim.x;\n"
        "    const uint64_t tile = load - %du * (uint64_t)gridDim.x;   /* wraps while k < %d */\n"
        "    if (k >= %du) {\n"
        "        if (tile >= parm_tiles) break;\n"
        "        PARM_CP_WAIT(%d);\n"
        "        __syncthreads();\n"
        "    }\n"
        "    if (load < parm_tiles) {\n",
        n - 1, n - 1, n - 1, n - 2);
    Arena scratch = {0};
    emit_async_load(out, s, p, "load", arena_printf(&scratch, "(k %% %du)", n));
    fprintf(out,
            "    }\n"
            "    PARM_CP_COMMIT();\n"
            "    if (k < %du) continue;\n"
            "    {\n",
            n - 1);
    emit_tile_planes(out, p, arena_printf(&scratch, "((k - %d) %% %du)", n - 1, n));
    emit_tile_work(out, s, p, "tile");
    fputs("    }\n    }\n", out);
    arena_free(&scratch);
}

static void emit_local_kernel(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    emit_local_head(out, s, p, name);
    if (tile_buffers(p) > 1) {
        emit_persistent_loop(out, s, p);
    } else {
        emit_tile_planes(out, p, NULL);
        emit_tile_work(out, s, p, "blockIdx.x");
    }
    fputs("}\n\n", out);
}
/* Launchers take the planes as void pointers: phase i's buffers are the
 * plan's. */
static void emit_launcher_head(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    fprintf(out, "static int %s(parm_ctx *ctx, const void *const *src, void *const *dst%s", name,
            emit_phase_reduces(s, p) ? ", void *const *partial" : "");
    emit_arg_params(out, s);
    fputs(")\n{\n", out);
}

static void emit_rank_value(FILE *out, const Schedule *s) {
    if (s->gpu_log) fputs(", (uint64_t)ctx->rank", out);
}

static void emit_plane_args(FILE *out, const ElemType *in, const ElemType *res) {
    for (int k = 0; k < in->nslots; k++)
        fprintf(out, "%s(const %s *)src[%d]", k ? ", " : "", prim_ctype(elem_slot_prim(in, k)), k);
    for (int k = 0; k < res->nslots; k++)
        fprintf(out, ", (%s *)dst[%d]", prim_ctype(elem_slot_prim(res, k)), k);
}

static void emit_local(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    emit_local_kernel(out, s, p, name);
    emit_launcher_head(out, s, p, name);
    int bytes = p->shared_bytes;
    /* a kernel's attributes are per device: set once on each (every time
       on a device past the 64 the mask holds); contexts of several devices
       (the ranks of --gpus) may launch from several threads at once, so the
       mask is read and set atomically (setting an attribute twice is
       harmless) */
    fprintf(out,
            "    static uint64_t configured;\n"
            "    const uint64_t device_bit = ctx->device < 64 ? 1ull << ctx->device : 0;\n"
            "    if (!(__atomic_load_n(&configured, __ATOMIC_ACQUIRE) & device_bit)) {\n"
            "        PARM_CHECK(ctx, cudaFuncSetAttribute(%s_kernel, "
            "cudaFuncAttributeMaxDynamicSharedMemorySize, %d));\n"
            "        __atomic_fetch_or(&configured, device_bit, __ATOMIC_RELEASE);\n    }\n",
            name, bytes);
    /* persistent blocks (Phase.buffers): as many as the SMs hold at once,
       by the occupancy of the kernel as built (its registers), once per
       device (every time on a device past the 64 the array holds) */
    if (tile_buffers(p) > 1) {
        fprintf(out,
                "    static int resident[64];\n"
                "    int per_sm = ctx->device < 64 ? __atomic_load_n(&resident[ctx->device], "
                "__ATOMIC_RELAXED) : 0;\n"
                "    if (!per_sm) {\n"
                "        PARM_CHECK(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, "
                "%s_kernel, %d, %d));\n"
                "        if (per_sm < 1) per_sm = 1;\n"
                "        if (ctx->device < 64) __atomic_store_n(&resident[ctx->device], per_sm, "
                "__ATOMIC_RELAXED);\n"
                "    }\n",
                name, 1 << threads_log(p), bytes);
        fprintf(out,
                "    %s_kernel<<<parm_persistent_grid(ctx, %lluu, per_sm), %d, %d, ctx->stream>>>(",
                name, 1ULL << (p->block_log - s->gpu_log), 1 << threads_log(p), bytes);
    } else

        fprintf(out, "    %s_kernel<<<%lluu, %d, %d, ctx->stream>>>(", name,
                1ULL << (p->block_log - s->gpu_log + p->cluster_log),
                1 << plan_block_threads_log(p), bytes);
    emit_plane_args(out, p->in_elem, plan_out_elem(p));
    for (int k = 0; emit_phase_reduces(s, p) && k < s->reduce->nres; k++)
        fprintf(out, ", (%s *)partial[%d]", prim_ctype(emit_reduce_prim(s->reduce, k)), k);
    emit_rank_value(out, s);
    emit_arg_values(out, s);
    fputs(");\n    PARM_CHECK(ctx, cudaGetLastError());\n    return PARM_OK;\n}\n\n", out);
}

static void emit_map(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    const ElemType *in = p->in_elem, *res = p->elem;
    fprintf(out, "static __global__ void %s_kernel(", name);
    for (int k = 0; k < in->nslots; k++)
        fprintf(out, "%sconst %s *__restrict__ in%d", k ? ", " : "",
                prim_ctype(elem_slot_prim(in, k)), k);
    for (int k = 0; k < res->nslots; k++)
        fprintf(out, ", %s *__restrict__ out%d", prim_ctype(elem_slot_prim(res, k)), k);
    emit_rank_param(out, s);
    emit_arg_params(out, s);
    fputs(")\n{\n", out);
    emit_arg_loads(out, s);
    /* with ranks x is the global index of the rank's element (its position) */
    int ln = p->n - s->gpu_log;
    fprintf(out,
            "    for (uint64_t xl = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; xl < %lluull;"
            " xl += (uint64_t)gridDim.x * blockDim.x) {\n",
            1ULL << ln);
    if (s->gpu_log) fprintf(out, "        const uint64_t x = xl | parm_rank << %d;\n", ln);
    else fputs("        const uint64_t x = xl;\n", out);
    emit_map_element(out, s, p);
    fputs("    }\n}\n\n", out);
    emit_launcher_head(out, s, p, name);
    fprintf(out, "    %s_kernel<<<%llu, 256, 0, ctx->stream>>>(", name, p->grid_blocks);
    emit_plane_args(out, in, res);
    emit_rank_value(out, s);
    emit_arg_values(out, s);
    fputs(");\n    PARM_CHECK(ctx, cudaGetLastError());\n    return PARM_OK;\n}\n\n", out);
}

static void emit_permute(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    emit_permute_kernels(out, s, p, name, bmmc_emit_cuda);
    emit_launcher_head(out, s, p, name);
    for (int k = 0; k < p->elem->nslots; k++) {
        const char *t = prim_ctype(elem_slot_prim(p->elem, k));
        fprintf(out,
                "    PARM_CHECK(ctx, %s_slot%d_launch((const %s *)src[%d], (%s *)dst[%d]%s, "
                "ctx->stream));\n",
                name, k, t, k, t, k, s->pad ? emit_shape_args(s) : "");
    }
    fputs("    return PARM_OK;\n}\n\n", out);
}

/* ---- exchanges (plan.h, EXCHANGE) ---- */

/* An index map as literals: the bits of `var` that m keeps where they are,
 * then a term per other column. */
static void emit_index_map(FILE *out, const F2Mat *m, const char *var) {
    uint64_t keep = 0;
    for (int i = 0; i < m->n; i++)
        if (f2_column(m, i) == UINT64_C(1) << i) keep |= UINT64_C(1) << i;
    fprintf(out, "(%s & 0x%llxull)", var, (unsigned long long)keep);
    for (int i = 0; i < m->n; i++)
        if (!(keep >> i & 1))
            fprintf(out, "\n            ^ ((%s >> %d & 1) ? 0x%llxull : 0)", var, i,
                    (unsigned long long)f2_column(m, i));
}

/* The one-element-per-thread kernel of a pack or unpack without a one-pass
 * plan, over one piece's buffer indices v (the piece's bits, from piece_lo
 * ln - h - 1, are `piece`): the pack gathers (from m·v, m the pack's
 * inverse, to v), the unpack scatters (from v to m·v ^ k). With keeps, an
 * element whose target has chunk bits `keep` goes to kout at target ^
 * keep_xor (plan.h, Phase.kept). */
static void emit_move_kernel(FILE *out, const Schedule *s, const Phase *p, const char *name,
                             const F2Mat *m, bool gather, bool keeps) {
    int ns = p->elem->nslots, ln = p->n - s->gpu_log, lo = p->piece_lo;
    fprintf(out, "static __global__ void %s(", name);
    for (int k = 0; k < ns; k++)
        fprintf(out, "const %s *__restrict__ in%d, ", prim_ctype(elem_slot_prim(p->elem, k)), k);
    for (int k = 0; k < ns; k++)
        fprintf(out, "%s *__restrict__ out%d, ", prim_ctype(elem_slot_prim(p->elem, k)), k);
    for (int k = 0; keeps && k < ns; k++)
        fprintf(out, "%s *__restrict__ kout%d, ", prim_ctype(elem_slot_prim(p->elem, k)), k);
    fprintf(out, "%sconst uint64_t k, const uint64_t piece)\n{\n",
            keeps ? "const uint64_t keep, const uint64_t keep_xor, " : "");
    fprintf(out,
            "    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < %lluull;"
            " i += (uint64_t)gridDim.x * blockDim.x) {\n",
            1ULL << (ln - p->piece_log));
    fprintf(out, "        const uint64_t v = (i >> %d << %d) | piece << %d | (i & 0x%llxull);\n",
            lo, lo + p->piece_log, lo, (unsigned long long)f2_mask(lo));
    fputs(gather ? "        const uint64_t to = v, from = k ^ "
                 : "        const uint64_t from = v, to = k ^ ",
          out);
    emit_index_map(out, m, "v");
    fputs(";\n", out);
    if (keeps) {
        fprintf(out, "        if ((to >> %d) == keep) {\n", ln - p->chunk_log);
        for (int k = 0; k < ns; k++)
            fprintf(out, "            kout%d[to ^ keep_xor] = in%d[from];\n", k, k);
        fputs("            continue;\n        }\n", out);
    }
    for (int k = 0; k < ns; k++) fprintf(out, "        out%d[to] = in%d[from];\n", k, k);
    fputs("    }\n}\n\n", out);
}

/* The planes of buffer `buf` as arguments, typed. */
static void emit_plane_list(FILE *out, const Phase *p, const char *buf, bool input) {
    for (int j = 0; j < p->elem->nslots; j++)
        fprintf(out, "(%s%s *)%s[%d], ", input ? "const " : "",
                prim_ctype(elem_slot_prim(p->elem, j)), buf, j);
}

/* The launch of emit_move_kernel's kernel for piece `piece`, indented by
 * ind; keep: the run-time chunk and xor (NULL: none). */
static void emit_move_launch(FILE *out, const char *ind, const Schedule *s, const Phase *p,
                             const char *name, const char *src, const char *dst,
                             const char *keep_buf, const char *k, const char *piece) {
    fprintf(out, "%s%s<<<%llu, 256, 0, ctx->stream>>>(", ind, name, p->grid_blocks);
    emit_plane_list(out, p, src, true);
    emit_plane_list(out, p, dst, false);
    if (keep_buf) {
        emit_plane_list(out, p, keep_buf, false);
        fputs("keep, keep_xor, ", out);
    }
    fprintf(out, "%s, %s);\n%sPARM_CHECK(ctx, cudaGetLastError());\n", k, piece, ind);
}

/* The one-pass kernels of a pack or unpack, a slot each: NAME_<kernel>_launch,
 * kernel a format of the slot (its %d); keep_buf: the second output's
 * buffer (the kernels keep), piece: the piece's expression (pieces). */
static void emit_plan_launches(FILE *out, const char *ind, const Phase *p, const char *name,
                               const char *kernel, const char *src, const char *dst,
                               const char *keep_buf, const char *piece) {
    for (int k = 0; k < p->elem->nslots; k++) {
        const char *t = prim_ctype(elem_slot_prim(p->elem, k));
        fprintf(out, "%sPARM_CHECK(ctx, %s_", ind, name);
        fprintf(out, kernel, k);
        fprintf(out, "_launch((const %s *)%s[%d], (%s *)%s[%d], ", t, src, k, t, dst, k);
        if (keep_buf) fprintf(out, "(%s *)%s[%d], keep, keep_xor, ", t, keep_buf, k);
        if (p->piece_log) fprintf(out, "%s, ", piece);
        fputs("ctx->stream));\n", out);
    }
}

static void emit_int_table(FILE *out, const char *name, const int *v, int count) {
    fprintf(out, "    static const int %s[%d] = {", name, count);
    for (int i = 0; i < count; i++) fprintf(out, "%s%d", i ? ", " : "", v[i]);
    fputs("};\n", out);
}

/* The bytes of one run of a piece of a chunk of slot k (plan.h, Phase.piece_lo). */
static unsigned long long run_bytes(const Phase *p, int k) {
    return (unsigned long long)(prim_bits(elem_slot_prim(p->elem, k)) / 8) << p->piece_lo;
}

/* One side of piece `k`'s NCCL group: for every chunk (slot v) whose
 * partner (table[r << h | v]) is another rank, a call per field and run. */
static void emit_piece_side(FILE *out, const Phase *p, int h, int runs, const char *call,
                            const char *cast, const char *buf, const char *table, char v) {
    fprintf(out,
            "        for (int %c = 0; %c < %d; %c++) {\n"
            "            if (%s[r << %d | %c] == r) continue;\n"
            "            for (size_t j = 0; j < %du; j++) {\n",
            v, v, 1 << h, v, table, h, v, 1 << runs);
    for (int k = 0; k < p->elem->nslots; k++)
        fprintf(out,
                "                PARM_NCCL(ctx, %s((%s)%s[%d] + (((size_t)%c << %d | j) << %d | "
                "(size_t)k) * 0x%llxull, "
                "0x%llxull, ncclInt8, %s[r << %d | %c], ctx->comm, ctx->comm_stream));\n",
                call, cast, buf, k, v, runs, p->piece_log, run_bytes(p, k), run_bytes(p, k), table,
                h, v);
    fputs("            }\n        }\n", out);
}

/* Piece `k` of the chunks between the ranks: one NCCL group on the
 * communication stream, a ncclSend per field and chunk sent, a ncclRecv per
 * field and chunk received (the kept chunk is the pack's). */
static void emit_piece_group(FILE *out, const Schedule *s, const Phase *p, const char *send,
                             const char *recv) {
    int h = p->chunk_log, runs = p->n - s->gpu_log - h - p->piece_log - p->piece_lo;
    /* run j of piece k of chunk (slot) t: elements (t, j, k, 0) of the offset's bits */
    fputs("        PARM_NCCL(ctx, ncclGroupStart());\n", out);
    emit_piece_side(out, p, h, runs, "ncclSend", "const char *", send, "to", 't');
    emit_piece_side(out, p, h, runs, "ncclRecv", "char *", recv, "from", 'q');
    fputs("        PARM_NCCL(ctx, ncclGroupEnd());\n", out);
}

/* The unpack of piece `piece` (or of everything, without pieces), indented
 * by ind (four spaces, or eight in the loop over the pieces). */
static void emit_unpack_launch(FILE *out, const char *ind, const Schedule *s, const Phase *p,
                               const char *name, const char *recv, const char *piece) {
    Arena names = {0};
    const char *inner = ind[4] ? "            " : "        ";
    if (p->unpack_plans) {
        fprintf(out, "%sswitch (ctx->rank) {\n", ind);
        for (int d = 0; d < 1 << s->gpu_log; d++) {
            fprintf(out, "%scase %d:\n", ind, d);
            emit_plan_launches(out, inner, p, name,
                               arena_printf(&names, "unpack%%d_r%d", emit_unpack_kernel_of(p, d)),
                               recv, "dst", NULL, piece);
            fprintf(out, "%sbreak;\n", inner);
        }
        fprintf(out, "%s}\n", ind);
    } else if (p->unpacks) {
        fprintf(out, "%sstatic const uint64_t uk[%d] = {", ind, 1 << s->gpu_log);
        for (int d = 0; d < 1 << s->gpu_log; d++)
            fprintf(out, "%s0x%llxull", d ? ", " : "", (unsigned long long)p->unpack_const[d]);
        fputs("};\n", out);
        emit_move_launch(out, ind, s, p, arena_printf(&names, "%s_unpack", name), recv, "dst", NULL,
                         "uk[ctx->rank]", piece);
    }
    arena_free(&names);
}

/* The kernels of an exchange: the pack's (with a second output, the
 * receive buffer, for the kept chunk) and the unpack's. */
static void emit_exchange_kernels(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    Arena names = {0};
    emit_exchange_kernel_plans(out, s, p, name, bmmc_emit_cuda);
    if (p->packs && !p->pack_plans)
        emit_move_kernel(out, s, p, arena_printf(&names, "%s_pack", name), &p->pack_inv, true,
                         true);
    if (p->unpacks && !p->unpack_plans)
        emit_move_kernel(out, s, p, arena_printf(&names, "%s_unpack", name), &p->unpack, false,
                         false);
    arena_free(&names);
}

/* An exchange (plan.h, EXCHANGE): its kernels, and a host function that
 * runs its steps (emit_cuda_exchange_step). */
static void emit_exchange(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    emit_exchange_kernels(out, s, p, name);
    fprintf(
        out,
        "static int %s(parm_ctx *ctx, const void *const *src, void *const *dst, void *const *xs, "
        "void *const *xr)\n{\n"
        "    (void)xs;\n    (void)xr;\n",
        name);
    emit_exchange_steps(out, s, p, name, &target_cuda);
    fputs("    return PARM_OK;\n}\n\n", out);
}

/* The buffers an exchange sends from and receives into (plan.h, EXCHANGE). */
static const char *send_buf(const Phase *p) { return p->packs ? "xs" : "src"; }
static const char *recv_buf(const Phase *p) {
    return !p->crosses ? send_buf(p) : p->unpacks ? "xr" : "dst";
}

/* The routing tables and the chunk the rank keeps: its chunk bits and
 * where they move it (plan.h, Phase.kept). */
static void emit_exchange_tables(FILE *out, const Schedule *s, const Phase *p) {
    int g = s->gpu_log, h = p->chunk_log, ln = p->n - g;
    emit_int_table(out, "to", p->send_to, 1 << (g + h));
    emit_int_table(out, "slot", p->send_slot, 1 << (g + h));
    emit_int_table(out, "from", p->recv_from, 1 << (g + h));
    emit_int_table(out, "kept", p->kept, 1 << g);
    fputs("    const int r = ctx->rank;\n", out);
    fprintf(out,
            "    const uint64_t keep = kept[r] >= 0 ? (uint64_t)kept[r] : ~0ull;\n"
            "    const uint64_t keep_xor = kept[r] >= 0 ? (uint64_t)(kept[r] ^ slot[r << %d | "
            "kept[r]]) << %d : 0;\n"
            "    (void)keep;\n    (void)keep_xor;\n",
            h, ln - h);
}

static void emit_keep_copy(FILE *out, const Schedule *s, const Phase *p) {
    int h = p->chunk_log, ln = p->n - s->gpu_log;
    fputs("    if (kept[r] >= 0) {\n", out);
    for (int k = 0; k < p->elem->nslots; k++) {
        unsigned long long bytes = (unsigned long long)(prim_bits(elem_slot_prim(p->elem, k)) / 8)
                                   << (ln - h);
        fprintf(out,
                "        PARM_CHECK(ctx, cudaMemcpyAsync((char *)%s[%d] + (size_t)slot[r << %d | "
                "kept[r]] * 0x%llxull, "
                "(const char *)%s[%d] + (size_t)kept[r] * 0x%llxull, 0x%llxull, "
                "cudaMemcpyDeviceToDevice, ctx->stream));\n",
                recv_buf(p), k, h, bytes, send_buf(p), k, bytes, bytes);
    }
    fputs("    }\n", out);
}

/* An exchange's host step (plan.h, ExchangeStep) on the CUDA target: the
 * caller's stream packs piece k and records packed[k]; the communication
 * stream, forked from the caller's stream (so that it finds the phase's
 * input written and the receive buffer read by the phase before), waits
 * for it, sends and receives the piece in one NCCL group and records
 * received[k]; the caller's stream waits for that and unpacks the piece.
 * The last wait joins the communication stream back, so later work (and
 * the next exchange, which reuses xs and xr) finds the transfers done. */
void emit_cuda_exchange_step(FILE *out, const Schedule *s, const Phase *p, const char *name,
                             const ExchangeStep *step) {
    Arena names = {0};
    const char *ind = step->in_loop ? "        " : "    ";
    switch (step->kind) {
    case XSTEP_TABLES: emit_exchange_tables(out, s, p); break;
    case XSTEP_FORK:
        fputs("    PARM_CHECK(ctx, cudaEventRecord(ctx->fork, ctx->stream));\n"
              "    PARM_CHECK(ctx, cudaStreamWaitEvent(ctx->comm_stream, ctx->fork, 0));\n",
              out);
        break;
    case XSTEP_KEEP_COPY: emit_keep_copy(out, s, p); break;
    case XSTEP_PIECES:
        fprintf(out, "    for (uint64_t k = 0; k < %du; k++) {\n", 1 << p->piece_log);
        break;
    case XSTEP_END: fputs("    }\n", out); break;
    case XSTEP_PACK:
        if (p->pack_plans)
            emit_plan_launches(out, ind, p, name, "pack%d", "src", "xs", recv_buf(p), "k");
        else
            emit_move_launch(out, ind, s, p, arena_printf(&names, "%s_pack", name), "src", "xs",
                             recv_buf(p), "0", "k");
        break;
    case XSTEP_PACKED:
        fprintf(out,
                "%sPARM_CHECK(ctx, cudaEventRecord(ctx->packed[k], ctx->stream));\n"
                "%sPARM_CHECK(ctx, cudaStreamWaitEvent(ctx->comm_stream, ctx->packed[k], 0));\n",
                ind, ind);
        break;
    case XSTEP_SEND_RECV: emit_piece_group(out, s, p, send_buf(p), recv_buf(p)); break;
    case XSTEP_RECEIVED:
        fprintf(out, "%sPARM_CHECK(ctx, cudaEventRecord(ctx->received[k], ctx->comm_stream));\n",
                ind);
        break;
    case XSTEP_WAIT_RECEIVED:
        fprintf(out, "%sPARM_CHECK(ctx, cudaStreamWaitEvent(ctx->stream, ctx->received[k], 0));\n",
                ind);
        break;
    case XSTEP_UNPACK:
        emit_unpack_launch(out, ind, s, p, name, recv_buf(p), step->in_loop ? "k" : "0");
        break;
    }
    arena_free(&names);
}

/* With ranks: a context of NAME_ctx_create_nccl, and the exchanges' send
 * and receive buffers xs and xr in the chain's scratch. */
static void emit_exchange_buffers(FILE *out, const Schedule *s) {
    fputs("    if (!ctx->comm) return PARM_ERROR_NULL;   /* a context of NAME_ctx_create_nccl */\n",
          out);
    for (int x = 0; x < 2; x++) {
        fprintf(out, "    void *const %s[%d] = {", x ? "xr" : "xs", s->nx ? s->nx : 1);
        for (int k = 0; k < s->nx; k++)
            fprintf(out, "%sscratch + 0x%llxu", k ? ", " : "", x ? s->xr_off[k] : s->xs_off[k]);
        if (!s->nx) fputs("NULL", out);
        fputs("};\n", out);
    }
}

/* ---- the target's chain functions (emit_target.h) ---- */

/* A chain too small to split (Schedule.whole_log) on this rank: every
 * rank's slice of the input gathered into the rank's whole input (one
 * ncclAllGather a plane, in rank order), the one-GPU phases (NAME_whole)
 * from it into its whole result, and its own slice of that copied out. */
void emit_cuda_whole_body(FILE *out, const Schedule *s, const char *fname) {
    const ElemType *in = s->in_elem, *res = s->out_elem;
    int ln = s->n - s->whole_log;
    fputs("    if (!ctx->comm) return PARM_ERROR_NULL;   /* a context of NAME_ctx_create_nccl */\n"
          "    int status = PARM_OK;\n",
          out);
    for (int k = 0; k < in->nslots; k++)
        fprintf(out,
                "    PARM_NCCL(ctx, ncclAllGather(in[%d], scratch + 0x%llxu, 0x%llxu, ncclInt8, "
                "ctx->comm, ctx->stream));\n",
                k, s->whole_in_off[k],
                (unsigned long long)(prim_bits(elem_slot_prim(in, k)) / 8) << ln);
    fprintf(out, "    const void *const whole_in[%d] = {", in->nslots);
    for (int k = 0; k < in->nslots; k++)
        fprintf(out, "%sscratch + 0x%llxu", k ? ", " : "", s->whole_in_off[k]);
    fprintf(out, "};\n    void *const whole_out[%d] = {", res->nslots);
    for (int k = 0; k < res->nslots; k++)
        fprintf(out, "%sscratch + 0x%llxu", k ? ", " : "", s->whole_out_off[k]);
    fprintf(out, "};\n    if ((status = %s_whole(ctx, whole_in, whole_out, scratch", fname);
    emit_arg_values(out, s);
    fputs("))) return status;\n", out);
    for (int k = 0; k < res->nslots; k++) {
        unsigned long long bytes = (unsigned long long)(prim_bits(elem_slot_prim(res, k)) / 8)
                                   << ln;
        fprintf(
            out,
            "    PARM_CHECK(ctx, cudaMemcpyAsync(out[%d], scratch + 0x%llxu + (size_t)ctx->rank * "
            "0x%llxull, 0x%llxull, "
            "cudaMemcpyDeviceToDevice, ctx->stream));\n",
            k, s->whole_out_off[k], bytes, bytes);
    }
    fputs("    return PARM_OK;\n}\n\n", out);
}

void emit_cuda_phase_call(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    fprintf(out, "    if ((status = %s(ctx, (const void *const *)%s, %s%s", name,
            plan_buf_name(p->src), plan_buf_name(p->dst),
            emit_phase_reduces(s, p) ? ", partial" : "");
    if (p->kind == PHASE_EXCHANGE) fputs(", xs, xr", out);
    else emit_arg_values(out, s);
    fputs("))) return status;\n", out);
}

/* The status that the phases' calls pass on: a chain of no phases (a copy)
 * has none, which nvcc would warn of as set but never used. */
void emit_cuda_exec_start(FILE *out, const Schedule *s) {
    if (s->nphases) fputs("    int status = PARM_OK;\n", out);
    fputs("    (void)scratch;\n", out);
    if (s->gpu_log) emit_exchange_buffers(out, s);
}

void (*const emit_cuda_phases[])(FILE *, const Schedule *, const Phase *, const char *) = {
    [PHASE_LOCAL] = emit_local,
    [PHASE_PERMUTE] = emit_permute,
    [PHASE_MAP] = emit_map,
    [PHASE_EXCHANGE] = emit_exchange,
};
