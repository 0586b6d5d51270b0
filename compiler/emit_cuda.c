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
        fprintf(out, "    const uint64_t b = %s | parm_rank << %d;\n", tile, p->block_log - s->gpu_log);
    else
        fprintf(out, "    const uint64_t b = %s;\n", tile);
    fputs("    const uint64_t x0 = 0", out);
    for (int k = 0; k < p->block_log; k++)
        fprintf(out, "\n        ^ ((b >> %d & 1) ? 0x%llxull : 0)", k, (unsigned long long)p->block_cols[k]);
    if (s->gpu_log) fprintf(out, "\n        & 0x%llxull", (unsigned long long)f2_mask(p->n - s->gpu_log));
    fputs(";\n", out);
}

/* ", const uint64_t parm_rank" with ranks: a kernel's first scalar. */
static void emit_rank_param(FILE *out, const Schedule *s) {
    if (s->gpu_log) fputs(", const uint64_t parm_rank", out);
}

/* The memory offset of u = tid | i << t: a per-thread part and literals. */
static void emit_thread_offset(FILE *out, const Phase *p, int t) {
    fputs("    uint64_t xt = x0", out);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n        ^ ((tid >> %d & 1) ? 0x%llxull : 0)", i, (unsigned long long)p->tile_cols[i]);
    fputs(";\n", out);
}

static uint64_t high_offset(const Phase *p, int t, unsigned i) {
    return f2_combine(p->tile_cols + t, p->tile_log - t, i);
}

/* The slot of tile element tid: a per-thread XOR of swizzled columns. */
static void emit_thread_slot(FILE *out, const Phase *p, int t) {
    fputs("    unsigned st = 0", out);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n        ^ ((tid >> %d & 1) ? 0x%llxu : 0)", i,
                (unsigned long long)plan_slot(p, UINT64_C(1) << i));
    fputs(";\n", out);
}

/* plane[index] = value, or for the last phase of an entry of any length
 * only inside the shape. */
static void emit_global_store(FILE *out, const Schedule *s, const Phase *p, int k, const char *index, const char *value) {
    if (!emit_pad_stores(s, p)) {
        fprintf(out, "    out%d[%s] = %s;\n", k, index, value);
        return;
    }
    Arena scratch = {0};
    fprintf(out, "    if (%s) out%d[%s] = %s;\n", emit_pad_inside(&scratch, s, index), k, emit_pad_at(&scratch, s, index),
            value);
    arena_free(&scratch);
}

/* in<k>[index], or for the first phase of an entry of any length the pad
 * outside the shape. */
static const char *global_load(Arena *a, const Schedule *s, const Phase *p, int k, const char *index) {
    return emit_pad_loads(s, p) ? emit_pad_load(a, s, k, arena_printf(a, "in%d", k), index)
                                : arena_printf(a, "in%d[%s]", k, index);
}

/* The tile copies in 16-byte vectors (Phase.vec_log) when every plane they
 * read or write is 16-byte aligned, else the element-wise copies that
 * follow (closed by the caller): thread tid, iteration i moves the vector of
 * tile elements j | tid << v | i << (t + v), consecutive in memory, between
 * registers and the elements' slots (the swizzle keeps each element's
 * stores conflict-free, schedule.c). */
static void emit_vector_copy(FILE *out, const Phase *p, int t, bool load) {
    int ns = p->elem->nslots, v = p->vec_log;
    fputs("    if (", out);
    for (int k = 0; k < ns; k++) fprintf(out, "%sPARM_ALIGNED16(%s%d)", k ? " && " : "", load ? "in" : "out", k);
    fputs(") {\n        const uint64_t xv = x0", out);
    uint64_t xbits = block_bits(p, p->block_cols), sbits = 0;
    for (int i = 0; i < t; i++) {
        fprintf(out, "\n            ^ ((tid >> %d & 1) ? 0x%llxull : 0)", i, (unsigned long long)p->tile_cols[v + i]);
        xbits |= p->tile_cols[v + i];
        sbits |= plan_slot(p, UINT64_C(1) << (v + i));
    }
    fputs(";\n        const unsigned sv = 0", out);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n            ^ ((tid >> %d & 1) ? 0x%llxu : 0)", i, (unsigned long long)plan_slot(p, UINT64_C(1) << (v + i)));
    fputs(";\n", out);
    for (unsigned i = 0; i < 1u << (p->tile_log - t - v); i++) {
        uint64_t off = f2_combine(p->tile_cols + t + v, p->tile_log - t - v, i);
        for (int k = 0; k < ns; k++) {
            fprintf(out, "        {\n            %s a[%d];\n", prim_ctype(elem_slot_prim(p->elem, k)), 1 << v);
            if (load) fprintf(out, "            PARM_LOAD16(a, &in%d[xv %c 0x%llxull]);\n", k, emit_index_op(xbits, off),
                              (unsigned long long)off);
            for (unsigned j = 0; j < 1u << v; j++) {
                uint64_t slot = plan_slot(p, j | (uint64_t)i << (t + v));
                char op = emit_index_op(sbits, slot);
                if (load) fprintf(out, "            tile%d[sv %c 0x%llxu] = a[%u];\n", k, op, (unsigned long long)slot, j);
                else fprintf(out, "            a[%u] = tile%d[sv %c 0x%llxu];\n", j, k, op, (unsigned long long)slot);
            }
            if (!load) fprintf(out, "            PARM_STORE16(&out%d[xv %c 0x%llxull], a);\n", k, emit_index_op(xbits, off),
                               (unsigned long long)off);
            fputs("        }\n", out);
        }
    }
    fputs("    } else {\n", out);
}

static void emit_copy_tile(FILE *out, const Schedule *s, const Phase *p, int t, bool load) {
    int ns = p->elem->nslots;
    if (p->vec_log) emit_vector_copy(out, p, t, load);
    /* the write-back computes its addresses again: kept alive from the load
       through every round, they spill (0.56 against 0.40 ms, batched) */
    if (!load) fputs("    PARM_REMAT(st);\n    PARM_REMAT64(xt);\n", out);
    uint64_t xbits = block_bits(p, p->block_cols) | tile_bits(p, p->tile_cols, t, false);
    uint64_t sbits = 0;
    for (int i = 0; i < t; i++) sbits |= plan_slot(p, UINT64_C(1) << i);
    for (unsigned i = 0; i < 1u << (p->tile_log - t); i++) {
        uint64_t off = high_offset(p, t, i), slot = plan_slot(p, (uint64_t)i << t);
        char op_x = emit_index_op(xbits, off), op_s = emit_index_op(sbits, slot);
        Arena scratch = {0};
        const char *index = arena_printf(&scratch, "xt %c 0x%llxull", op_x, (unsigned long long)off);
        for (int k = 0; k < ns; k++) {
            const char *tile = arena_printf(&scratch, "tile%d[st %c 0x%llxu]", k, op_s, (unsigned long long)slot);
            if (load) fprintf(out, "    %s = %s;\n", tile, global_load(&scratch, s, p, k, index));
            else emit_global_store(out, s, p, k, index, tile);
        }
        arena_free(&scratch);
    }
    if (p->vec_log) fputs("    }\n", out);
}

/* The write into the next layout in 16-byte vectors (Phase.vec_write) when
 * every output plane is 16-byte aligned, else the element-wise write that
 * follows (closed by the caller): thread tid, iteration i writes the vector
 * of output coordinates j | tid << v | i << (t + v), loading each element
 * from its slot; the complement's low bits c put coordinate j at position
 * j ^ c of the vector. */
static void emit_vector_write(FILE *out, const Phase *p, int t) {
    int ns = p->elem->nslots, v = p->vec_log;
    unsigned c = (unsigned)(p->write_compl & f2_mask(v));
    fputs("    if (", out);
    for (int k = 0; k < ns; k++) fprintf(out, "%sPARM_ALIGNED16(out%d)", k ? " && " : "", k);
    fprintf(out, ") {\n        const uint64_t zv = 0x%llxull", (unsigned long long)(p->write_compl & ~f2_mask(v)));
    uint64_t zbits = (p->write_compl & ~f2_mask(v)) | block_bits(p, p->out_block_cols), gbits = 0;
    for (int k = 0; k < p->block_log; k++)
        fprintf(out, "\n            ^ ((b >> %d & 1) ? 0x%llxull : 0)", k, (unsigned long long)p->out_block_cols[k]);
    for (int i = 0; i < t; i++) {
        fprintf(out, "\n            ^ ((tid >> %d & 1) ? 0x%llxull : 0)", i, (unsigned long long)p->out_cols[v + i]);
        zbits |= p->out_cols[v + i];
        gbits |= plan_slot(p, p->src_cols[v + i]);
    }
    fputs(";\n        const unsigned gv = 0", out);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n            ^ ((tid >> %d & 1) ? 0x%llxu : 0)", i, (unsigned long long)plan_slot(p, p->src_cols[v + i]));
    fputs(";\n", out);
    for (unsigned i = 0; i < 1u << (p->tile_log - t - v); i++) {
        uint64_t z = f2_combine(p->out_cols + t + v, p->tile_log - t - v, i);
        for (int k = 0; k < ns; k++) {
            fprintf(out, "        {\n            %s a[%d];\n", prim_ctype(elem_slot_prim(p->elem, k)), 1 << v);
            for (unsigned j = 0; j < 1u << v; j++) {
                uint64_t g = plan_slot(p, f2_combine(p->src_cols, p->tile_log, j | (uint64_t)i << (t + v)));
                fprintf(out, "            a[%u] = tile%d[gv %c 0x%llxu];\n", j ^ c, k, emit_index_op(gbits, g),
                        (unsigned long long)g);
            }
            fprintf(out, "            PARM_STORE16(&out%d[zv %c 0x%llxull], a);\n        }\n", k, emit_index_op(zbits, z),
                    (unsigned long long)z);
        }
    }
    fputs("    } else {\n", out);
}

/* The tile to the next layout: output coordinate sigma = tid | i << t goes
 * to z0 ^ Z·sigma and comes from tile element G·sigma. */
static void emit_permuted_write(FILE *out, const Schedule *s, const Phase *p, int t) {
    int ns = p->elem->nslots;
    if (p->vec_write) emit_vector_write(out, p, t);
    fprintf(out, "    uint64_t zt = 0x%llxull", (unsigned long long)p->write_compl);
    for (int k = 0; k < p->block_log; k++)
        fprintf(out, "\n        ^ ((b >> %d & 1) ? 0x%llxull : 0)", k, (unsigned long long)p->out_block_cols[k]);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n        ^ ((tid >> %d & 1) ? 0x%llxull : 0)", i, (unsigned long long)p->out_cols[i]);
    if (s->gpu_log) fprintf(out, ";\n    zt &= 0x%llxull", (unsigned long long)f2_mask(p->n - s->gpu_log));
    fputs(";\n    unsigned gt = 0", out);
    for (int i = 0; i < t; i++)
        fprintf(out, "\n        ^ ((tid >> %d & 1) ? 0x%llxu : 0)", i,
                (unsigned long long)plan_slot(p, p->src_cols[i]));
    fputs(";\n    PARM_REMAT64(zt);\n    PARM_REMAT(gt);\n", out);
    uint64_t zbits = p->write_compl | block_bits(p, p->out_block_cols) | tile_bits(p, p->out_cols, t, false);
    uint64_t gbits = tile_bits(p, p->src_cols, t, true);
    for (unsigned i = 0; i < 1u << (p->tile_log - t); i++) {
        uint64_t z = 0, g = 0;
        for (int bit = t; bit < p->tile_log; bit++)
            if (i >> (bit - t) & 1) {
                z ^= p->out_cols[bit];
                g ^= p->src_cols[bit];
            }
        uint64_t gs = plan_slot(p, g);
        Arena scratch = {0};
        const char *index = arena_printf(&scratch, "zt %c 0x%llxull", emit_index_op(zbits, z), (unsigned long long)z);
        for (int k = 0; k < ns; k++)
            emit_global_store(out, s, p, k, index,
                              arena_printf(&scratch, "tile%d[gt %c 0x%llxu]", k, emit_index_op(gbits, gs),
                                           (unsigned long long)gs));
        arena_free(&scratch);
    }
    if (p->vec_write) fputs("    }\n", out);
}

static int slot_bytes(const ElemType *t, int k) { return prim_bits(elem_slot_prim(t, k)) / 8; }

/* Where slot k's plane starts in shared memory: the planes lie widest slot
 * first, so that each starts at a multiple of its element size (a 1-byte
 * plane of 2 elements before a float plane would misalign the floats). */
static int tile_plane_offset(const Phase *p, int k) {
    int offset = 0, size = slot_bytes(p->elem, k);
    for (int j = 0; j < p->elem->nslots; j++) {
        int other = slot_bytes(p->elem, j);
        if (other > size || (other == size && j < k)) offset += other << p->tile_log;
    }
    return offset;
}

/* The reduce fused into this phase (Schedule.reduce): after the write-back
 * the tile is still whole in shared memory; thread tid reduces slots tid,
 * tid + T, ... (consecutive words across the warp), the block its threads'
 * subtotals, and thread 0 writes the block's partial. The operator is
 * commutative, so no order matters. */
static void emit_tile_reduce(FILE *out, const Schedule *s, const Phase *p, int t) {
    const IrStmt *r = s->reduce;
    fputs("    { /* the fused reduce */\n", out);
    for (int k = 0; k < r->nres; k++)
        fprintf(out, "    %s v%d = tile%d[tid], nv%d;\n", prim_ctype(emit_reduce_prim(r, k)), k, k, k);
    fprintf(out, "    for (unsigned j = 1; j < %uu; j++) {\n", 1u << (p->tile_log - t));
    Arena scratch = {0};
    emit_reduce_apply(out, r, "v%d", arena_printf(&scratch, "tile%%d[tid + (j << %d)]", t), "nv%d", 8);
    arena_free(&scratch);
    for (int k = 0; k < r->nres; k++) fprintf(out, "        v%d = nv%d;\n", k, k);
    fputs("    }\n", out);
    emit_reduce_block_tree(out, r, t);
    fputs("    if (threadIdx.x == 0) {\n", out);
    for (int k = 0; k < r->nres; k++) fprintf(out, "        q%d[b] = v%d;\n", k, k);
    fputs("    }\n    }\n", out);
}

static int tile_bytes(const Phase *p) { return elem_bytes(p->elem) << p->tile_log; }

/* An H100 SM: shared memory (of which the system takes 1 KB per block)
 * and resident threads. */
#define SM_SHARED_BYTES (228 * 1024)
#define BLOCK_RESERVED_BYTES 1024
#define SM_THREADS_LOG 11

static int tile_buffers(const Phase *p) { return p->buffers > 1 ? p->buffers : 1; }

/* The blocks per SM that the launch bounds ask for. Two: measured 9% faster
 * on the 2^24 sort despite small spills. A kernel that reads or writes an
 * entry of any length computes a guarded address per element, and at 64
 * registers spills 3 times as much: one block per SM took 2^20 padded rows
 * of 2^10 from 12.70 to 7.93 ms on an H100
 * (bench/results/2026-11-23-anylen-launch-bounds.md). A tile above 113 KB
 * (--tile-bytes), or two buffers of 64 KB (--tile-buffers), leave room for
 * one block, and so do 2^11 threads: asking for two would only halve the
 * registers. A persistent kernel (--tile-buffers) asks for the blocks that
 * 128 registers per thread leave room for, at least two: its loop keeps
 * more alive than one tile's code, and without a bound the 2^7 threads of
 * a batched sort's kernel took 168 registers (3 blocks per SM; the kernel
 * of one tile takes 86); at 96 they spill. */
#define PERSISTENT_REGS 128
#define SM_REGS 65536
static int blocks_per_sm(const Schedule *s, const Phase *p) {
    int want = emit_pad_loads(s, p) || emit_pad_stores(s, p) ? 1 : 2;
    if (tile_buffers(p) > 1 && SM_REGS / (PERSISTENT_REGS << threads_log(p)) > want)
        want = SM_REGS / (PERSISTENT_REGS << threads_log(p));
    int fit = SM_SHARED_BYTES / (tile_buffers(p) * tile_bytes(p) + BLOCK_RESERVED_BYTES);
    if (fit > 1 << (SM_THREADS_LOG - threads_log(p))) fit = 1 << (SM_THREADS_LOG - threads_log(p));
    return want < fit ? want : fit > 0 ? fit : 1;
}

/* The kernel's signature, its shared memory and scalar arguments. */
static void emit_local_head(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    int ns = p->elem->nslots;
    fprintf(out, "static __global__ void __launch_bounds__(%d, %d)\n%s_kernel(", 1 << threads_log(p),
            blocks_per_sm(s, p), name);
    /* in and out alias when the phase writes in place: no __restrict__ */
    const char *restrict_ = p->writes_in_place ? "" : "__restrict__ ";
    for (int k = 0; k < ns; k++)
        fprintf(out, "%sconst %s *%sin%d", k ? ", " : "", prim_ctype(elem_slot_prim(p->elem, k)), restrict_, k);
    for (int k = 0; k < ns; k++) fprintf(out, ", %s *%sout%d", prim_ctype(elem_slot_prim(p->elem, k)), restrict_, k);
    if (emit_phase_reduces(s, p)) emit_partial_params(out, s, true);
    emit_rank_param(out, s);
    emit_arg_params(out, s);
    fputs(")\n{\n    extern __shared__ __align__(16) unsigned char parm_shared[];\n", out);
    emit_arg_loads(out, s);
    fputs("    const unsigned tid = threadIdx.x;\n", out);
}

/* The planes of the tile in shared memory buffer `buf` (an expression;
 * NULL: the one buffer). */
static void emit_tile_planes(FILE *out, const Phase *p, const char *buf) {
    for (int k = 0; k < p->elem->nslots; k++) {
        const char *ty = prim_ctype(elem_slot_prim(p->elem, k));
        fprintf(out, "    %s *tile%d = (%s *)(parm_shared + ", ty, k, ty);
        if (buf) fprintf(out, "%s * %du + ", buf, tile_bytes(p));
        fprintf(out, "%d);\n", tile_plane_offset(p, k));
    }
}

/* The block's tile b (tile: its grid index) once it is in shared memory:
 * the register rounds, the write, the fused reduce. */
static void emit_tile_work(FILE *out, const Schedule *s, const Phase *p, const char *tile) {
    int t = threads_log(p);
    emit_block_origin(out, s, p, tile);
    Arena scratch = {0};
    for (int i = 0; i < p->nsteps; i++) {
        const Step *st = &p->steps[i];
        const char *b = "b";
        if (st->group_log == 1)
            fprintf(out, "    const int blockpar%d = %s;\n", i,
                    emit_parity(&scratch, 1, &b, &st->order_block[0], NULL, (int)(st->order_const & 1)));
        for (int j = 0; st->group_log > 1 && j < st->group_log; j++)
            fprintf(out, "    const int blockpar%d_%d = %s;\n", i, j,
                    emit_parity(&scratch, 1, &b, &st->order_block[j], NULL, (int)(st->order_const >> j & 1)));
    }
    arena_free(&scratch);
    if (p->writes_in_place || tile_buffers(p) == 1) {
        emit_thread_offset(out, p, t);
        emit_thread_slot(out, p, t);
    }
    if (tile_buffers(p) == 1) {
        emit_copy_tile(out, s, p, t, true);
        fputs("    __syncthreads();\n", out);
    }
    emit_cuda_local_rounds(out, p);
    if (p->writes_in_place) emit_copy_tile(out, s, p, t, false);
    else emit_permuted_write(out, s, p, t);
    if (emit_phase_reduces(s, p)) emit_tile_reduce(out, s, p, t);
}

/* The tile `tile` (grid index) into shared buffer `buf` with cp.async, one
 * element per copy at its slot, in the thread order of the element-wise
 * load (emit_copy_tile): the same sectors and banks. */
static void emit_async_load(FILE *out, const Schedule *s, const Phase *p, const char *tile, const char *buf) {
    int t = threads_log(p), ns = p->elem->nslots;
    emit_tile_planes(out, p, buf);
    emit_block_origin(out, s, p, tile);
    emit_thread_offset(out, p, t);
    emit_thread_slot(out, p, t);
    uint64_t xbits = block_bits(p, p->block_cols) | tile_bits(p, p->tile_cols, t, false), sbits = 0;
    for (int i = 0; i < t; i++) sbits |= plan_slot(p, UINT64_C(1) << i);
    for (unsigned i = 0; i < 1u << (p->tile_log - t); i++) {
        uint64_t off = high_offset(p, t, i), slot = plan_slot(p, (uint64_t)i << t);
        for (int k = 0; k < ns; k++)
            fprintf(out, "    PARM_CP_ASYNC%d(&tile%d[st %c 0x%llxu], &in%d[xt %c 0x%llxull]);\n", slot_bytes(p->elem, k),
                    k, emit_index_op(sbits, slot), (unsigned long long)slot, k, emit_index_op(xbits, off),
                    (unsigned long long)off);
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
    fprintf(out, "    for (unsigned k = 0; ; k++) {\n"
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
    fprintf(out, "    }\n"
                 "    PARM_CP_COMMIT();\n"
                 "    if (k < %du) continue;\n"
                 "    {\n", n - 1);
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
    for (int k = 0; k < in->nslots; k++) fprintf(out, "%s(const %s *)src[%d]", k ? ", " : "", prim_ctype(elem_slot_prim(in, k)), k);
    for (int k = 0; k < res->nslots; k++) fprintf(out, ", (%s *)dst[%d]", prim_ctype(elem_slot_prim(res, k)), k);
}

static void emit_local(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    emit_local_kernel(out, s, p, name);
    emit_launcher_head(out, s, p, name);
    int bytes = tile_buffers(p) * tile_bytes(p);
    /* a kernel's attributes are per device: set once on each (every time
       on a device past the 64 the mask holds); contexts of several devices
       (the ranks of --gpus) may launch from several threads at once, so the
       mask is read and set atomically (setting an attribute twice is
       harmless) */
    fprintf(out, "    static uint64_t configured;\n"
                 "    const uint64_t device_bit = ctx->device < 64 ? 1ull << ctx->device : 0;\n"
                 "    if (!(__atomic_load_n(&configured, __ATOMIC_ACQUIRE) & device_bit)) {\n"
                 "        PARM_CHECK(ctx, cudaFuncSetAttribute(%s_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, %d));\n"
                 "        __atomic_fetch_or(&configured, device_bit, __ATOMIC_RELEASE);\n    }\n",
            name, bytes);
    /* persistent blocks (Phase.buffers): as many as the SMs hold at once,
       by the occupancy of the kernel as built (its registers), once per
       device (every time on a device past the 64 the array holds) */
    if (tile_buffers(p) > 1) {
        fprintf(out, "    static int resident[64];\n"
                     "    int per_sm = ctx->device < 64 ? __atomic_load_n(&resident[ctx->device], __ATOMIC_RELAXED) : 0;\n"
                     "    if (!per_sm) {\n"
                     "        PARM_CHECK(ctx, cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, %s_kernel, %d, %d));\n"
                     "        if (per_sm < 1) per_sm = 1;\n"
                     "        if (ctx->device < 64) __atomic_store_n(&resident[ctx->device], per_sm, __ATOMIC_RELAXED);\n"
                     "    }\n",
                name, 1 << threads_log(p), bytes);
        fprintf(out, "    %s_kernel<<<parm_persistent_grid(ctx, %lluu, per_sm), %d, %d, ctx->stream>>>(", name,
                1ULL << (p->block_log - s->gpu_log), 1 << threads_log(p), bytes);
    } else

        fprintf(out, "    %s_kernel<<<%lluu, %d, %d, ctx->stream>>>(", name, 1ULL << (p->block_log - s->gpu_log),
                1 << threads_log(p), bytes);
    emit_plane_args(out, p->elem, p->elem);
    for (int k = 0; emit_phase_reduces(s, p) && k < s->reduce->nres; k++)
        fprintf(out, ", (%s *)partial[%d]", prim_ctype(emit_reduce_prim(s->reduce, k)), k);
    emit_rank_value(out, s);
    emit_arg_values(out, s);
    fputs(");\n    PARM_CHECK(ctx, cudaGetLastError());\n    return PARM_OK;\n}\n\n", out);
}

static void emit_map(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    const ElemType *in = p->in_elem, *res = p->elem;
    fprintf(out, "static __global__ void %s_kernel(", name);
    for (int k = 0; k < in->nslots; k++) fprintf(out, "%sconst %s *__restrict__ in%d", k ? ", " : "", prim_ctype(elem_slot_prim(in, k)), k);
    for (int k = 0; k < res->nslots; k++) fprintf(out, ", %s *__restrict__ out%d", prim_ctype(elem_slot_prim(res, k)), k);
    emit_rank_param(out, s);
    emit_arg_params(out, s);
    fputs(")\n{\n", out);
    emit_arg_loads(out, s);
    /* with ranks x is the global index of the rank's element (its position) */
    int ln = p->n - s->gpu_log;
    fprintf(out, "    for (uint64_t xl = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; xl < %lluull;"
                 " xl += (uint64_t)gridDim.x * blockDim.x) {\n", 1ULL << ln);
    if (s->gpu_log) fprintf(out, "        const uint64_t x = xl | parm_rank << %d;\n", ln);
    else fputs("        const uint64_t x = xl;\n", out);
    emit_map_element(out, s, p);
    fputs("    }\n}\n\n", out);
    emit_launcher_head(out, s, p, name);
    unsigned long long blocks = (1ULL << ln) / 256;
    fprintf(out, "    %s_kernel<<<%llu, 256, 0, ctx->stream>>>(", name, blocks ? (blocks > 65536 ? 65536 : blocks) : 1);
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
        fprintf(out, "    PARM_CHECK(ctx, %s_slot%d_launch((const %s *)src[%d], (%s *)dst[%d]%s, ctx->stream));\n", name,
                k, t, k, t, k, s->pad ? ", parm_rows, parm_cols" : "");
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
            fprintf(out, "\n            ^ ((%s >> %d & 1) ? 0x%llxull : 0)", var, i, (unsigned long long)f2_column(m, i));
}

/* The one-element-per-thread kernel of a pack or unpack without a one-pass
 * plan, over one piece's buffer indices v (the piece's bits, from piece_lo
 * ln - h - 1, are `piece`): the pack gathers (from m·v, m the pack's
 * inverse, to v), the unpack scatters (from v to m·v ^ k). With keeps, an
 * element whose target has chunk bits `keep` goes to kout at target ^
 * keep_xor (plan.h, Phase.kept). */
static void emit_move_kernel(FILE *out, const Schedule *s, const Phase *p, const char *name, const F2Mat *m, bool gather,
                             bool keeps) {
    int ns = p->elem->nslots, ln = p->n - s->gpu_log, lo = p->piece_lo;
    fprintf(out, "static __global__ void %s(", name);
    for (int k = 0; k < ns; k++) fprintf(out, "const %s *__restrict__ in%d, ", prim_ctype(elem_slot_prim(p->elem, k)), k);
    for (int k = 0; k < ns; k++) fprintf(out, "%s *__restrict__ out%d, ", prim_ctype(elem_slot_prim(p->elem, k)), k);
    for (int k = 0; keeps && k < ns; k++) fprintf(out, "%s *__restrict__ kout%d, ", prim_ctype(elem_slot_prim(p->elem, k)), k);
    fprintf(out, "%sconst uint64_t k, const uint64_t piece)\n{\n", keeps ? "const uint64_t keep, const uint64_t keep_xor, " : "");
    fprintf(out, "    for (uint64_t i = blockIdx.x * (uint64_t)blockDim.x + threadIdx.x; i < %lluull;"
                 " i += (uint64_t)gridDim.x * blockDim.x) {\n", 1ULL << (ln - p->piece_log));
    fprintf(out, "        const uint64_t v = (i >> %d << %d) | piece << %d | (i & 0x%llxull);\n", lo, lo + p->piece_log, lo,
            (unsigned long long)f2_mask(lo));
    fputs(gather ? "        const uint64_t to = v, from = k ^ " : "        const uint64_t from = v, to = k ^ ", out);
    emit_index_map(out, m, "v");
    fputs(";\n", out);
    if (keeps) {
        fprintf(out, "        if ((to >> %d) == keep) {\n", ln - p->chunk_log);
        for (int k = 0; k < ns; k++) fprintf(out, "            kout%d[to ^ keep_xor] = in%d[from];\n", k, k);
        fputs("            continue;\n        }\n", out);
    }
    for (int k = 0; k < ns; k++) fprintf(out, "        out%d[to] = in%d[from];\n", k, k);
    fputs("    }\n}\n\n", out);
}

/* The planes of buffer `buf` as arguments, typed. */
static void emit_plane_list(FILE *out, const Phase *p, const char *buf, bool input) {
    for (int j = 0; j < p->elem->nslots; j++)
        fprintf(out, "(%s%s *)%s[%d], ", input ? "const " : "", prim_ctype(elem_slot_prim(p->elem, j)), buf, j);
}

/* The launch of emit_move_kernel's kernel for piece `piece`, indented by
 * ind; keep: the run-time chunk and xor (NULL: none). */
static void emit_move_launch(FILE *out, const char *ind, const Schedule *s, const Phase *p, const char *name, const char *src,
                             const char *dst, const char *keep_buf, const char *k, const char *piece) {
    unsigned long long blocks = (1ULL << (p->n - s->gpu_log - p->piece_log)) / 256;
    fprintf(out, "%s%s<<<%llu, 256, 0, ctx->stream>>>(", ind, name, blocks ? (blocks > 65536 ? 65536 : blocks) : 1);
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
static void emit_plan_launches(FILE *out, const char *ind, const Phase *p, const char *name, const char *kernel, const char *src,
                               const char *dst, const char *keep_buf, const char *piece) {
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
static void emit_piece_side(FILE *out, const Phase *p, int h, int runs, const char *call, const char *cast,
                            const char *buf, const char *table, char v) {
    fprintf(out, "        for (int %c = 0; %c < %d; %c++) {\n            if (%s[r << %d | %c] == r) continue;\n"
                 "            for (size_t j = 0; j < %du; j++) {\n", v, v, 1 << h, v, table, h, v, 1 << runs);
    for (int k = 0; k < p->elem->nslots; k++)
        fprintf(out, "                PARM_NCCL(ctx, %s((%s)%s[%d] + (((size_t)%c << %d | j) << %d | (size_t)k) * 0x%llxull, "
                     "0x%llxull, ncclInt8, %s[r << %d | %c], ctx->comm, ctx->comm_stream));\n",
                call, cast, buf, k, v, runs, p->piece_log, run_bytes(p, k), run_bytes(p, k), table, h, v);
    fputs("            }\n        }\n", out);
}

/* Piece `k` of the chunks between the ranks: one NCCL group on the
 * communication stream, a ncclSend per field and chunk sent, a ncclRecv per
 * field and chunk received (the kept chunk is the pack's). */
static void emit_piece_group(FILE *out, const Schedule *s, const Phase *p, const char *send, const char *recv) {
    int h = p->chunk_log, runs = p->n - s->gpu_log - h - p->piece_log - p->piece_lo;
    /* run j of piece k of chunk (slot) t: elements (t, j, k, 0) of the offset's bits */
    fputs("        PARM_NCCL(ctx, ncclGroupStart());\n", out);
    emit_piece_side(out, p, h, runs, "ncclSend", "const char *", send, "to", 't');
    emit_piece_side(out, p, h, runs, "ncclRecv", "char *", recv, "from", 'q');
    fputs("        PARM_NCCL(ctx, ncclGroupEnd());\n", out);
}

/* The unpack of piece `piece` (or of everything, without pieces), indented
 * by ind (four spaces, or eight in the loop over the pieces). */
static void emit_unpack_launch(FILE *out, const char *ind, const Schedule *s, const Phase *p, const char *name, const char *recv,
                               const char *piece) {
    Arena names = {0};
    const char *inner = ind[4] ? "            " : "        ";
    if (p->unpack_plans) {
        fprintf(out, "%sswitch (ctx->rank) {\n", ind);
        for (int d = 0; d < 1 << s->gpu_log; d++) {
            fprintf(out, "%scase %d:\n", ind, d);
            emit_plan_launches(out, inner, p, name, arena_printf(&names, "unpack%%d_r%d", emit_unpack_kernel_of(p, d)), recv, "dst",
                               NULL, piece);
            fprintf(out, "%sbreak;\n", inner);
        }
        fprintf(out, "%s}\n", ind);
    } else if (p->unpacks) {
        fprintf(out, "%sstatic const uint64_t uk[%d] = {", ind, 1 << s->gpu_log);
        for (int d = 0; d < 1 << s->gpu_log; d++) fprintf(out, "%s0x%llxull", d ? ", " : "", (unsigned long long)p->unpack_const[d]);
        fputs("};\n", out);
        emit_move_launch(out, ind, s, p, arena_printf(&names, "%s_unpack", name), recv, "dst", NULL, "uk[ctx->rank]", piece);
    }
    arena_free(&names);
}

/* The kernels of an exchange: the pack's (with a second output, the
 * receive buffer, for the kept chunk) and the unpack's. */
static void emit_exchange_kernels(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    Arena names = {0};
    int ns = p->elem->nslots;
    for (int k = 0; p->pack_plans && k < ns; k++) {
        BmmcPlan pack = p->pack_plans[k];
        pack.keeps = true;
        pack.keep_shift = p->n - s->gpu_log - p->chunk_log;
        bmmc_emit_cuda(out, &pack, arena_printf(&names, "%s_pack%d", name, k), prim_ctype(elem_slot_prim(p->elem, k)), NULL);
    }
    for (int d = 0; p->unpack_plans && d < 1 << s->gpu_log; d++)
        for (int k = 0; emit_unpack_kernel_of(p, d) == d && k < ns; k++)
            bmmc_emit_cuda(out, &p->unpack_plans[d][k], arena_printf(&names, "%s_unpack%d_r%d", name, k, d),
                           prim_ctype(elem_slot_prim(p->elem, k)), NULL);
    F2Mat pack_inv;
    if (p->packs && !p->pack_plans && f2_invert(&p->pack, &pack_inv))
        emit_move_kernel(out, s, p, arena_printf(&names, "%s_pack", name), &pack_inv, true, true);
    if (p->unpacks && !p->unpack_plans) emit_move_kernel(out, s, p, arena_printf(&names, "%s_unpack", name), &p->unpack, false, false);
    arena_free(&names);
}

/* An exchange (plan.h, EXCHANGE), pipelined over its pieces: the caller's
 * stream packs piece k into the send buffer xs (the kept chunk into the
 * receive buffer) and records packed[k]; the communication stream, forked
 * from the caller's stream at the start (so that it finds the phase's
 * input written and the receive buffer read by the phase before), waits
 * for it, sends and receives the piece in one NCCL group and records
 * received[k]; the caller's stream waits for that and unpacks the piece.
 * The last wait joins the communication stream back, so later work (and
 * the next exchange, which reuses xs and xr) finds the transfers done. */
static void emit_exchange(FILE *out, const Schedule *s, const Phase *p, const char *name) {
    Arena names = {0};
    int g = s->gpu_log, h = p->chunk_log, ln = p->n - g, pieces = 1 << p->piece_log;
    emit_exchange_kernels(out, s, p, name);
    fprintf(out, "static int %s(parm_ctx *ctx, const void *const *src, void *const *dst, void *const *xs, void *const *xr)\n{\n"
                 "    (void)xs;\n    (void)xr;\n", name);
    const char *send = p->packs ? "xs" : "src", *recv = !p->crosses ? send : p->unpacks ? "xr" : "dst";
    if (!p->crosses) {
        emit_unpack_launch(out, "    ", s, p, name, recv, "0");
        fputs("    return PARM_OK;\n}\n\n", out);
        arena_free(&names);
        return;
    }
    emit_int_table(out, "to", p->send_to, 1 << (g + h));
    emit_int_table(out, "slot", p->send_slot, 1 << (g + h));
    emit_int_table(out, "from", p->recv_from, 1 << (g + h));
    emit_int_table(out, "kept", p->kept, 1 << g);
    fputs("    const int r = ctx->rank;\n", out);
    /* the kept chunk's chunk bits and where they move it (plan.h, Phase.kept) */
    fprintf(out, "    const uint64_t keep = kept[r] >= 0 ? (uint64_t)kept[r] : ~0ull;\n"
                 "    const uint64_t keep_xor = kept[r] >= 0 ? (uint64_t)(kept[r] ^ slot[r << %d | kept[r]]) << %d : 0;\n"
                 "    (void)keep;\n    (void)keep_xor;\n", h, ln - h);
    fputs("    PARM_CHECK(ctx, cudaEventRecord(ctx->fork, ctx->stream));\n"
          "    PARM_CHECK(ctx, cudaStreamWaitEvent(ctx->comm_stream, ctx->fork, 0));\n", out);
    if (!p->packs) {
        fputs("    if (kept[r] >= 0) {\n", out);
        for (int k = 0; k < p->elem->nslots; k++) {
            unsigned long long bytes = (unsigned long long)(prim_bits(elem_slot_prim(p->elem, k)) / 8) << (ln - h);
            fprintf(out, "        PARM_CHECK(ctx, cudaMemcpyAsync((char *)%s[%d] + (size_t)slot[r << %d | kept[r]] * 0x%llxull, "
                         "(const char *)%s[%d] + (size_t)kept[r] * 0x%llxull, 0x%llxull, cudaMemcpyDeviceToDevice, ctx->stream));\n",
                    recv, k, h, bytes, send, k, bytes, bytes);
        }
        fputs("    }\n", out);
    }
    fprintf(out, "    for (uint64_t k = 0; k < %du; k++) {\n", pieces);
    if (p->pack_plans) {
        emit_plan_launches(out, "        ", p, name, "pack%d", "src", "xs", recv, "k");
    } else if (p->packs) {
        emit_move_launch(out, "        ", s, p, arena_printf(&names, "%s_pack", name), "src", "xs", recv, "0", "k");
    }
    if (p->packs)
        fputs("        PARM_CHECK(ctx, cudaEventRecord(ctx->packed[k], ctx->stream));\n"
              "        PARM_CHECK(ctx, cudaStreamWaitEvent(ctx->comm_stream, ctx->packed[k], 0));\n", out);
    emit_piece_group(out, s, p, send, recv);
    fputs("        PARM_CHECK(ctx, cudaEventRecord(ctx->received[k], ctx->comm_stream));\n    }\n", out);
    fprintf(out, "    for (uint64_t k = 0; k < %du; k++) {\n"
                 "        PARM_CHECK(ctx, cudaStreamWaitEvent(ctx->stream, ctx->received[k], 0));\n", pieces);
    emit_unpack_launch(out, "        ", s, p, name, recv, "k");
    fputs("    }\n    return PARM_OK;\n}\n\n", out);
    arena_free(&names);
}

static void emit_phases(FILE *out, const Schedule *s, const char *fname) {
    Arena names = {0};
    for (int i = 0; i < s->nphases; i++) {
        const char *name = plan_phase_name(&names, fname, i);
        fprintf(out, "/* %s: ", name);
        emit_phase_comment(out, &s->phases[i]);
        fputs(" */\n", out);
        switch (s->phases[i].kind) {
        case PHASE_LOCAL: emit_local(out, s, &s->phases[i], name); break;
        case PHASE_MAP: emit_map(out, s, &s->phases[i], name); break;
        case PHASE_PERMUTE: emit_permute(out, s, &s->phases[i], name); break;
        case PHASE_EXCHANGE: emit_exchange(out, s, &s->phases[i], name); break;
        }
    }
    arena_free(&names);
}

static void emit_phase_calls(FILE *out, const Schedule *s, const char *fname) {
    emit_copy_whole(out, s, true);
    Arena names = {0};
    for (int i = 0; i < s->nphases; i++) {
        fprintf(out, "    if ((status = %s(ctx, (const void *const *)%s, %s%s", plan_phase_name(&names, fname, i),
                plan_buf_name(s->phases[i].src), plan_buf_name(s->phases[i].dst),
                emit_phase_reduces(s, &s->phases[i]) ? ", partial" : "");
        if (s->phases[i].kind == PHASE_EXCHANGE) fputs(", xs, xr", out);
        else emit_arg_values(out, s);
        fputs("))) return status;\n", out);
    }
    arena_free(&names);
    fputs("    return PARM_OK;\n}\n\n", out);
}

/* With ranks, the exchanges' buffers after the plan's scratch: returns
 * their bytes, with xs[k] at off[k] and xr[k] at off[nx + k]. */
static unsigned long long exchange_layout(const Schedule *s, unsigned long long *off, int *nx) {
    unsigned long long bytes[SCHED_MAX_SLOTS], at = (s->scratch_bytes + 255) & ~255ULL;
    *nx = emit_exchange_planes(s, bytes);
    for (int j = 0; j < 2 * *nx; j++) {
        off[j] = at;
        at += (bytes[j % *nx] + 255) & ~255ULL;
    }
    return at - s->scratch_bytes;
}

static void emit_run(FILE *out, const Schedule *s, const char *fname) {
    emit_phases(out, s, fname);
    fprintf(out, "static int %s_run(parm_ctx *ctx, const void *const *in, void *const *out", fname);
    emit_arg_params(out, s);
    fputs(")\n{\n", out);
    unsigned long long off[2 * SCHED_MAX_SLOTS];
    int nx = 0;
    unsigned long long work = s->gpu_log ? exchange_layout(s, off, &nx) : 0;
    if (s->gpu_log) fputs("    if (!ctx->comm) return PARM_ERROR_NULL;   /* a context of NAME_ctx_create_nccl */\n", out);
    emit_run_start(out, s, work, true);
    for (int x = 0; s->gpu_log && x < 2; x++) {
        fprintf(out, "    void *const %s[%d] = {", x ? "xr" : "xs", nx ? nx : 1);
        for (int k = 0; k < nx; k++) fprintf(out, "%sscratch + 0x%llxu", k ? ", " : "", off[x * nx + k]);
        if (!nx) fputs("NULL", out);
        fputs("};\n", out);
    }
    emit_phase_calls(out, s, fname);
}

/* A chain of an entry graph: its scratch is given. */
static void emit_cuda_chain(FILE *out, const Schedule *s, const char *fname) {
    emit_phases(out, s, fname);
    fprintf(out, "static int %s_exec(parm_ctx *ctx, const void *const *in, void *const *out, char *scratch%s", fname,
            s->reduce ? ", void *const *partial" : "");
    emit_arg_params(out, s);
    fputs(")\n{\n    int status = PARM_OK;\n    (void)status;\n    (void)scratch;\n", out);
    emit_scratch_planes(out, s);
    emit_phase_calls(out, s, fname);
}

static unsigned long long no_work(const Schedule *s) {
    (void)s;
    return 0;
}

/* The context: calls run on `stream`, its own non-blocking stream unless
 * the caller set one (docs/api.md). The scratch memory is stream-ordered on
 * `stream`: a change of stream frees it there, behind the calls already
 * queued, and the next call allocates it on the new stream, which the
 * stream-ordered allocator makes safe (memory freed on one stream is
 * reused on another only once that free has happened). */
static const char cuda_context_head[] = "struct {p}_ctx {\n";

/* With ranks (plan.h, "Ranks"): the context of one rank, made from an NCCL
 * communicator of as many ranks as the program was compiled for. NCCL's
 * errors are the ctx's too. */
static const char cuda_context_nccl[] =
    "    ncclComm_t comm;        /* NAME_ctx_create_nccl's */\n"
    "    int rank, nranks;\n"
    "    ncclResult_t nccl;      /* the last NCCL error */\n"
    "    /* an exchange's communication stream, forked from and joined to\n"
    "       `stream` by events, and its per-piece events (emit_exchange) */\n"
    "    cudaStream_t comm_stream;\n"
    "    cudaEvent_t fork, packed[PARM_PIECES], received[PARM_PIECES];\n";

static const char cuda_context_nccl_message[] =
    "const char *{p}_ctx_message(parm_ctx *ctx)\n{\n"
    "    if (!ctx) return \"no context\";\n"
    "    return parm_message(ctx, ctx->nccl != ncclSuccess ? ncclGetErrorString(ctx->nccl) : cudaGetErrorString(ctx->last));\n}\n\n";

static const char cuda_context_nccl_api[] =
    "#define PARM_NCCL(ctx, call) do { ncclResult_t parm_r = (call); \\\n"
    "    if (parm_r != ncclSuccess) { (ctx)->nccl = parm_r; PARM_FAILED(ctx, #call); return PARM_ERROR_CUDA; } } while (0)\n\n"
    "int {p}_ctx_create_nccl(parm_ctx **out, ncclComm_t comm, int rank, int nranks)\n{\n"
    "    if (!comm) return PARM_ERROR_NULL;\n"
    "    int status = {p}_ctx_create(out);\n"
    "    if (status) return status;\n"
    "    if (nranks != {G} || rank < 0 || rank >= nranks) return PARM_ERROR_LENGTH;\n"
    "    parm_ctx *ctx = *out;\n"
    "    ctx->comm = comm;\n    ctx->rank = rank;\n    ctx->nranks = nranks;\n"
    "    /* the communication stream at the highest priority, so that its NCCL\n"
    "       kernels start while the packs and unpacks fill the GPU */\n"
    "    int least, greatest;\n"
    "    PARM_CHECK(ctx, cudaDeviceGetStreamPriorityRange(&least, &greatest));\n"
    "    PARM_CHECK(ctx, cudaStreamCreateWithPriority(&ctx->comm_stream, cudaStreamNonBlocking, greatest));\n"
    "    PARM_CHECK(ctx, cudaEventCreateWithFlags(&ctx->fork, cudaEventDisableTiming));\n"
    "    for (int k = 0; k < PARM_PIECES; k++) {\n"
    "        PARM_CHECK(ctx, cudaEventCreateWithFlags(&ctx->packed[k], cudaEventDisableTiming));\n"
    "        PARM_CHECK(ctx, cudaEventCreateWithFlags(&ctx->received[k], cudaEventDisableTiming));\n"
    "    }\n"
    "    return PARM_OK;\n}\n\n";

/* What ctx_destroy releases of an exchange's: with ranks, the communication
 * stream (once its work is done) and the events. */
static const char cuda_exchange_destroy_nccl[] =
    "#define PARM_PIECES %d   /* the most pieces of an exchange (exchange_plan.h) */\n"
    "#define PARM_EXCHANGE_DESTROY(ctx) do { \\\n"
    "    if ((ctx)->comm_stream) { cudaStreamSynchronize((ctx)->comm_stream); cudaStreamDestroy((ctx)->comm_stream); } \\\n"
    "    if ((ctx)->fork) cudaEventDestroy((ctx)->fork); \\\n"
    "    for (int parm_k = 0; parm_k < PARM_PIECES; parm_k++) { \\\n"
    "        if ((ctx)->packed[parm_k]) cudaEventDestroy((ctx)->packed[parm_k]); \\\n"
    "        if ((ctx)->received[parm_k]) cudaEventDestroy((ctx)->received[parm_k]); \\\n"
    "    } } while (0)\n\n";
static const char cuda_exchange_destroy[] = "#define PARM_EXCHANGE_DESTROY(ctx) ((void)(ctx))\n\n";

static const char cuda_context_message[] =
    "const char *{p}_ctx_message(parm_ctx *ctx) { return ctx ? parm_message(ctx, cudaGetErrorString(ctx->last)) : \"no context\"; }\n\n";

static const char cuda_context[] =
    "    int device;\n"
    "    int sms;                /* the device's SMs: persistent kernels' grids */\n"
    "    int persistent_max;     /* > 0: at most so many persistent blocks */\n"
    "    cudaStream_t own;       /* created with the context */\n"
    "    cudaStream_t stream;    /* the stream calls run on: own or the caller's */\n"
    "    void *scratch;          /* allocated on stream */\n"
    "    size_t scratch_bytes;\n"
    "    cudaError_t last;\n"
    "    const char *call;       /* the failed call's text and line in this file */\n"
    "    int line;\n"
    "    char message[512];      /* {p}_ctx_message's text */\n"
    "};\n\n"
    "/* A failed call's error is the status's: it is cleared from the runtime so\n"
    "   that a later launch check does not find it. The context keeps the call,\n"
    "   which {p}_ctx_message names with the error's text. */\n"
    "#define PARM_FAILED(ctx, text) ((ctx)->call = (text), (ctx)->line = __LINE__)\n"
    "#define PARM_CHECK(ctx, call) do { cudaError_t parm_e = (call); \\\n"
    "    if (parm_e != cudaSuccess) { \\\n"
    "        (ctx)->last = parm_e; PARM_FAILED(ctx, #call); (void)cudaGetLastError(); return PARM_ERROR_CUDA; } } while (0)\n\n"
    "/* \"error (call at line N of FILE)\": the error's text with the failed call. */\n"
    "static const char *parm_message(parm_ctx *ctx, const char *error)\n{\n"
    "    if (!ctx->call) return error;\n"
    "    snprintf(ctx->message, sizeof ctx->message, \"%s (%s at line %d of %s)\", error, ctx->call, ctx->line, __FILE__);\n"
    "    return ctx->message;\n}\n\n"
    "int {p}_ctx_create(parm_ctx **out)\n{\n"
    "    if (!out) return PARM_ERROR_NULL;\n"
    "    parm_ctx *ctx = (parm_ctx *)calloc(1, sizeof *ctx);\n"
    "    *out = ctx;\n"
    "    if (!ctx) return PARM_ERROR_MEMORY;\n"
    "    PARM_CHECK(ctx, cudaGetDevice(&ctx->device));\n"
    "    PARM_CHECK(ctx, cudaDeviceGetAttribute(&ctx->sms, cudaDevAttrMultiProcessorCount, ctx->device));\n"
    "    /* tests: persistent grids of at most PARM_PERSISTENT_BLOCKS blocks, so\n"
    "       that small arrays give each block several tiles (tests/gpu) */\n"
    "    const char *blocks = getenv(\"PARM_PERSISTENT_BLOCKS\");\n"
    "    ctx->persistent_max = blocks ? atoi(blocks) : 0;\n"
    "    PARM_CHECK(ctx, cudaStreamCreateWithFlags(&ctx->own, cudaStreamNonBlocking));\n"
    "    ctx->stream = ctx->own;\n"
    "    return PARM_OK;\n}\n\n"
    "void {p}_ctx_destroy(parm_ctx *ctx)\n{\n"
    "    if (!ctx) return;\n"
    "    if (ctx->scratch) cudaFreeAsync(ctx->scratch, ctx->stream);\n"
    "    PARM_EXCHANGE_DESTROY(ctx);\n"
    "    if (ctx->own) {\n        cudaStreamSynchronize(ctx->own);\n        cudaStreamDestroy(ctx->own);\n    }\n"
    "    free(ctx);\n}\n\n"
    "cudaStream_t {p}_ctx_stream(parm_ctx *ctx) { return ctx ? ctx->stream : 0; }\n\n"
    "/* A warp shuffle of any element type (reductions). */\n"
    "template <typename T> __device__ __forceinline__ T parm_shfl_down(unsigned mask, T v, int delta)\n{\n"
    "    if (sizeof(T) == 8) {\n"
    "        unsigned long long b;\n        memcpy(&b, &v, 8);\n        b = __shfl_down_sync(mask, b, delta);\n"
    "        memcpy(&v, &b, 8);\n        return v;\n    }\n"
    "    unsigned b = 0;\n    memcpy(&b, &v, sizeof(T));\n    b = __shfl_down_sync(mask, b, delta);\n"
    "    memcpy(&v, &b, sizeof(T));\n    return v;\n}\n\n"
    "int {p}_ctx_set_stream(parm_ctx *ctx, cudaStream_t stream)\n{\n"
    "    if (!ctx) return PARM_ERROR_NULL;\n"
    "    if (!stream) stream = ctx->own;\n"
    "    if (stream == ctx->stream) return PARM_OK;\n"
    "#if CUDART_VERSION >= 12080\n"
    "    int device;\n"
    "    PARM_CHECK(ctx, cudaStreamGetDevice(stream, &device));\n"
    "    if (device != ctx->device) return PARM_ERROR_DEVICE;\n"
    "#endif\n"
    "    if (ctx->scratch) PARM_CHECK(ctx, cudaFreeAsync(ctx->scratch, ctx->stream));\n"
    "    ctx->scratch = NULL;\n"
    "    ctx->scratch_bytes = 0;\n"
    "    ctx->stream = stream;\n"
    "    return PARM_OK;\n}\n\n";

static const char cuda_context_tail[] =
    "/* The grid of a persistent kernel (--tile-buffers) of `tiles` tiles: the\n"
    "   blocks that the device's SMs hold at once, at most one per tile. */\n"
    "static inline unsigned long long parm_persistent_grid(const parm_ctx *ctx, unsigned long long tiles, int per_sm)\n{\n"
    "    unsigned long long grid = (unsigned long long)ctx->sms * (unsigned long long)per_sm;\n"
    "    if (ctx->persistent_max > 0 && grid > (unsigned long long)ctx->persistent_max) grid = ctx->persistent_max;\n"
    "    return grid < tiles ? grid : tiles;\n}\n\n"
    "static int parm_check_device(parm_ctx *ctx)\n{\n"
    "    int device;\n"
    "    PARM_CHECK(ctx, cudaGetDevice(&device));\n"
    "    return device == ctx->device ? PARM_OK : PARM_ERROR_DEVICE;\n}\n\n"
    "/* The scratch memory of a call, stream-ordered (no synchronisation) and\n"
    "   kept for later calls. */\n"
    "static int parm_scratch(parm_ctx *ctx, size_t bytes, char **base)\n{\n"
    "    if (ctx->scratch_bytes < bytes) {\n"
    "        if (ctx->scratch) PARM_CHECK(ctx, cudaFreeAsync(ctx->scratch, ctx->stream));\n"
    "        ctx->scratch = NULL;\n        ctx->scratch_bytes = 0;\n"
    "        cudaError_t e = cudaMallocAsync(&ctx->scratch, bytes, ctx->stream);\n"
    "        if (e == cudaErrorMemoryAllocation) {\n"
    "            ctx->scratch = NULL;\n"
    "            (void)cudaGetLastError();   /* not left for a later launch check to find */\n"
    "            return PARM_ERROR_MEMORY;\n"
    "        }\n"
    "        PARM_CHECK(ctx, e);\n"
    "        ctx->scratch_bytes = bytes;\n"
    "    }\n"
    "    *base = (char *)ctx->scratch;\n"
    "    return PARM_OK;\n}\n\n";

/* The function the standalone main calls. */
static void emit_cuda_runner(FILE *out, const EmitInput *api, const Schedule *s) {
    const ElemType *in = s->in_elem, *res = s->out_elem;
    fputs("#include <algorithm>\n#include <vector>\n\n", out);
    fputs("static int parm_main_run_cuda(parm_ctx *ctx, void **host_in, void **host_out, size_t n, int repeat)\n{\n", out);
    fprintf(out, "    void *in[%d], *out[%d];\n", in->nslots, res->nslots);
    for (int k = 0; k < in->nslots; k++) {
        const char *t = prim_ctype(elem_slot_prim(in, k));
        fprintf(out, "    PARM_CHECK(ctx, cudaMalloc(&in[%d], sizeof(%s) * (n ? n : 1)));\n", k, t);
        fprintf(out, "    PARM_CHECK(ctx, cudaMemcpy(in[%d], host_in[%d], sizeof(%s) * n, cudaMemcpyHostToDevice));\n", k, k, t);
    }
    for (int k = 0; k < res->nslots; k++)
        fprintf(out, "    PARM_CHECK(ctx, cudaMalloc(&out[%d], sizeof(%s) * (n ? n : 1)));\n", k, prim_ctype(elem_slot_prim(res, k)));
    /* a cudaMemcpy from pageable memory may return before its DMA lands, and
       the context's non-blocking stream does not wait for stream 0 */
    fputs("    PARM_CHECK(ctx, cudaDeviceSynchronize());\n", out);
    fputs("    int status = ", out);
    emit_entry_call(out, api, s, "in", "out");
    fputs(";\n    if (!status) PARM_CHECK(ctx, cudaStreamSynchronize(ctx->stream));\n", out);
    fputs("    if (!status && repeat > 0) {\n"
          "        std::vector<float> ms((size_t)repeat);\n"
          "        cudaEvent_t start, stop;\n"
          "        PARM_CHECK(ctx, cudaEventCreate(&start));\n"
          "        PARM_CHECK(ctx, cudaEventCreate(&stop));\n"
          "        for (int r = 0; r < repeat && !status; r++) {\n"
          "            PARM_CHECK(ctx, cudaEventRecord(start, ctx->stream));\n"
          "            status = ", out);
    emit_entry_call(out, api, s, "in", "out");
    fputs(";\n            PARM_CHECK(ctx, cudaEventRecord(stop, ctx->stream));\n"
          "            PARM_CHECK(ctx, cudaEventSynchronize(stop));\n"
          "            PARM_CHECK(ctx, cudaEventElapsedTime(&ms[(size_t)r], start, stop));\n"
          "        }\n"
          "        std::sort(ms.begin(), ms.end());\n"
          "        if (!status) fprintf(stderr, \"median %.4f ms over %d runs\\n\", ms[(size_t)repeat / 2], repeat);\n"
          "        cudaEventDestroy(start);\n        cudaEventDestroy(stop);\n    }\n", out);
    for (int k = 0; k < res->nslots; k++)
        fprintf(out, "    if (!status) PARM_CHECK(ctx, cudaMemcpy(host_out[%d], out[%d], sizeof(%s) * n, cudaMemcpyDeviceToHost));\n",
                k, k, prim_ctype(elem_slot_prim(res, k)));
    for (int k = 0; k < in->nslots; k++) fprintf(out, "    cudaFree(in[%d]);\n", k);
    for (int k = 0; k < res->nslots; k++) fprintf(out, "    cudaFree(out[%d]);\n", k);
    fputs("    return status;\n}\n\n", out);
}

/* The standalone main's runner for several GPUs: an NCCL communicator over
 * the first G devices (ncclCommInitAll) and one thread per rank, each with
 * its own context and its slices (docs/api.md, "Several GPUs"); the median
 * is rank 0's. */
static void emit_cuda_runner_gpus(FILE *out, const EmitInput *api, const Schedule *s) {
    const ElemType *in = s->in_elem, *res = s->out_elem;
    int ranks = 1 << s->gpu_log;
    fputs("#include <algorithm>\n#include <thread>\n#include <vector>\n\n", out);
    fputs("static int parm_main_rank(int r, ncclComm_t comm, void **host_in, void **host_out, size_t n, int repeat)\n{\n", out);
    fprintf(out, "    const size_t slice = n / %d;\n    parm_ctx *ctx = NULL;\n    if (cudaSetDevice(r) != cudaSuccess) return PARM_ERROR_DEVICE;\n", ranks);
    emit_api_text_gpus(out, api, "    int status = {p}_ctx_create_nccl(&ctx, comm, r, {G});\n    if (status) return status;\n");
    fprintf(out, "    void *in[%d], *out[%d];\n", in->nslots, res->nslots);
    for (int k = 0; k < in->nslots; k++) {
        const char *t = prim_ctype(elem_slot_prim(in, k));
        fprintf(out, "    PARM_CHECK(ctx, cudaMalloc(&in[%d], sizeof(%s) * slice));\n", k, t);
        fprintf(out, "    PARM_CHECK(ctx, cudaMemcpy(in[%d], (const %s *)host_in[%d] + r * slice, sizeof(%s) * slice, "
                     "cudaMemcpyHostToDevice));\n", k, t, k, t);
    }
    for (int k = 0; k < res->nslots; k++)
        fprintf(out, "    PARM_CHECK(ctx, cudaMalloc(&out[%d], sizeof(%s) * slice));\n", k, prim_ctype(elem_slot_prim(res, k)));
    fputs("    PARM_CHECK(ctx, cudaDeviceSynchronize());\n    status = ", out);
    emit_entry_call(out, api, s, "in", "out");
    fputs(";\n    if (!status) PARM_CHECK(ctx, cudaStreamSynchronize(ctx->stream));\n", out);
    fputs("    if (!status && repeat > 0) {\n"
          "        std::vector<float> ms((size_t)repeat);\n"
          "        cudaEvent_t start, stop;\n"
          "        PARM_CHECK(ctx, cudaEventCreate(&start));\n"
          "        PARM_CHECK(ctx, cudaEventCreate(&stop));\n"
          "        for (int i = 0; i < repeat && !status; i++) {\n"
          "            PARM_CHECK(ctx, cudaEventRecord(start, ctx->stream));\n"
          "            status = ", out);
    emit_entry_call(out, api, s, "in", "out");
    fputs(";\n            PARM_CHECK(ctx, cudaEventRecord(stop, ctx->stream));\n"
          "            PARM_CHECK(ctx, cudaEventSynchronize(stop));\n"
          "            PARM_CHECK(ctx, cudaEventElapsedTime(&ms[(size_t)i], start, stop));\n"
          "        }\n"
          "        std::sort(ms.begin(), ms.end());\n"
          "        if (!status && r == 0) fprintf(stderr, \"median %.4f ms over %d runs (rank 0)\\n\", ms[(size_t)repeat / 2], repeat);\n"
          "        cudaEventDestroy(start);\n        cudaEventDestroy(stop);\n    }\n", out);
    for (int k = 0; k < res->nslots; k++) {
        const char *t = prim_ctype(elem_slot_prim(res, k));
        fprintf(out, "    if (!status) PARM_CHECK(ctx, cudaMemcpy((%s *)host_out[%d] + r * slice, out[%d], sizeof(%s) * slice, "
                     "cudaMemcpyDeviceToHost));\n", t, k, k, t);
    }
    for (int k = 0; k < in->nslots; k++) fprintf(out, "    cudaFree(in[%d]);\n", k);
    for (int k = 0; k < res->nslots; k++) fprintf(out, "    cudaFree(out[%d]);\n", k);
    fputs("    if (status == PARM_ERROR_CUDA) fprintf(stderr, \"rank %d: %s\\n\", r, ", out);
    emit_api_text(out, api, "{p}_ctx_message(ctx));\n");
    emit_api_text(out, api, "    {p}_ctx_destroy(ctx);\n    return status;\n}\n\n");
    fputs("static int parm_main_run_cuda(parm_ctx *unused, void **host_in, void **host_out, size_t n, int repeat)\n{\n"
          "    (void)unused;\n    int devices = 0;\n", out);
    fprintf(out, "    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices < %d) {\n"
                 "        fprintf(stderr, \"compiled for %d GPUs, %%d present\\n\", devices);\n"
                 "        return PARM_ERROR_DEVICE;\n    }\n", ranks, ranks);
    fprintf(out, "    ncclComm_t comms[%d];\n    int devs[%d], status[%d];\n", ranks, ranks, ranks);
    fprintf(out, "    for (int r = 0; r < %d; r++) devs[r] = r;\n", ranks);
    fprintf(out, "    ncclResult_t init = ncclCommInitAll(comms, %d, devs);\n", ranks);
    fputs("    if (init != ncclSuccess) {\n        fprintf(stderr, \"nccl: %s\\n\", ncclGetErrorString(init));\n"
          "        return PARM_ERROR_CUDA;\n    }\n", out);
    fputs("    std::vector<std::thread> threads;\n", out);
    fprintf(out, "    for (int r = 0; r < %d; r++)\n"
                 "        threads.emplace_back([&, r] { status[r] = parm_main_rank(r, comms[r], host_in, host_out, n, repeat); });\n"
                 "    for (auto &t : threads) t.join();\n", ranks);
    fprintf(out, "    int first = PARM_OK;\n    for (int r = 0; r < %d; r++) {\n        ncclCommDestroy(comms[r]);\n"
                 "        if (!first) first = status[r];\n    }\n    return first;\n}\n\n", ranks);
}

void emit_cuda_program(FILE *out, const EmitInput *in) {
    emit_preamble(out, in, true);
    if (in->gpu_log) fprintf(out, cuda_exchange_destroy_nccl, 1 << EXCHANGE_MAX_PIECE_LOG);
    else fputs(cuda_exchange_destroy, out);
    emit_api_text(out, in, cuda_context_head);
    if (in->gpu_log) fputs(cuda_context_nccl, out);
    emit_api_text(out, in, cuda_context);
    emit_api_text(out, in, in->gpu_log ? cuda_context_nccl_message : cuda_context_message);
    emit_api_text(out, in, cuda_context_tail);
    if (in->gpu_log) emit_api_text_gpus(out, in, cuda_context_nccl_api);
    Arena names = {0};
    for (int i = 0; i < in->nplans; i++) {
        const EntryPlan *e = &in->plans[i];
        if (e->simple) emit_run(out, &e->nodes[0].chain, plan_node_name(&names, e, 0));
        else emit_graph_func(out, e, true, emit_cuda_chain, no_work);
    }
    arena_free(&names);
    emit_entries(out, in, true);
    if (in->emit_main) emit_main(out, in, true, in->gpu_log ? emit_cuda_runner_gpus : emit_cuda_runner);
}
