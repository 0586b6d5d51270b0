/* test_plan_verify.c: checks compiler/plan/plan_verify.c.
 *
 * Built by `make build/unit/test_plan_verify` (sanitizers on). Programs with
 * every kind of phase (LOCAL in place and into the next layout, PERMUTE,
 * MAP, tuples) go through the pipeline to their plans, which must verify;
 * then each plan is broken in one way at a time (a buffer, an element type,
 * a round, a swizzle, a write column, a kernel's shared memory and launch
 * bounds, a step's thread masks, a permutation kernel, a map's positions, a
 * fused reduce, a reduction's and a scan's shared arrays, an exchange's
 * pack inverse, the host program's regions and actions) and the verifier
 * must name the phase and the broken invariant.
 * Prints failures and finally "plan_verify: N passed, M failed"; exits 1 on
 * any failure. */
#ifndef _POSIX_C_SOURCE
#define _POSIX_C_SOURCE 200809L
#endif
#include <setjmp.h>
#include <string.h>

#include "check.h"
#include "diag.h"
#include "entry_plan.h"
#include "imports.h"
#include "kernel_plan.h"
#include "machine.h"
#include "opt.h"
#include "parse.h"
#include "schedule.h"
#include "specialise.h"

static const char program[] =
    "cas [a, b] = if a <= b then [a, b] else [b, a]\n"
    "kv [(k1, v1), (k2, v2)] = if k1 <= k2 then [(k1, v1), (k2, v2)] else [(k2, v2), (k1, v1)]\n"
    "entry sorted (xs : [2^7]i32) = two (col 2 cas) (vcolumn cas xs)\n"
    "entry layout (xs : [2^16]i32) = col 2 cas (bmmc (bitperm 16 (\\i -> 15 - i)) (col 2 cas xs))\n"
    "entry permute (xs : [2^12](u32, i32)) = bmmc (bitperm 12 (\\i -> 11 - i), 5) xs\n"
    /* a closing map that reads a table: a MAP phase of its own */
    "entry mapped (xs : [2^6]i32) = mapi (\\i x -> f64 x + sin (f64 (i >> 2))) (col 2 cas (map (\\x -> x * 3) xs))\n"
    /* one that reads none: run as the comparators' phase stores */
    "entry stored (xs : [2^6]i32) = mapi (\\i x -> f64 x + f64 i) (col 2 cas (map (\\x -> x * 3) xs))\n"
    "entry pairs (xs : [2^14](u32, i32)) = vcolumn kv xs\n"
    "entry posed (xs : [2^10]i32) = col 2 cas (mapi (\\i x -> x + i32 i) (col 2 cas xs))\n"
    /* no permutation: a LOCAL phase */
    "entry mixed (xs : [2^10](u8, f64, i16)) = vcolumn (\\[a, b] -> [b, b]) xs\n"
    /* a map to a wider type that the comparators' phase runs as it loads */
    "entry loaded (xs : [2^10]i16) = col 2 cas (mapi (\\i x -> i32 x + i32 i) xs)\n"
    /* two halves, the second round's warps of the dropped half idle */
    "entry halved (xs : [2^12]i32) = col 2 cas (col 4 cas (col 1 cas (col 64 cas (col 32 cas (col 16 cas (half 256 0 "
    "(col 128 cas (col 64 cas (col 32 cas (half 2048 0 (col 1 cas (col 256 cas (col 512 cas (col 1024 cas xs))))))))))))))\n"
    /* a half decided by a register bit: the steps after it skip the
       dropped registers (Step.kept_log) */
    "entry kept (xs : [2^12]i32) = col 1 cas (col 2 cas (half 4 0 (vcolumn cas (col 1 cas xs))))\n"
    /* a half of each row of 2^12, in tiles of a row: several blocks */
    "entry rowhalves (xs : [2^16]i32) = half 2048 0 (two (two (two (two (vcolumn cas)))) xs)\n"
    /* columns far apart: one tile of a cluster's blocks (break_cluster) */
    "entry spread (xs : [2^14]i32) = col 8192 cas (col 32 cas (col 4096 cas (col 64 cas (col 2048 cas (col 128 cas (col "
    "1024 cas (col 256 cas (col 512 cas xs))))))))\n";

/* Entry graphs: an expand that the network after it reads in place, and
 * a plane of the network's output that nothing reads (fuse_planes); a
 * padded parameter that one chain alone reads, from the caller's shape. */
static const char graph_program[] =
    "kv [(k1, v1), (k2, v2)] = if k1 <= k2 then [(k1, v1), (k2, v2)] else [(k2, v2), (k1, v1)]\n"
    "cas [a, b] = if a <= b then [a, b] else [b, a]\n"
    "entry scanned (xs : [2^10]i32) =\n"
    "  let (a, b) = unzip (vcolumn kv (zip xs (expand 5 (reduceblocks 5 (+) 0 xs)))) in a\n"
    "entry spread (xs : [2^10]i32) =\n"
    "  reduceblocks 5 (+) 0 (map (\\(x, m) -> x - m) (zip xs (expand 5 (reduceblocks 5 max 0 xs))))\n"
    "entry padded (xs : [2^4][2^6]i32 pad max) = let ys = col 2 cas xs in (ys, reduce (+) 0 ys)\n"
    "entry scans (xs : [2^16]i32) = (scanblocks 16 (+) 0 xs, exscanblocks 14 max 0 (map (\\x -> i64 x) xs))\n"
    "entry cut (xs : [2^4][2^6]i32 pad 0) : [5] = half 8 0 (col 2 cas xs)\n"
    "entry total (xs : [2^16]i32) = reduce (+) 0 (map (\\x -> x * 3) xs)\n"
    "entry same (xs : [2^4][2^6]i32 pad 0) = (xs, reduce (+) 0 xs)\n"
    "entry graphed (xs : [2^10]i32) = let ys = col 2 cas (col 1 cas xs) in (ys, reduce max 0 ys)\n";

/* The plans of every entry of `program`. */
static IrProgram ir;

/* text's IR, optimised, and with `plans` the plan of each of its functions;
 * false (and a failed check) if it does not compile. */
static bool compile_text(Arena *arena, const char *text, IrProgram *out, Schedule **plans) {
    jmp_buf handler;
    diag_handler = &handler;
    if (setjmp(handler)) {
        check(false, "the test program does not compile");
        diag_handler = NULL;
        return false;
    }
    Program prog = {0};
    const Source *src = source_copy(arena, "test.parm", text, strlen(text));
    parse_source(arena, src, &prog);
    *out = (IrProgram){.arena = arena};
    specialise_program(arena, &prog, NULL, NULL, out);
    opt_normalise(out);
    opt_optimise(out, NULL);
    opt_tabulate(out);
    if (plans) {
        *plans = NEW_ARRAY(arena, Schedule, out->nfuncs);
        for (int i = 0; i < out->nfuncs; i++)
            schedule_func(arena, out->funcs[i], NULL, &(*plans)[i]);
    }
    diag_handler = NULL;
    return true;
}

static Schedule *plans_of(Arena *arena) {
    Schedule *plans;
    return compile_text(arena, program, &ir, &plans) ? plans : NULL;
}

static Schedule *find(Schedule *plans, const char *name) {
    for (int i = 0; i < ir.nfuncs; i++)
        if (strcmp(plans[i].func->name, name) == 0) return &plans[i];
    check(false, "no entry %s", name);
    return NULL;
}

/* A copy of s whose phases can be broken without touching s. */
static Schedule copy(Arena *a, const Schedule *s) {
    Schedule c = *s;
    c.phases = NEW_ARRAY(a, Phase, s->nphases);
    memcpy(c.phases, s->phases, sizeof(Phase) * (size_t)s->nphases);
    for (int i = 0; i < s->nphases; i++) {
        Phase *p = &c.phases[i];
        if (p->nsteps) {
            p->steps = NEW_ARRAY(a, Step, p->nsteps);
            memcpy(p->steps, s->phases[i].steps, sizeof(Step) * (size_t)p->nsteps);
        }
        if (p->nrounds) {
            p->rounds = NEW_ARRAY(a, Round, p->nrounds);
            memcpy(p->rounds, s->phases[i].rounds, sizeof(Round) * (size_t)p->nrounds);
        }
        if (p->slot_plans) {
            p->slot_plans = NEW_ARRAY(a, BmmcPlan, p->elem->nslots);
            memcpy(p->slot_plans, s->phases[i].slot_plans,
                   sizeof(BmmcPlan) * (size_t)p->elem->nslots);
        }
    }
    return c;
}

static void expect(Arena *a, const Schedule *s, const char *want, const char *what) {
    const char *got = plan_verify(a, s);
    check(got && strstr(got, want), "%s: expected \"%s\", got \"%s\"", what, want,
          got ? got : "(verified)");
}

static int first_of(const Schedule *s, PhaseKind kind, bool in_place) {
    for (int i = 0; i < s->nphases; i++)
        if (s->phases[i].kind == kind &&
            (kind != PHASE_LOCAL || s->phases[i].writes_in_place == in_place))
            return i;
    check(false, "%s has no phase of kind %d", s->func->name, kind);
    return 0;
}

static void break_local(Arena *a, Schedule *plans) {
    const Schedule *s = find(plans, "layout");
    int i = first_of(s, PHASE_LOCAL, false);
    Schedule c = copy(a, s);
    c.phases[i].dst = BUF_IN;
    expect(a, &c, "writes the input", "a phase writing the input");
    c = copy(a, s);
    c.phases[i].rounds[0].count++;
    expect(a, &c, "round", "rounds that overlap");
    c = copy(a, s);
    c.phases[i].slot_cols[c.phases[i].tile_log - 1] = c.phases[i].slot_cols[0];
    expect(a, &c, "slots are not a permutation", "a swizzle that maps two elements to one slot");
    c = copy(a, s);
    c.phases[i].out_cols[c.phases[i].tile_log - 1] ^= 1;
    expect(a, &c, "write column", "a write column that does not follow from the write matrix");
    c = copy(a, s);
    c.phases[i].tile_cols[0] = 2;
    expect(a, &c, "segment bit", "a tile whose first column is not e0");
    c = copy(a, s);
    c.phases[i].rounds[0].regs[0] = c.phases[i].rounds[0].threads[0];
    expect(a, &c, "do not span the tile", "registers and threads that overlap");
    c = copy(a, s);
    char want[32];
    snprintf(want, sizeof want, "phase %d: ", i);
    c.phases[i].steps[0].group[0] = UINT64_C(1) << c.phases[i].tile_log;
    expect(a, &c, want, "a pair outside the tile, named by its phase");
    c = copy(a, s);
    c.phases[i].steps[0].order[0] ^= c.phases[i].steps[0].group[0];
    expect(a, &c, "moves logical bit", "a direction that the pair does not flip");
}

/* A map run by a LOCAL phase's load (Phase.map): the phase's types are the
 * map's, and only LOCAL and MAP phases run maps. */
static void break_load_map(Arena *a, Schedule *plans) {
    const Schedule *s = find(plans, "loaded");
    check(s->nphases >= 1 && s->phases[0].kind == PHASE_LOCAL && s->phases[0].map,
          "loaded: a LOCAL phase with a load map");
    if (!s->nphases || !s->phases[0].map) return;
    Schedule c = copy(a, s);
    c.phases[0].map = NULL;
    expect(a, &c, "changes the element type with no map",
           "a phase that changes the type without its map");
    c = copy(a, s);
    c.phases[0].in_elem = c.phases[0].elem;
    expect(a, &c, "reads another element type", "a load map's phase that reads the tile's type");
    const Schedule *perm = find(plans, "permute");
    int i = first_of(perm, PHASE_PERMUTE, false);
    c = copy(a, perm);
    c.phases[i].map = s->phases[0].map;
    expect(a, &c, "a permute phase with a map", "a map on a permutation");
}

/* A map run by a LOCAL phase's store (Phase.store_map, fold_store_map):
 * only on LOCAL phases, from the tile's type to the type read next,
 * element by element. */
static void break_store_map(Arena *a, Schedule *plans) {
    const Schedule *s = find(plans, "stored");
    const Phase *last = &s->phases[s->nphases - 1];
    check(s->nphases == 1 && last->kind == PHASE_LOCAL && last->store_map,
          "stored: one LOCAL phase with a store map");
    if (!last->store_map) return;
    Schedule c = copy(a, s);
    c.phases[0].store_map = NULL;
    expect(a, &c, "writes the output with other slot types", "the phase without its store map");
    c = copy(a, s);
    c.phases[0].store_map = find(plans, "loaded")->phases[0].map;
    expect(a, &c, "writes the output with other slot types", "a store map of other types");
    c = copy(a, s);
    c.phases[0].vec_log = 2;
    expect(a, &c, "a store map with vector copies", "a store map on copies in vectors");
    c = copy(a, s);
    c.phases[0].store_pos.row[0] = c.phases[0].store_pos.row[1];
    expect(a, &c, "store positions that are not a permutation",
           "store positions that are not invertible");
    const Schedule *perm = find(plans, "permute");
    c = copy(a, perm);
    c.phases[first_of(perm, PHASE_PERMUTE, false)].store_map = last->store_map;
    expect(a, &c, "a permute phase with a store map", "a store map on a permutation");
}

/* The warps that skip a round after halves (Round.live_log): each must
 * hold only elements the halves drop. */
static void break_live_warps(Arena *a, Schedule *plans) {
    const Schedule *s = find(plans, "halved");
    int r = 0;
    while (r < s->phases[0].nrounds && !s->phases[0].rounds[r].live_log) r++;
    check(s->nphases == 1 && r < s->phases[0].nrounds, "halved: a round with idle warps");
    if (r == s->phases[0].nrounds) return;
    Schedule c = copy(a, s);
    c.phases[0].rounds[r].live_tid[0] |= 1;
    expect(a, &c, "decides on a lane bit", "a half that splits a warp");
    c = copy(a, s);
    c.phases[0].rounds[r].live_value ^= 1;
    expect(a, &c, "works on the warps it drops", "the dropped warps working");
    c = copy(a, s);
    c.phases[0].rounds[r].live_tid[0] ^= c.phases[0].rounds[r].live_tid[0] << 1;
    expect(a, &c, "not its thread bits", "idle warps that are not the dropped ones");
    c = copy(a, s);
    c.phases[0].rounds[0].live_log = 1;
    c.phases[0].rounds[0].live_tid[0] = s->phases[0].rounds[r].live_tid[0];
    expect(a, &c, "after its first step", "warps idle before their half");
}

/* A halved write of part of a segment a tile is the whole result's, of one
 * block, alone (plan_half.c): here 2^4 blocks each write 2^11 elements,
 * given segments of 2^12. */
static void break_part_segments(Arena *a, Schedule *plans) {
    const Schedule *s = find(plans, "rowhalves");
    check(s->nphases == 1 && s->phases[0].half_log == 1 && s->phases[0].block_log > 0,
          "rowhalves: one phase of several blocks that halves");
    Schedule c = copy(a, s);
    c.phases[0].seg_log = c.phases[0].out_tile_log + 1;
    expect(a, &c, "less than a segment", "blocks writing parts of segments");
}

/* The registers that steps after a half skip (Step.kept_log): each a half
 * in effect, decided by registers; and no step pairs across a half. */
static void break_kept_regs(Arena *a, Schedule *plans) {
    const Schedule *s = find(plans, "kept");
    const Phase *p = &s->phases[0];
    int i = 0;
    while (i < p->nsteps && !p->steps[i].kept_log) i++;
    check(s->nphases == 1 && i > 0 && i + 1 < p->nsteps,
          "kept: a step after a half that skips registers");
    if (i == 0 || i + 1 >= p->nsteps) return;
    Schedule c = copy(a, s);
    c.phases[0].steps[i].kept_value ^= 1;
    expect(a, &c, "its kept registers 0 are not half 0's", "the dropped registers working");
    c = copy(a, s);
    c.phases[0].steps[i].kept_regs[0] ^= 1;
    expect(a, &c, "its kept registers 0 are not half 0's", "registers kept by another functional");
    c = copy(a, s);
    c.phases[0].steps[0].kept_log = 1;
    c.phases[0].steps[0].kept_regs[0] = p->steps[i].kept_regs[0];
    expect(a, &c, "keeps registers by 1 halves", "registers skipped before their half");
    c = copy(a, s);
    c.phases[0].steps[i + 1].group[0] = p->steps[i - 1].group[0];
    c.phases[0].steps[i + 1].order[0] = p->steps[i - 1].order[0];
    expect(a, &c, "pairs what half 0 keeps with what it drops", "a step across a half");
}

/* The kernel's shared memory and launch bounds (kernel_plan.c), and the
 * steps' masks over the thread index (Step.order_tid, pos_tid). */
static void break_kernel(Arena *a, Schedule *plans) {
    const Schedule *s = find(plans, "mixed");
    int i = first_of(s, PHASE_LOCAL, true);
    const Phase *p = &s->phases[i];
    check(p->plane_off[1] == 0 && p->plane_off[2] == 8 << p->tile_log &&
              p->plane_off[0] == 10 << p->tile_log,
          "mixed's planes widest first: f64 at 0, i16 after it, u8 last, not %d %d %d",
          p->plane_off[1], p->plane_off[2], p->plane_off[0]);
    Schedule c = copy(a, s);
    c.phases[i].plane_off[0] = c.phases[i].plane_off[2] + 2;
    expect(a, &c, "the planes of fields 0 and 2 overlap", "two planes that overlap");
    c = copy(a, s);
    c.phases[i].plane_off[2] += 1;
    expect(a, &c, "field 2's plane at byte", "a plane that is not aligned to its elements");
    c = copy(a, s);
    c.phases[i].plane_off[0] = c.phases[i].tile_bytes;
    expect(a, &c, "outside the tile buffer", "a plane past the tile buffer");
    c = copy(a, s);
    c.phases[i].shared_bytes = c.phases[i].tile_bytes / 2;
    expect(a, &c, "bytes of shared memory for", "less shared memory than the tile");
    c = copy(a, s);
    c.phases[i].blocks_per_sm = MACHINE_SM_SHARED_BYTES / c.phases[i].shared_bytes + 1;
    expect(a, &c, "which an SM cannot hold", "launch bounds that ask for more blocks than fit");
    c = copy(a, s);
    c.phases[i].blocks_per_sm = 0;
    expect(a, &c, "launch bounds of 0 blocks", "launch bounds of no block");
    const Schedule *sorted = find(plans, "sorted");
    int j = first_of(sorted, PHASE_LOCAL, true);
    c = copy(a, sorted); /* a small tile: room for the blocks, not for the SM's block slots */
    c.phases[j].blocks_per_sm = MACHINE_SM_BLOCKS + 1;
    check(c.phases[j].blocks_per_sm * (c.phases[j].shared_bytes + MACHINE_BLOCK_RESERVED_BYTES) <=
                  MACHINE_SM_SHARED_BYTES &&
              c.phases[j].blocks_per_sm << c.phases[j].threads_log <= 1 << MACHINE_SM_THREADS_LOG,
          "sorted's tile leaves room for %d blocks of its threads and shared memory",
          c.phases[j].blocks_per_sm);
    expect(a, &c, "which an SM cannot hold",
           "launch bounds that ask for more blocks than an SM holds");
    c = copy(a, sorted);
    c.phases[j].steps[0].order_tid[0] ^= 1;
    expect(a, &c, "the thread mask of direction 0",
           "a direction's thread mask that is not its round's");
    c = copy(a, sorted);
    c.phases[j].steps[0].order_reg[0] ^= 1;
    expect(a, &c, "the register mask of direction 0",
           "a direction's register mask that is not its round's");
    const Schedule *posed = find(plans, "posed");
    int k = first_of(posed, PHASE_LOCAL, true), step = -1;
    for (int st = 0; st < posed->phases[k].nsteps; st++)
        if (posed->phases[k].steps[st].pos_bits) step = st;
    check(step >= 0, "posed has a step that reads its position");
    if (step < 0) return;
    c = copy(a, posed);
    c.phases[k].steps[step].pos_tid[0] ^= 1;
    expect(a, &c, "the thread mask of position bit 0",
           "a position's thread mask that is not its round's");
}

/* A cluster's tile (Phase.cluster_log): every layout keeps the rank's
 * slot bits, and a round that is not remote keeps its registers and its
 * block's threads in the block. */
static void break_cluster(Arena *a, Schedule *plans) {
    SchedOptions opt = {.cluster_log = 2, .tile_bytes = 16 * 1024};
    Schedule s;
    schedule_func(a, find(plans, "spread")->func, &opt, &s);
    const char *why = plan_verify(a, &s);
    check(!why, "spread in clusters: %s", why ? why : "");
    int i = first_of(&s, PHASE_LOCAL, true), remote = -1, local = -1;
    const Phase *p = &s.phases[i];
    check(!s.cluster_refused && p->cluster_log == 2,
          "spread in clusters of 4 blocks, not 2^%d (%s)", p->cluster_log,
          s.cluster_refused ? s.cluster_refused : "");
    for (int r = 0; r < p->nrounds; r++) {
        if (p->rounds[r].remote) remote = r;
        else local = r;
    }
    check(remote > 0 && local >= 0, "spread has a local round and a remote one after the first");
    if (remote <= 0 || local < 0) return;
    Schedule c = copy(a, &s);
    c.phases[i].rounds[remote].remote = false;
    expect(a, &c, "is local but its registers are not", "a round across blocks that is not remote");
    c = copy(a, &s);
    c.phases[i].rounds[remote].threads[0] ^= UINT64_C(1) << (p->tile_log - 1);
    expect(a, &c, "the block's thread bit 0 leaves its block",
           "a remote round whose block's thread reaches another block");
    c = copy(a, &s);
    c.phases[i].rounds[local].threads[p->threads_log - 2] ^= UINT64_C(1) << (p->tile_log - 1);
    expect(a, &c, "leaves its block",
           "a local round whose rank's thread bit is not the rank's coordinate");
    c = copy(a, &s);
    int low = p->tile_log - p->cluster_log;
    c.phases[i].rounds[remote].slots[low - 1] ^= UINT64_C(1) << low;
    expect(a, &c, "moves tile bit", "a layout that moves an element to another block");
}

static void break_flow(Arena *a, Schedule *plans) {
    const Schedule *s = find(plans, "mapped");
    int m = first_of(s, PHASE_MAP, false);
    Schedule c = copy(a, s);
    c.scratch_bytes = 0;
    expect(a, &c, "is too small", "scratch planes too small");
    c = copy(a, s);
    c.phases[m].map_pos = f2_zero(c.phases[m].n);
    expect(a, &c, "positions", "map positions that are not a permutation");
    c = copy(a, s);
    c.phases[m].elem = c.phases[m].in_elem;
    expect(a, &c, "writes the output with other slot types",
           "the output written in other slot types");
    const Schedule *one = find(plans, "sorted");
    c = copy(a, one);
    c.phases[c.nphases - 1].dst = BUF_SCRATCH_A;
    expect(a, &c, "the last phase writes sa", "a result left in scratch");
    const Schedule *moved = find(plans, "layout");
    c = copy(a, moved);
    c.alias = ALIAS_EXACT_OK;
    expect(a, &c, "moves elements",
           "an in-place call allowed where the first phase moves elements");
    const Schedule *p = find(plans, "permute");
    int k = first_of(p, PHASE_PERMUTE, false);
    c = copy(a, p);
    c.phases[k].slot_plans[1].c ^= 1;
    expect(a, &c, "field 1's kernel moves another permutation",
           "a permutation kernel of another complement");
    c = copy(a, p);
    c.phases[k].slot_plans[0].elem_bytes = 8;
    expect(a, &c, "8-byte elements", "a permutation kernel of another element size");
}

/* A commutative reduce of the elements of s's phase `at`, fused there. */
static Schedule fused_at(Arena *a, const Schedule *s, int at) {
    Schedule c = copy(a, s);
    IrStmt *r = NEW(a, IrStmt);
    r->op = IR_REDUCE;
    r->commutative = true;
    r->nres = 1;
    r->nargs = 2;
    r->args = NEW_ARRAY(a, IrVal *, 2);
    r->args[1] = ir_new_val(&ir, s->n, s->phases[at].elem);
    r->body = NEW(a, IrBody);
    r->body->nresults = s->phases[at].elem->nslots; /* a field a slot */
    c.reduce = r;
    c.reduce_phase = at;
    kernel_plan_fused_reduce(&c, a);
    return c;
}

static void break_fused_reduce(Arena *a, Schedule *plans) {
    const Schedule *sorted = find(plans, "sorted");
    Schedule c = fused_at(a, sorted, sorted->nphases - 1);
    check(!plan_verify(a, &c), "a reduce fused into the last LOCAL phase: %s", plan_verify(a, &c));
    const Schedule *mapped = find(plans, "mapped");
    c = fused_at(a, mapped, first_of(mapped, PHASE_MAP, false));
    expect(a, &c, "not a LOCAL phase", "a reduce fused into a MAP phase");
    c = fused_at(a, mapped, first_of(mapped, PHASE_LOCAL, true));
    expect(a, &c, "changes elements after the fused reduce", "a reduce fused before a MAP phase");
    c = fused_at(a, sorted, sorted->nphases - 1);
    ((IrStmt *)c.reduce)->commutative = false;
    expect(a, &c, "not a commutative reduce", "a fused reduce whose operator does not commute");
    const Schedule *wide = NULL; /* its last phase LOCAL, of more than a warp */
    for (int i = 0; i < ir.nfuncs && !wide; i++) {
        const Phase *last = &plans[i].phases[plans[i].nphases - 1];
        if (last->kind == PHASE_LOCAL && last->threads_log > MACHINE_WARP_LOG) wide = &plans[i];
    }
    if (!wide) {
        check(false, "no plan whose last LOCAL phase spans warps");
        return;
    }
    c = fused_at(a, wide, wide->nphases - 1);
    check(c.reduce_shared.n == wide->phases[wide->nphases - 1].elem->nslots && !plan_verify(a, &c),
          "%s: a fused reduce keeps its warps' totals in shared memory", wide->func->name);
    c.reduce_shared.n = 0;
    c.reduce_shared.bytes = 0;
    expect(a, &c, "not the warps' totals", "a fused reduce without its warps' totals");
}

/* An exchange phase of `s` with its kernels' plans copied, to break. */
static Phase *exchange_copy(Arena *a, Schedule *c, int i, int ranks) {
    Phase *p = &c->phases[i];
    BmmcPlan *pack = NEW_ARRAY(a, BmmcPlan, p->elem->nslots);
    memcpy(pack, p->pack_plans, sizeof(BmmcPlan) * (size_t)p->elem->nslots);
    p->pack_plans = pack;
    BmmcPlan **unpack = NEW_ARRAY(a, BmmcPlan *, ranks);
    for (int d = 0; d < ranks; d++) {
        unpack[d] = NEW_ARRAY(a, BmmcPlan, p->elem->nslots);
        memcpy(unpack[d], p->unpack_plans[d], sizeof(BmmcPlan) * (size_t)p->elem->nslots);
    }
    p->unpack_plans = unpack;
    int *kept = NEW_ARRAY(a, int, ranks), *slot = NEW_ARRAY(a, int, (size_t)ranks << p->chunk_log);
    memcpy(kept, p->kept, sizeof(int) * (size_t)ranks);
    memcpy(slot, p->send_slot, sizeof(int) * ((size_t)ranks << p->chunk_log));
    p->kept = kept;
    p->send_slot = slot;
    return p;
}

/* A kernel whose lowest and highest block bits are swapped (the blocks of
 * a piece then run across pieces). */
static void swap_blocks(BmmcPlan *k) {
    int top = k->block_log - 1;
    uint64_t in = k->block_cols[top], out = k->out_cols[top];
    k->block_cols[top] = k->block_cols[0];
    k->out_cols[top] = k->out_cols[0];
    k->block_cols[0] = in;
    k->out_cols[0] = out;
}

/* `layout` on 4 GPUs, its exchange in 8 pieces (plan.h, Phase.piece_log):
 * every element goes through the kernels' tiles piece by piece, so a
 * kernel whose blocks for a piece touch another piece, routing that sends
 * two chunks to one slot, a wrong kept chunk or a phase in pieces that
 * its kernels do not share are named. */
static void break_exchange(Arena *a, Schedule *plans) {
    SchedOptions opt = {.gpu_log = 2, .exchange_pieces = 8};
    Schedule s;
    schedule_func(a, find(plans, "layout")->func, &opt, &s);
    const char *why = plan_verify(a, &s);
    check(!why, "layout on 4 GPUs in pieces: %s", why ? why : "");
    int i = s.nphases - 1; /* the last exchange packs and unpacks */
    check(s.phases[i].kind == PHASE_EXCHANGE && s.phases[i].piece_log == 3 &&
              s.phases[i].pack_plans && s.phases[i].unpack_plans,
          "layout's exchange in 8 pieces with one-pass kernels, not 2^%d", s.phases[i].piece_log);
    if (!s.phases[i].pack_plans || !s.phases[i].unpack_plans) return;
    Schedule c = copy(a, &s);
    Phase *p = exchange_copy(a, &c, i, 4);
    swap_blocks(&p->pack_plans[0]);
    expect(a, &c, "writes index", "a pack kernel whose top block bit is not the piece");
    c = copy(a, &s);
    p = exchange_copy(a, &c, i, 4);
    swap_blocks(&p->unpack_plans[1][0]);
    expect(a, &c, "reads index", "an unpack kernel whose top block bit is not the piece");
    c = copy(a, &s);
    p = exchange_copy(a, &c, i, 4);
    p->unpack_plans[2][0].piece_log = 0;
    expect(a, &c, "unpack kernel of 2^0 pieces", "an unpack kernel without pieces");
    c = copy(a, &s);
    p = exchange_copy(a, &c, i, 4);
    for (int c1 = 0, c2 = 1; c2 < 4 << p->chunk_log; c2++) /* two senders to one rank, one slot */
        if (p->send_to[c2] == p->send_to[c1]) {
            p->send_slot[c2] = p->send_slot[c1];
            break;
        }
    expect(a, &c, "two elements", "two chunks routed to one slot");
    c = copy(a, &s);
    p = exchange_copy(a, &c, i, 4);
    p->kept[0] = -1;
    expect(a, &c, "keeps chunk", "a kept chunk that the routing does not keep");
    c = copy(a, &s);
    c.phases[i].pack_inv.row[0] ^= c.phases[i].pack_inv.row[1];
    expect(a, &c, "the pack's inverse is not its inverse",
           "a pack whose inverse the pack kernel reads is wrong");
    c = copy(a, &s);
    c.phases[i].piece_log = EXCHANGE_MAX_PIECE_LOG + 1;
    expect(a, &c, "pieces", "more pieces than the context's events");
    c = copy(a, &s);
    c.phases[i].piece_log = 0;
    c.phases[i].serial_why = NULL;
    expect(a, &c, "without a reason", "an exchange not pipelined without saying why");
}

static void expect_entry(Arena *a, const EntryPlan *e, const char *want, const char *what) {
    const char *got = plan_verify_entry(a, e);
    check(got && strstr(got, want), "%s: expected \"%s\", got \"%s\"", what, want,
          got ? got : "(verified)");
}

static void break_chain_planes(Arena *a, const IrFunc *f);
static void break_reduce_expand(Arena *a, const IrFunc *f);
static void break_pad_chain(Arena *a, const IrFunc *f);
static void break_scan(Arena *a, const IrFunc *f);
static void break_shared(Arena *a, const IrFunc *total, const IrFunc *scans, const IrFunc *padded);
static void break_row_cut(Arena *a, const IrFunc *f);
static void break_shape_copy(Arena *a, const IrFunc *f);
static void break_whole_graph(Arena *a, const IrFunc *f);

/* Planes fused into chains (Schedule.in_shift, out_unstored): taken where
 * the first phase loads element by element and the last is LOCAL or MAP,
 * refused on a permutation; in an entry graph, the expand read in place and
 * the plane nothing reads, then broken. */
static void break_fused_planes(Arena *a, Schedule *plans) {
    int shift[SCHED_MAX_SLOTS] = {3};
    Schedule c = copy(a, find(plans, "sorted"));
    schedule_fuse_planes(&c, shift, 1);
    check(c.in_shift[0] == 3 && c.out_unstored == 1 && !plan_verify(a, &c),
          "planes fused into a LOCAL phase: %s",
          plan_verify(a, &c) ? plan_verify(a, &c) : "not taken");
    c.in_shift[0] = c.n + 1;
    expect(a, &c, "read at x >>", "an input plane shifted past its length");
    c = copy(a, find(plans, "permute"));
    schedule_fuse_planes(&c, shift, 1);
    check(!c.in_shift[0] && !c.out_unstored, "planes fused into a permutation");
    c.in_shift[0] = 3;
    expect(a, &c, "does not load element by element", "an expand read in place by a permutation");
    c.in_shift[0] = 0;
    c.out_unstored = 1;
    expect(a, &c, "written by a permute phase", "an unstored plane of a permutation");
    const Schedule *several = NULL; /* of several phases, the last LOCAL or MAP */
    for (int i = 0; i < ir.nfuncs && !several; i++) {
        const Schedule *s = &plans[i];
        if (s->nphases > 1 && (s->phases[s->nphases - 1].kind == PHASE_LOCAL ||
                               s->phases[s->nphases - 1].kind == PHASE_MAP))
            several = s;
    }
    if (!several) {
        check(false, "no plan of several phases ending in a LOCAL or MAP phase");
        return;
    }
    c = copy(a, several);
    c.out_unstored = 1;
    c.phases[0].dst = BUF_OUT;
    expect(a, &c, "phase 0 writes the output, whose unstored planes are missing",
           "an unstored plane that a phase "
           "before the last writes");
    IrProgram graph;
    if (!compile_text(a, graph_program, &graph, NULL)) return;
    break_chain_planes(a, graph.funcs[0]);
    break_reduce_expand(a, graph.funcs[1]);
    break_pad_chain(a, graph.funcs[2]);
    break_scan(a, graph.funcs[3]);
    break_shared(a, graph.funcs[5], graph.funcs[3], graph.funcs[2]);
    break_row_cut(a, graph.funcs[4]);
    break_shape_copy(a, graph.funcs[6]);
    break_whole_graph(a, graph.funcs[7]);
}

/* An entry plan whose nodes can be broken without touching e's. */
static EntryPlan nodes_copy(Arena *a, const EntryPlan *e) {
    PlanNode *nodes = NEW_ARRAY(a, PlanNode, e->nnodes);
    memcpy(nodes, e->nodes, sizeof(PlanNode) * (size_t)e->nnodes);
    EntryPlan c = *e;
    c.nodes = nodes;
    return c;
}

/* A network reading its rows' sums in place and leaving their plane
 * unstored, then given planes of other lengths and places. */
static void break_chain_planes(Arena *a, const IrFunc *f) {
    EntryPlan e;
    entry_plan(a, f, NULL, &e);
    const PlanNode *net = &e.nodes[e.nnodes - 1];
    check(!plan_verify_entry(a, &e) && net->kind == NODE_CHAIN && net->chain.in_shift[1] == 5 &&
              net->in[1].log_len == 5 && net->out[1].kind == LOC_UNSTORED && e.nnodes == 2,
          "scanned: the expand read in place, the second plane unstored (%d nodes): %s", e.nnodes,
          plan_verify_entry(a, &e) ? plan_verify_entry(a, &e) : "");
    EntryPlan broken = nodes_copy(a, &e);
    PlaneRef *in = NEW_ARRAY(a, PlaneRef, net->nin), *out = NEW_ARRAY(a, PlaneRef, net->nout);
    memcpy(in, net->in, sizeof(PlaneRef) * (size_t)net->nin);
    memcpy(out, net->out, sizeof(PlaneRef) * (size_t)net->nout);
    PlanNode *broken_net = &broken.nodes[e.nnodes - 1];
    broken_net->in = in;
    broken_net->out = out;
    in[1].log_len = 4;
    expect_entry(a, &broken, "read at x >> 5", "an expanded plane of another length");
    in[1].log_len = 5;
    out[1] = out[0];
    expect_entry(a, &broken, "stored, but the chain leaves it",
                 "a plane the chain leaves unstored given a place");
    out[1] = net->out[1];
    in[0] = net->out[1];
    expect_entry(a, &broken, "reads a plane that is not stored",
                 "a node reading an unstored plane");
    in[0] = net->in[0];
    broken_net->in_shift = net->chain.in_shift;
    expect_entry(a, &broken, "a chain that reads an expand in place",
                 "a chain's shifts given as a reduction's");
}

/* A reduction of rows reading the rows' maxima in place (PlanNode.in_shift),
 * then at another shift; then its grid split in y (PlanNode.grid_y_log). */
static void break_reduce_expand(Arena *a, const IrFunc *f) {
    EntryPlan e;
    entry_plan(a, f, NULL, &e);
    const PlanNode *rows = &e.nodes[e.nnodes - 1];
    check(!plan_verify_entry(a, &e) && e.nnodes == 2 && rows->kind == NODE_REDUCE &&
              rows->in_shift && rows->in_shift[1] == 5 && rows->in[1].log_len == 5,
          "spread: the expand read in place by the reduction (%d nodes): %s", e.nnodes,
          plan_verify_entry(a, &e) ? plan_verify_entry(a, &e) : "");
    EntryPlan broken = nodes_copy(a, &e);
    int *shift = NEW_ARRAY(a, int, rows->nin);
    memcpy(shift, rows->in_shift, sizeof(int) * (size_t)rows->nin);
    broken.nodes[e.nnodes - 1].in_shift = shift;
    shift[1] = 4;
    expect_entry(a, &broken, "read at x >> 4", "a reduction reading an expand at another shift");
    shift[1] = 5;
    /* its grid fits x alone: a y dimension is not the plan's */
    broken.nodes[e.nnodes - 1].grid_y_log = 1;
    expect_entry(a, &broken, "with 2^1 (2^0) in y", "a reduction's grid split where x holds it");
    broken.nodes[e.nnodes - 1].grid_y_log = 0;
    check(plan_grid_y_log(30) == 0 && plan_grid_y_log(32) == 2,
          "a grid of 2^32 blocks takes 2^2 of them in y (%d)", plan_grid_y_log(32));
}

/* One-pass scans (NODE_SCAN): an i32 one with its values in the states'
 * words, an i64 one with planes of totals and prefixes; then tiles that do
 * not cover the array, a plane staged in chunks that are not its bytes, partials of another length or type, and a scan
 * node of no scan. */
static void break_scan(Arena *a, const IrFunc *f) {
    EntryPlan e;
    entry_plan(a, f, NULL, &e);
    const PlanNode *packed = NULL, *planes = NULL;
    for (int i = 0; i < e.nnodes; i++)
        if (e.nodes[i].kind == NODE_SCAN) {
            if (e.nodes[i].npartial == 1) packed = &e.nodes[i];
            else planes = &e.nodes[i];
        }
    check(!plan_verify_entry(a, &e) && packed && planes && planes->npartial == 3 &&
              packed->per_thread_log + packed->threads_log + packed->grid_log == 16,
          "scans: a packed and a planed scan node that verify: %s",
          plan_verify_entry(a, &e) ? plan_verify_entry(a, &e) : "");
    if (!packed || !planes) return;
    int pi = (int)(packed - e.nodes), qi = (int)(planes - e.nodes);
    EntryPlan broken = nodes_copy(a, &e);
    broken.nodes[pi].grid_log++;
    expect_entry(a, &broken, "scan tiles of", "scan tiles that do not cover the array");
    broken.nodes[pi].grid_log--;
    check(packed->chunks_log[0] == 3,
          "scans: an i32 scan's plane staged in 2^3 chunks a thread (%d)", packed->chunks_log[0]);
    broken.nodes[pi].chunks_log[0] = 2;
    expect_entry(a, &broken, "scan plane 0 staged in 2^2 chunks",
                 "a scan plane staged in chunks other than a thread's bytes of it");
    broken.nodes[pi].chunks_log[0] = 3;
    PlaneRef *partial = NEW_ARRAY(a, PlaneRef, 3);
    memcpy(partial, planes->partial, sizeof(PlaneRef) * 3);
    broken.nodes[qi].partial = partial;
    partial[2].prim = PRIM_U32;
    expect_entry(a, &broken, "the scan's states are not", "scan states of 32 bits");
    partial[2] = planes->partial[2];
    partial[1].log_len--;
    expect_entry(a, &broken, "scan partial 1 is not", "a scan's prefixes of another length");
    partial[1] = planes->partial[1];
    broken.nodes[qi].npartial = 1;
    expect_entry(a, &broken, "partial planes for a scan", "an i64 scan's values in its states");
    broken.nodes[qi].npartial = 3;
    broken.nodes[pi].stmt = planes->stmt;
    expect_entry(a, &broken, "scan plane 0 is not its array's",
                 "a scan node of the other scan's statement");
}

/* sh's arrays copied into the arena, to break. */
static SharedArray *shared_copy(Arena *a, SharedPlan *sh) {
    SharedArray *x = NEW_ARRAY(a, SharedArray, sh->n + 1);
    memcpy(x, sh->arrays, sizeof(SharedArray) * (size_t)sh->n);
    sh->arrays = x;
    return x;
}

static int shared_index(const SharedPlan *sh, SharedRole role, int field) {
    const SharedArray *x = plan_shared_array(sh, role, field);
    check(x != NULL, "a shared array of role %d for field %d", role, field);
    return x ? (int)(x - sh->arrays) : 0;
}

/* The kernels' shared arrays (PlanNode.shared, final_shared): a reduction
 * whose warps' totals are too few, of the wrong size, twice or past a
 * block's static shared memory, and its partials of another type or none; a scan without its chunk buffer's rows or
 * a look-back scalar; shared arrays given to a node of another kind. */
static void break_shared(Arena *a, const IrFunc *total, const IrFunc *scans, const IrFunc *padded) {
    EntryPlan e;
    entry_plan(a, total, NULL, &e);
    int r = e.nnodes - 1;
    const PlanNode *red = &e.nodes[r];
    check(red->kind == NODE_REDUCE && red->shared.n == 1 &&
              red->shared.arrays[0].role == SHARED_WARP_TOTALS && !plan_verify_entry(a, &e),
          "total: the blocks' kernel keeps its warps' totals in shared memory");
    if (red->kind != NODE_REDUCE || red->shared.n != 1) return;
    EntryPlan broken = nodes_copy(a, &e);
    SharedPlan *sh = &broken.nodes[r].shared;
    SharedArray *x = shared_copy(a, sh);
    x[0].cols *= 2;
    expect_entry(a, &broken, "bytes of shared memory for arrays of",
                 "a sum of shared bytes that is not its arrays'");
    sh->bytes *= 2;
    expect_entry(a, &broken, "not the warps' totals", "warps' totals for twice the block's warps");
    x[0].cols /= 2;
    sh->bytes /= 2;
    x[0].elem_bytes = 8;
    expect_entry(a, &broken, "elements of 8 bytes", "warps' totals of i32 in 8-byte slots");
    x[0].elem_bytes = 4;
    x[1] = x[0];
    sh->n = 2;
    sh->bytes *= 2;
    expect_entry(a, &broken, "two shared arrays of role", "the warps' totals twice");
    sh->n = 1;
    x[0].rows = MACHINE_STATIC_SHARED_BYTES;
    sh->bytes = x[0].rows * x[0].cols * 4;
    expect_entry(a, &broken, "a block's static most", "warps' totals past static shared memory");
    broken.nodes[r].shared = red->shared;
    PlaneRef *partial = NEW_ARRAY(a, PlaneRef, red->npartial);
    memcpy(partial, red->partial, sizeof(PlaneRef) * (size_t)red->npartial);
    broken.nodes[r].partial = partial;
    partial[0].prim = PRIM_U16;
    expect_entry(a, &broken, "partial plane 0 is not field 0",
                 "the partials' kernel reading partials of another type");
    partial[0] = red->partial[0];
    broken.nodes[r].npartial = 0;
    expect_entry(a, &broken, "0 partial planes for a reduce", "a reduce without its partials");
    broken.nodes[r].npartial = red->npartial;
    entry_plan(a, scans, NULL, &e);
    int s = -1;
    for (int i = 0; i < e.nnodes; i++)
        if (e.nodes[i].kind == NODE_SCAN && e.nodes[i].npartial == 1) s = i;
    check(s >= 0 && e.nodes[s].shared.n == 7 && !plan_verify_entry(a, &e),
          "scans: the packed scan's tile holds 7 shared arrays (%d)",
          s >= 0 ? e.nodes[s].shared.n : -1);
    if (s < 0) return;
    broken = nodes_copy(a, &e);
    sh = &broken.nodes[s].shared;
    x = shared_copy(a, sh);
    int chunks = shared_index(sh, SHARED_CHUNKS, -1);
    x[chunks].rows--;
    sh->bytes -= x[chunks].cols * x[chunks].elem_bytes;
    expect_entry(a, &broken, "a chunk buffer that is not a row of each warp",
                 "a chunk buffer short of a warp's row");
    *sh = e.nodes[s].shared;
    x = shared_copy(a, sh);
    int stop = shared_index(sh, SHARED_LOOK_STOP, -1);
    x[stop] = x[sh->n - 1];
    sh->n--;
    sh->bytes -= 4;
    expect_entry(a, &broken, "a look-back without its tile's shared scalars",
                 "a looking-back scan without its stop");
    *sh = e.nodes[s].shared;
    x = shared_copy(a, sh);
    x[sh->n] = (SharedArray){SHARED_TILE_HAS, 0, 4, 1, 1};
    sh->n++;
    sh->bytes += 4;
    expect_entry(a, &broken, "holds role", "a tile's found flag given a field");
    SharedPlan scan_shared = e.nodes[s].shared;
    entry_plan(a, padded, NULL, &e);
    check(e.nodes[0].kind == NODE_CHAIN, "padded: a chain first");
    broken = nodes_copy(a, &e);
    broken.nodes[0].shared = scan_shared;
    expect_entry(a, &broken, "whose kernels plan their own", "shared arrays of a chain node");
}

/* A chain reading the padded parameter from the caller's shape itself
 * (Schedule.pad_in_only: no COPY_PAD node), then one that would write the
 * shape into a temporary, or pad with no pad. */
static void break_pad_chain(Arena *a, const IrFunc *f) {
    EntryPlan e;
    entry_plan(a, f, NULL, &e);
    const PlanNode *chain = &e.nodes[0];
    check(
        !plan_verify_entry(a, &e) && chain->kind == NODE_CHAIN && chain->chain.pad &&
            chain->chain.pad_in_only && chain->in[0].shaped && chain->in[0].kind == LOC_PARAM &&
            !chain->out[0].shaped,
        "padded: the first node a chain that reads the caller's shape (%d nodes, node 0 a %s): %s",
        e.nnodes, plan_node_kind_name(chain->kind),
        plan_verify_entry(a, &e) ? plan_verify_entry(a, &e) : "");
    for (int i = 0; i < e.nnodes; i++)
        check(e.nodes[i].kind != NODE_COPY || e.nodes[i].copy != COPY_PAD,
              "padded: node %d copies the pad", i);
    EntryPlan broken = nodes_copy(a, &e);
    broken.nodes[0].chain.pad_in_only = false;
    expect_entry(a, &broken, "writes the caller's shape into plane 0, not a result",
                 "a graph's chain that writes the caller's shape into a temporary");
    broken.nodes[0].chain.pad_in_only = true;
    broken.nodes[0].chain.pad_cols_log++;
    expect_entry(a, &broken, "pads its loads without the entry's shape",
                 "a chain reading rows of another length");
    broken.nodes[0].chain.pad_cols_log--;
    broken.nodes[0].chain.pad = NULL;
    expect_entry(a, &broken, "the input alone of the caller's shape, without a pad",
                 "a chain reading the shape with no "
                 "pad");
}

/* A result cut to the entry's result row length (docs/language.md 7.2) by
 * a COPY_CUT node, then cut to another length, to the caller's row length,
 * or from rows shorter than the cut. */
static void break_row_cut(Arena *a, const IrFunc *f) {
    EntryPlan e;
    entry_plan(a, f, NULL, &e);
    int cut = -1;
    for (int i = 0; i < e.nnodes; i++)
        if (e.nodes[i].kind == NODE_COPY && e.nodes[i].copy == COPY_CUT) cut = i;
    check(!plan_verify_entry(a, &e) && cut >= 0 && e.nodes[cut].out[0].row_cut == 5,
          "row cut: a COPY_CUT node writes rows of 5: %s",
          plan_verify_entry(a, &e) ? plan_verify_entry(a, &e) : "");
    if (cut < 0) return;
    EntryPlan broken = nodes_copy(a, &e);
    PlaneRef *out = NEW_ARRAY(a, PlaneRef, e.nodes[cut].nout);
    memcpy(out, e.nodes[cut].out, sizeof(PlaneRef) * (size_t)e.nodes[cut].nout);
    broken.nodes[cut].out = out;
    PlaneRef *api = NEW_ARRAY(a, PlaneRef,
                              e.nout_planes); /* the API's plane too: the node's alone is */
    memcpy(api, e.out_planes,
           sizeof(PlaneRef) * (size_t)e.nout_planes); /* another shape than the API's */
    broken.out_planes = api;
    out[0].row_cut = 4;
    expect_entry(a, &broken, "result plane 0 of another length or shape",
                 "a result plane unlike the API's");
    api[out[0].index].row_cut = 4;
    expect_entry(a, &broken, "not cut to the entry's result row length",
                 "a result cut to rows of 4, not 5");
    out[0].row_cut = api[out[0].index].row_cut = 0;
    expect_entry(a, &broken, "pads or cuts without a pad of its length",
                 "a result of another length cut to the "
                 "caller's row length");
    out[0].row_cut = api[out[0].index].row_cut = 5;
    broken.nodes[cut].n = e.pad_log;
    expect_entry(a, &broken, "pads or cuts without a pad of its length",
                 "a row cut from the padded length");
    broken.nodes[cut].n = 4;
    expect_entry(a, &broken, "cuts rows shorter than the result row length",
                 "a row cut from rows of 1");
}

/* A result that is the padded parameter itself: one copy of the caller's
 * shape as it lies (COPY_SHAPE), beside the COPY_PAD the reduction reads;
 * then into a temporary, and by a node of another length. */
static void break_shape_copy(Arena *a, const IrFunc *f) {
    EntryPlan e;
    entry_plan(a, f, NULL, &e);
    int c = -1, pads = 0;
    for (int i = 0; i < e.nnodes; i++) {
        if (e.nodes[i].kind == NODE_COPY && e.nodes[i].copy == COPY_SHAPE) c = i;
        pads += e.nodes[i].kind == NODE_COPY && e.nodes[i].copy == COPY_PAD;
    }
    check(c >= 0 && pads == 1 && !plan_verify_entry(a, &e),
          "same: the parameter returned as it lies, padded once for the reduction: %s",
          plan_verify_entry(a, &e) ? plan_verify_entry(a, &e) : "");
    if (c < 0) return;
    EntryPlan broken = nodes_copy(a, &e);
    PlaneRef *out = NEW_ARRAY(a, PlaneRef, 1);
    out[0] = e.nodes[c].out[0];
    broken.nodes[c].out = out;
    out[0].kind = LOC_TEMP;
    expect_entry(a, &broken, "is not the caller's shape from a parameter to a result",
                 "the shape copied as it lies into a temporary");
    out[0] = e.nodes[c].out[0];
    broken.nodes[c].n = e.pad_log - 1;
    expect_entry(a, &broken, "copies the caller's shape without a pad of its length",
                 "the shape copied as it lies by a node of another length");
}

/* An entry plan of f whose host program can be broken without touching
 * another's. */
static EntryPlan host_copy(Arena *a, const EntryPlan *e) {
    EntryPlan c = *e;
    c.host.regions = NEW_ARRAY(a, ScratchRegion, e->host.nregions);
    memcpy(c.host.regions, e->host.regions, sizeof(ScratchRegion) * (size_t)e->host.nregions);
    c.host.actions = NEW_ARRAY(a, HostAction, e->host.nactions);
    memcpy(c.host.actions, e->host.actions, sizeof(HostAction) * (size_t)e->host.nactions);
    return c;
}

static int find_region(const EntryPlan *e, RegionKind kind) {
    for (int i = 0; i < e->host.nregions; i++)
        if (e->host.regions[i].kind == kind) return i;
    check(false, "%s has no scratch region of kind %d", e->func->name, kind);
    return 0;
}

/* The host steps of layout's last exchange on 4 GPUs in pieces: a piece
 * unpacked before it is received, sent before it is packed, a step out of
 * its loop. */
static void break_exchange_steps(Arena *a, const IrFunc *f) {
    SchedOptions opt = {.gpu_log = 2, .exchange_pieces = 8};
    EntryPlan e;
    entry_plan(a, f, &opt, &e);
    check(!plan_verify_entry(a, &e), "layout on 4 GPUs: %s", plan_verify_entry(a, &e));
    Phase *p = &e.nodes[0].chain.phases[e.nodes[0].chain.nphases - 1];
    if (!p->crosses || !p->packs || !p->unpacks) {
        check(false, "layout's last exchange crosses, packs and unpacks");
        return;
    }
    ExchangeStep *steps = p->xsteps;
    int n = p->nxsteps, at[XSTEP_UNPACK + 1];
    for (int i = 0; i < n; i++) at[steps[i].kind] = i;
    p->xsteps = NEW_ARRAY(a, ExchangeStep, n);
    static const ExchangeStepKind swaps[][2] = {{XSTEP_UNPACK, XSTEP_WAIT_RECEIVED},
                                                {XSTEP_PACK, XSTEP_SEND_RECV}};
    static const char *const why[] = {"\"unpack\" comes too early", "comes too early"};
    for (int t = 0; t < 2; t++) {
        memcpy(p->xsteps, steps, sizeof(ExchangeStep) * (size_t)n);
        ExchangeStep x = p->xsteps[at[swaps[t][0]]];
        p->xsteps[at[swaps[t][0]]] = p->xsteps[at[swaps[t][1]]];
        p->xsteps[at[swaps[t][1]]] = x;
        expect_entry(a, &e, why[t], "an exchange's steps out of order");
    }
    memcpy(p->xsteps, steps, sizeof(ExchangeStep) * (size_t)n);
    p->xsteps[at[XSTEP_SEND_RECV]].in_loop = false;
    expect_entry(a, &e, "not where its loop over the pieces says",
                 "a piece's step outside its loop");
    p->xsteps = steps;
}

/* The host program (plan.h): a copy that overlaps the chain's work, a
 * tile larger than the work memory, a region off the alignment, a node run
 * before the scratch is taken, a node left out. */
static void break_host(Arena *a, Schedule *plans) {
    EntryPlan e;
    SchedOptions c_target = {.tiles_in_scratch = true};
    entry_plan(a, find(plans, "layout")->func, &c_target, &e);
    check(!plan_verify_entry(a, &e), "the entry plan of layout: %s", plan_verify_entry(a, &e));
    EntryPlan c = host_copy(a, &e);
    c.host.regions[find_region(&c, REGION_COPY)].off =
        c.host.regions[find_region(&c, REGION_WORK)].off;
    expect_entry(a, &c, "overlap", "an input copy over the chain's work memory");
    c = host_copy(a, &e);
    c.host.regions[find_region(&c, REGION_WORK)].bytes = 64;
    expect_entry(a, &c, "tile is not in its work memory", "a work memory smaller than a tile");
    c = host_copy(a, &e);
    c.host.regions[find_region(&c, REGION_COPY)].off += 8;
    expect_entry(a, &c, "not 256-byte aligned", "a misaligned region");
    c = host_copy(a, &e);
    HostAction first = c.host.actions[0];
    c.host.actions[0] = c.host.actions[c.host.nactions - 1];
    c.host.actions[c.host.nactions - 1] = first;
    expect_entry(a, &c, "before the scratch", "a node before the scratch");
    c = host_copy(a, &e);
    c.host.nactions--;
    expect_entry(a, &c, "run every node", "a node left out");
    break_exchange_steps(a, find(plans, "layout")->func);
}

static int find_action(const EntryPlan *e, HostActionKind kind) {
    for (int i = 0; i < e->host.nactions; i++)
        if (e->host.actions[i].kind == kind) return i;
    check(false, "%s has no host action of kind %d", e->func->name, kind);
    return 0;
}

/* An entry graph on 4 GPUs, run whole on every rank (EntryPlan.whole_graph):
 * without ranks, or with ranks but not run whole; a chain of it planned for
 * the ranks; a gather after a node; a result's slice not kept; a whole
 * parameter's region smaller than the array. */
static void break_whole_graph(Arena *a, const IrFunc *f) {
    SchedOptions ranks = {.gpu_log = 2, .tiles_in_scratch = true};
    EntryPlan e;
    entry_plan(a, f, &ranks, &e);
    int chain = -1;
    for (int i = 0; i < e.nnodes; i++)
        if (e.nodes[i].kind == NODE_CHAIN) chain = i;
    check(e.whole_graph && chain >= 0 && !plan_verify_entry(a, &e),
          "graphed on 4 GPUs is a graph with a chain run whole on every rank: %s",
          plan_verify_entry(a, &e) ? plan_verify_entry(a, &e) : "");
    if (chain < 0) return;
    EntryPlan c = host_copy(a, &e);
    c.gpu_log = 0;
    expect_entry(a, &c, "without ranks", "a graph run whole without ranks");
    c = host_copy(a, &e);
    c.whole_graph = false;
    expect_entry(a, &c, "run whole", "a graph on ranks not run whole");
    c = nodes_copy(a, &e);
    c.nodes[chain].chain.gpu_log = 2;
    expect_entry(a, &c, "planned for ranks", "a chain of a graph run whole planned for ranks");
    c = host_copy(a, &e);
    int gather = find_action(&c, HOST_GATHER_INPUT), node = find_action(&c, HOST_NODE);
    HostAction g = c.host.actions[gather];
    c.host.actions[gather] = c.host.actions[node];
    c.host.actions[node] = g;
    expect_entry(a, &c, "out of order", "a gather after a node");
    c = host_copy(a, &e);
    c.host.nactions--;
    expect_entry(a, &c, "keep a slice", "a result's slice not kept");
    c = host_copy(a, &e);
    c.host.regions[c.host.actions[gather].region].bytes /= 2;
    expect_entry(a, &c, "not a whole parameter", "a whole parameter's region too small");
}

int main(void) {
    Arena arena = {0};
    Schedule *plans = plans_of(&arena);
    if (plans) {
        for (int i = 0; i < ir.nfuncs; i++) {
            const char *why = plan_verify(&arena, &plans[i]);
            check(!why, "the plan of %s: %s", plans[i].func->name, why ? why : "");
        }
        check(first_of(find(plans, "sorted"), PHASE_LOCAL, true) >= 0, "an in-place phase");
        break_local(&arena, plans);
        break_live_warps(&arena, plans);
        break_part_segments(&arena, plans);
        break_kept_regs(&arena, plans);
        break_load_map(&arena, plans);
        break_store_map(&arena, plans);
        break_kernel(&arena, plans);
        break_cluster(&arena, plans);
        break_exchange(&arena, plans);
        break_flow(&arena, plans);
        break_fused_reduce(&arena, plans);
        break_host(&arena, plans);
        break_fused_planes(&arena, plans);
    }
    arena_free(&arena);
    return check_summary("plan_verify");
}
