/* plan.h: the back end's plan of an entry, what the scheduler hands on.
 *
 * The scheduler (schedule.c, with plan_rounds.c) builds it; the C and CUDA
 * emitters, the access simulator and --dump-plan (plan_print.c) only read
 * it, and plan_verify.c checks it. Everything in it lives in the
 * compilation's arena; phases, steps and rounds are counted, not capped.
 *
 * Between kernels the array lies in memory in some order: the logical index
 * of the element at memory index x is Q·x ⊕ q. Permutations only change Q;
 * they cost nothing until the end, where one permutation kernel writes the
 * logical order.
 *
 * A LOCAL phase reads the coset x0 + V of a tile subspace V of memory indices
 * (V contains the low seg_log bits, so every warp access is whole segments),
 * runs its steps on the tile, and writes the tile back where it came from or
 * in the next phase's layout. A stage is a column of pairs: the two elements
 * whose logical indices differ in bit 0, which in memory differ by a vector
 * of V. Consecutive steps share a phase while their pair vectors and the
 * segment bits span at most the tile dimension, so the number of passes over
 * memory is minimal for that tile.
 *
 * Tile coordinates: u (tile_log bits) is the element at memory index
 * x0 ⊕ W·u, W = tile_cols, with W's first seg_log columns e0.. (so u's low
 * bits are a segment's lanes); block b has x0 = C·b, C = block_cols. */
#ifndef PARMC_PLAN_H
#define PARMC_PLAN_H

#include "bmmc_kernel.h"
#include "ir.h"

#define SCHED_MAX_TILE 19        /* tile bits: 2^16 of a block, and a cluster of 8 */
#define SCHED_MAX_CLUSTER_LOG 3  /* blocks of a cluster, log2: 8, the portable most */
#define SCHED_MAX_SLOTS 16       /* primitive fields of an element */
#define ENTRY_MAX_API_FIELDS 120 /* parameters and results of an entry's API, by field */
/* pieces of an exchange, log2: the CUDA context holds two events each */
#define EXCHANGE_MAX_PIECE_LOG 5

/* Where a table (IR_TABLE, opt_tables.c) that a CUDA kernel's element code
 * reads lives, chosen by the scheduler for each kernel that reads it
 * (table_place.c): IMMEDIATE where every read's index is known at compile
 * time (the kernel reads the entries as literals), CONSTANT for a small
 * table that every lane of a warp reads at one index (the constant cache
 * broadcasts it), GLOBAL (through the read-only data cache) for the rest.
 * The C target reads every table as an array. */
typedef enum { TABLE_GLOBAL, TABLE_CONSTANT, TABLE_IMMEDIATE } TablePlace;
typedef struct {
    const IrStmt *table; /* the IR_TABLE statement */
    TablePlace place;
} TableUse;

/* The shared arrays that a kernel other than a LOCAL phase's declares
 * (kernel_plan.c): a REDUCE node's two kernels, a SCAN node's and the
 * reduce fused into a chain's phase. Each holds one thing (SharedRole) for
 * one field of the element (`field`; -1: for all of them), rows × cols
 * elements of elem_bytes; `bytes` is their sum. They are static shared
 * memory, which the CUDA compiler places, so the plan gives no offsets. */
typedef enum {
    SHARED_WARP_TOTALS, /* a block's reduction: each warp's total, a warp a slot */
    SHARED_CHUNKS,      /* a scan's 16-byte chunks, a warp a row (PlanNode.chunks_log) */
    SHARED_WARP_SCANS,  /* a scan's warps' totals, then their inclusive prefixes */
    SHARED_TILE_TOTAL,  /* a looking-back scan's total of its tile */
    SHARED_TILE_PREFIX, /* and the prefix its look-back found */
    SHARED_TILE_HAS,    /* whether it found one (an int) */
    SHARED_LOOK_STOP,   /* whether the look-back's window held a tile's prefix (an int) */
    SHARED_TILE_NUMBER, /* the tile's number, in the order blocks start (a u64) */
    SHARED_ROLE_COUNT
} SharedRole;

typedef struct {
    SharedRole role;
    int field;
    int elem_bytes, rows, cols;
} SharedArray;

typedef struct {
    const SharedArray *arrays;
    int n;
    int bytes;
} SharedPlan;

/* A slice of an array of 2^log elements: element x of the slice is the
 * element whose index holds the bits of x, in order, at the bit positions
 * outside `fixed` and the bits of `value` at those in it (a run of `half
 * (2^p) b` keeps such a sub-array; plan_slice_index). */
typedef struct {
    int log;
    uint64_t fixed, value;
} Slice;

typedef struct {
    const IrStmt *stmt; /* the IR statement: a two over groups, or a map */
    const IrBody *body; /* [2^g]t -> [2^g]t for a two; t -> t for a map */
    /* A two's body works on groups of 2^group_log elements (a pair: 1; a
     * map: 0). The element of a group whose logical index has low bits c is
     * base ⊕ (XOR of group[i] over the bits i of c), group[i] tile vectors;
     * logical bit i of the element at u in block b is parity(order[i] & u) ^
     * parity(order_block[i] & b) ^ bit i of order_const, and the group's
     * base is the element where all group_log of them are 0. */
    int group_log;
    uint64_t group[SCHED_MAX_TILE];
    uint64_t order[SCHED_MAX_TILE], order_block[SCHED_MAX_TILE];
    uint64_t order_const;
    /* The position its body sees (POS): the group's index in the two, or the
     * element's in the map. Bit j is parity(pos_u[j] & u) ^ parity(pos_b[j]
     * & b) ^ bit j of pos_const, for u the tile coordinate of the element
     * (any one of a group) and b the block. */
    int pos_bits;
    uint64_t pos_u[64], pos_b[64], pos_const;
    /* The same over the thread index of the CUDA kernel's register round
     * that runs the step (Round; plan_rounds.c): parity(order[i] & base(tid))
     * = parity(order_tid[i] & tid), and parity(pos_u[j] & base(tid)) =
     * parity(pos_tid[j] & tid), base(tid) the thread's first element; and
     * over the round's register index rho: parity(order[i] & (the offset of
     * register rho)) = bit i of parity(order_reg[i] & rho) (plan_reg_mask). */
    uint64_t order_tid[SCHED_MAX_TILE], order_reg[SCHED_MAX_TILE];
    uint64_t pos_tid[64];
    /* After halves (Phase.half_step), the groups that only elements no half
     * keeps make are skipped where registers decide it: the round works on
     * the groups whose register index rho (of the group's base) has
     * parity(kept_regs[i] & rho) = bit i of kept_value for every i <
     * kept_log, one i a half in effect whose functional vanishes on the
     * round's threads (plan_rounds.c; the warps that threads decide skip
     * the whole round, Round.live_log). Halves never pair a kept element
     * with a dropped one (plan_verify.c), so the kept ones read none of
     * what is skipped. */
    int kept_log;
    uint64_t kept_regs[SCHED_MAX_TILE];
    uint64_t kept_value;
    /* the tables its body reads (nested bodies' included), in the order of
       the body's statements */
    TableUse *tables;
    int ntables;
} Step;

/* A register round of a LOCAL phase's CUDA kernel: steps first..first+count-1
 * run with thread `tid` holding the tile elements base(tid) ^ R·j, where
 * base(tid) is the XOR of threads[i] over the bits i of tid (plan_rounds.c).
 * The round loads them from shared memory in its layout (tile element u at
 * slot P·u, P = slots; round 0's is the phase's slot_cols) and stores them in
 * the next round's layout (the last round: the phase's). Such a store
 * writes only slots that its own warp read (after a __syncwarp) unless
 * `sync`: then a block barrier comes first. */
typedef struct {
    int first, count;
    uint64_t regs[SCHED_MAX_TILE];    /* R: tile vector of register bit i */
    uint64_t threads[SCHED_MAX_TILE]; /* tile vector of thread-index bit i */
    uint64_t slots[SCHED_MAX_TILE];   /* P: slot of tile vector e_i */
    int reg_log;
    bool sync; /* a __syncthreads before the store */
    /* In a phase of a cluster (Phase.cluster_log): whether the round's
     * threads reach tile elements in other blocks' shared memory. A round
     * that does not keeps its threads' elements in their own block (its
     * registers and its block's threads span the tile coordinates below
     * the rank's, and the rank's thread bits are the rank's coordinates),
     * so its accesses are the block's own shared memory and its barriers
     * the block's; a remote round reads and writes through the cluster's
     * shared memory (mapa) between cluster barriers. */
    bool remote;
    /* Each pair or map step is one loop over the thread's pairs (elements)
     * that nvcc unrolls (#pragma unroll), not a block per register: the same
     * machine code from a fraction of the source (plan_rounds.c). */
    bool loops;
    /* After halves (Phase.half_step), the warps whose elements no half
     * keeps skip the round: a warp works when parity(live_tid[i] & tid) is
     * bit i of live_value for every i < live_log (its lanes and registers
     * share the halves' decided bits, plan_rounds.c). */
    int live_log;
    uint64_t live_tid[SCHED_MAX_TILE];
    uint64_t live_value;
} Round;

/* EXCHANGE: a permutation (as PERMUTE) of an entry compiled for several
 * GPUs, over the ranks' slices (see "Ranks" below). */
typedef enum { PHASE_LOCAL, PHASE_PERMUTE, PHASE_MAP, PHASE_EXCHANGE } PhaseKind;

/* The buffers a phase reads and writes: the entry's input and output
 * arrays, or one of two scratch buffers. */
typedef enum { BUF_IN, BUF_OUT, BUF_SCRATCH_A, BUF_SCRATCH_B } BufId;

/* Calls whose input planes overlap output planes (in place, in == out) are
 * correct: when the first phase writes scratch it has read the whole input
 * before anything writes the output, so no overlap matters (ALIAS_HARMLESS);
 * when it is a LOCAL phase that writes each tile where it read it, an input
 * plane that is exactly its output plane is harmless too (ALIAS_EXACT_OK);
 * any other overlap makes the call copy the input to scratch first. */
typedef enum { ALIAS_HARMLESS, ALIAS_EXACT_OK, ALIAS_COPY } AliasRule;

/* The host's side of an EXCHANGE phase (host_plan.c), in the order both
 * targets run it; the C target runs each step for every rank in turn and
 * its events are nothing (one process, in order). The CUDA target's
 * caller's stream packs and unpacks, its communication stream moves the
 * chunks between the ranks:
 *   TABLES: the routing of the chunks (Phase.send_to, ...) for the rank;
 *   FORK: the communication stream starts after the caller's stream's work
 *     so far (the phase's input written, the receive buffer read);
 *   KEEP_COPY: without a pack, the chunk the rank keeps copied to its slot;
 *   PIECES ... END: a loop over the pieces k (Phase.piece_log);
 *   PACK: piece k packed into the send buffer (the kept chunk into the
 *     receive buffer); PACKED: an event the communication stream waits for;
 *   SEND_RECV: piece k of every chunk that crosses, sent and received (one
 *     NCCL group); RECEIVED: an event recorded after it;
 *   WAIT_RECEIVED: the caller's stream waits for piece k's event;
 *   UNPACK: piece k (0 outside a loop) unpacked into the destination. */
typedef enum {
    XSTEP_TABLES,
    XSTEP_FORK,
    XSTEP_KEEP_COPY,
    XSTEP_PIECES,
    XSTEP_END,
    XSTEP_PACK,
    XSTEP_PACKED,
    XSTEP_SEND_RECV,
    XSTEP_RECEIVED,
    XSTEP_WAIT_RECEIVED,
    XSTEP_UNPACK,
} ExchangeStepKind;

typedef struct {
    ExchangeStepKind kind;
    bool in_loop; /* inside PIECES ... END: of piece k */
} ExchangeStep;

typedef struct {
    PhaseKind kind;
    int n;                   /* the array has 2^n elements */
    const ElemType *elem;    /* element type written (read, for LOCAL/PERMUTE) */
    const ElemType *in_elem; /* element type read */
    BufId src, dst;          /* the buffers it reads and writes */
    /* LOCAL */
    int seg_log, tile_log, block_log;
    uint64_t tile_cols[SCHED_MAX_TILE];
    uint64_t block_cols[64];
    Step *steps;
    int nsteps;
    /* Where the tile goes: element x (memory index read) is written at
     * write_mat·x ⊕ write_compl; identity for a phase that writes in place.
     * For block b and output tile coordinates sigma the index written is
     * (XOR of out_block_cols[k] for the bits k of b) ⊕ write_compl ⊕ Z·sigma
     * with Z = out_cols (its first seg_log columns e0..), and its source is
     * tile element u = G·sigma, G = src_cols. */
    bool writes_in_place;
    F2Mat write_mat;
    uint64_t write_compl;
    uint64_t out_cols[SCHED_MAX_TILE];
    uint64_t src_cols[SCHED_MAX_TILE];
    uint64_t out_block_cols[64];
    /* The chain's halves fused into the write (Schedule.halves;
     * plan_half.c): the write above, element x to y = write_mat·x ⊕
     * half_compl, keeps only the y whose top half_log bits are half_keep,
     * at y's low n - half_log bits, in an output of 2^(n - half_log)
     * elements: out_tile_log = tile_log - half_log output coordinates sigma
     * per tile, and Z, G, out_block_cols and write_compl are those of the
     * shorter output, the source being tile element G·sigma ⊕ src_const.
     * Without halves: half_log 0, out_tile_log = tile_log, src_const 0. */
    uint64_t half_keep, half_compl, src_const;
    int half_log, out_tile_log;
    /* Half i comes before step half_step[i] of the phase: from there on the
     * tile elements whose y bit n - 1 - i is not the half's kept value hold
     * nothing the write keeps (register rounds skip them: Round.live_log). */
    int *half_step;
    /* With Schedule.live_rows: whether the block checks its class first;
     * row bit i of a row of the class of block b is parity(live_b[i] & b)
     * ^ bit i of live_const (the class is that row ⊕ the span of
     * Schedule.live_basis). */
    bool live_check;
    uint64_t live_b[F2_MAX];
    uint64_t live_const;
    /* Where tile element u sits in shared memory: slot = P·u, P = slot_cols,
     * the identity plus an XOR swizzle of high tile bits into the five bank
     * bits, chosen so that the write side's warp reads hit distinct banks. */
    uint64_t slot_cols[SCHED_MAX_TILE];
    /* The CUDA kernel: 2^threads_log threads, the steps in register rounds
     * of about 2^reg_bytes_log bytes of elements per thread (plan_rounds.c). */
    int threads_log, reg_bytes_log;
    /* A tile larger than a block's shared memory (sm_90): a cluster of
     * 2^cluster_log blocks holds it in their distributed shared memory.
     * Block rank r of the cluster holds the slots whose top cluster_log
     * bits are r (every layout keeps them the tile coordinate's top bits,
     * the rank coordinates), the 2^(tile_log - cluster_log) below them at
     * their low bits; its 2^(threads_log - cluster_log) threads are
     * threads r·2^(threads_log - cluster_log).. of the tile (the thread
     * index's top bits are the rank), and the tile copies move the
     * block's own slots. 0: a block per tile. */
    int cluster_log;
    /* The copies between memory and the tile in the tile's layout (the
     * load, and the write-back of a phase in place) move 2^vec_log
     * consecutive elements per thread as one 16-byte vector of each plane:
     * thread tid, iteration i takes tile elements j | tid << vec_log |
     * i << (threads_log + vec_log), j < 2^vec_log. 0: one element each, at
     * tid | i << threads_log. vec_write: the write into the next layout in
     * vectors too, output coordinates j | tid << vec_log | ... (the output
     * block columns have no bits below vec_log; element j goes to position
     * j ^ (write_compl's low bits) of its vector). */
    int vec_log;
    bool vec_write;
    /* The copies of 1- or 2-byte fields move one element a thread where
     * 16-byte vectors fit the layout (--narrow-copies): --report --strict
     * names it. */
    bool copies_narrowed;
    /* Tile buffers in shared memory (--tile-buffers): 1, a block per tile;
     * 2 or 3, persistent blocks that each take tiles blockIdx.x,
     * blockIdx.x + gridDim.x, ... and load the next buffers - 1 tiles with
     * cp.async (element by element, every field 4 or 8 bytes) while they
     * work on one, so the loads, the rounds and the write-back of
     * consecutive tiles overlap. */
    int buffers;
    /* The kernel's shared memory and occupancy (kernel_plan.c): a tile
     * buffer of tile_bytes (a block's share of a cluster's tile) holds
     * field k's plane at byte plane_off[k], the
     * widest fields first, so that each plane starts at a multiple of its
     * element size (a 1-byte plane of 2 elements before a float plane would
     * misalign the floats); the kernel takes shared_bytes (its buffers) and
     * its launch bounds ask for blocks_per_sm resident blocks per SM. */
    int tile_bytes, shared_bytes;
    int plane_off[SCHED_MAX_SLOTS];
    int blocks_per_sm;
    Round *rounds;
    int nrounds;
    /* The C target's tile (host_plan.c): in the chain's work memory, the
     * tile offsets (8 bytes an element) and then each slot's plane at
     * work_tile_off[k], as the CUDA kernel's shared memory holds them. */
    unsigned long long work_tile_off[SCHED_MAX_SLOTS], work_tile_bytes;
    /* PERMUTE: y = mat·x ⊕ compl, one planned kernel per slot */
    F2Mat mat;
    uint64_t compl ;
    BmmcPlan *slot_plans; /* elem->nslots of them */
    /* MAP: an elementwise function that changes the element type; the
     * element at memory index x has position (POS) P·x ⊕ p, P = map_pos.
     * A LOCAL phase with a map runs it on each element as it loads its
     * tile (in_elem from memory, elem into the tile): the MAP phase it
     * saves would have written the memory order that the phase reads. */
    const IrStmt *map;
    F2Mat map_pos;
    uint64_t map_pos_const;
    TableUse *map_tables; /* as Step.tables */
    int nmap_tables;
    /* LOCAL: a map run on each element as it is stored, from elem to the
     * type the next phase reads (the chain's out_elem after the last): the
     * MAP phase that followed folded into the write (fold_store_map: one
     * pass less). The element stored at memory index z has position
     * store_pos·z ⊕ store_pos_const. Such a map reads no tables. */
    const IrStmt *store_map;
    F2Mat store_pos;
    uint64_t store_pos_const;
    /* EXCHANGE: y = mat·x ⊕ compl (as PERMUTE) in three steps, on the
     * local indices l (ln = n - gpu_log bits) of each rank r:
     *   pack: element l to send index s = pack·l (none when !packs: the
     *     source is the send buffer); s holds chunk t (its top chunk_log
     *     bits) and offset j (the rest);
     *   route: chunk t of rank r goes to rank send_to[r·2^h + t] (h =
     *     chunk_log), as its slot send_slot[r·2^h + t]; recv_from and
     *     recv_chunk say the same from the receiver's side. Every pair of
     *     ranks that meet moves one chunk of 2^(ln-h) elements (linearity);
     *     none when !crosses (then h = 0, every chunk stays, and the send
     *     buffer is the receive buffer);
     *   unpack: receive index rho (slot, offset) of rank d to local index
     *     unpack·rho ⊕ unpack_const[d] (none when !unpacks: the chunks are
     *     received into the destination). */
    bool crosses, packs, unpacks;
    int chunk_log;
    F2Mat pack, unpack;
    F2Mat pack_inv; /* pack's inverse: the pack kernel gathers its send index s from pack_inv·s */
    int *send_to, *send_slot, *recv_from, *recv_chunk;
    uint64_t *unpack_const;
    /* The chunk rank r keeps (sends to itself), or -1: the pack writes it
     * straight into the receive buffer at its slot (the unpack's input, or
     * the destination when !unpacks); without a pack it is copied. */
    int *kept;
    /* Pipelining (when crosses): every chunk is cut into 2^piece_log
     * pieces, the offset bits piece_lo .. piece_lo + piece_log - 1 (of the
     * send index and of the receive index alike): the top ones when the
     * exchange has a pack and an unpack of its own (the pack puts them
     * there), else lower ones where the kernel there needs it, a piece of a
     * chunk then being 2^(ln - h - piece_log - piece_lo) runs of
     * 2^piece_lo elements. Piece k is packed, sent and received (one NCCL
     * group) and unpacked in turn, the kernels of later pieces overlapping
     * the transfer of earlier ones; the one-pass kernels below run one piece
     * per launch (BmmcPlan.piece_log). 0: one piece, and serial_why says why
     * (NULL when nothing crosses). */
    int piece_log, piece_lo;
    const char *serial_why;
    /* The pack and unpack as one-pass BMMC kernels, one per slot (the
     * unpack's per rank: unpack_plans[rank][slot], its constant being the
     * rank's), or NULL: a plain kernel, one element per thread. */
    BmmcPlan *pack_plans, **unpack_plans;
    /* The blocks of 256 threads of a kernel that loops over the elements
     * (host_plan.c): a MAP phase's, and an EXCHANGE's plain pack and
     * unpack (a piece each launch) */
    unsigned long long grid_blocks;
    /* The host's steps (see ExchangeStep above) */
    ExchangeStep *xsteps;
    int nxsteps;
} Phase;

/* Ranks (--gpus G = 2^gpu_log): the top gpu_log bits of a memory index
 * name the rank (GPU) holding the element, so rank r holds memory indices
 * r·2^(n-gpu_log) .. (r+1)·2^(n-gpu_log)-1 at local index x mod 2^(n-gpu_log);
 * the input and the output are split the same way. LOCAL phases have tiles
 * without the rank bits (the rank bits are the top block bits, so each rank
 * runs its own blocks) and write each element on its own rank; MAP phases
 * are elementwise; every permutation is an EXCHANGE phase. */
typedef struct {
    const IrFunc *func;
    int n;
    int gpu_log; /* 0: one GPU */
    /* Too small to split (an entry for 2^whole_log GPUs, planned with
     * gpu_log 0): the chain needs a block larger than a rank's slice of
     * 2^(n-whole_log) elements for element code (a two's body that reads
     * its block's elements), so every rank runs the whole chain: it
     * gathers every rank's slice of the input into its whole_in planes
     * (an all-gather), runs the phases, a one-GPU plan, from them into its
     * whole_out planes, and keeps its own slice of those as its output.
     * Element code's blocks are at most 2^5 elements, so such arrays are
     * tiny and the redundant work costs nothing. 0: split (or one GPU). */
    int whole_log;
    unsigned long long whole_in_off[SCHED_MAX_SLOTS], whole_out_off[SCHED_MAX_SLOTS];
    const ElemType *in_elem, *out_elem;
    /* The entry's parameters: the array, at index in_param, and the
     * run-time scalars (args, in order), which element bodies read and the
     * API passes by value. */
    int in_param;
    const IrVal **args;
    int nargs;
    /* Per arg: passed by reference (a device pointer to one element, read
     * in every kernel's prologue into parm_arg<id>): a scalar that an
     * earlier node of the entry graph computed on the device. NULL: all by
     * value. */
    const bool *arg_by_ref;
    Phase *phases;
    int nphases;
    /* Phase i reads what phase i-1 wrote (phase 0 the input) and writes the
     * output (always the last phase, and only a phase whose slots have the
     * output's types) or a scratch buffer. The scratch of a call is one
     * allocation: the planes of buffer A, then those of B, each as large as
     * the largest phase that writes it, at 256-byte aligned offsets;
     * scratch_bytes ends them (an emitter may put its own memory after). */
    int scratch_planes[2];
    unsigned long long scratch_plane_off[2][SCHED_MAX_SLOTS];
    unsigned long long scratch_bytes;
    /* After the planes (host_plan.c, offsets in the chain's scratch): the
     * work memory of the C target's LOCAL phases (one runs at a time) at
     * work_off, and with ranks the exchanges' send and receive buffers, nx
     * planes each (each a rank's slice) at xs_off and xr_off, or the whole
     * arrays of a chain too small to split (whole_log) at whole_in_off and
     * whole_out_off; the chain's scratch ends at chain_scratch_bytes. */
    unsigned long long work_off;
    int nx;
    unsigned long long xs_off[SCHED_MAX_SLOTS], xr_off[SCHED_MAX_SLOTS], x_bytes[SCHED_MAX_SLOTS];
    unsigned long long chain_scratch_bytes;
    AliasRule alias; /* what an input that overlaps the output needs */
    /* An entry of any length (IrFunc.pad): the caller's arrays hold
     * parm_rows rows of parm_cols elements (run-time values, at most
     * 2^pad_rows_log by 2^pad_cols_log; one row when pad_rows_log < 0),
     * row-major with parm_cols as the stride; the element at index
     * r·2^pad_cols_log + c of the padded order is there when r < parm_rows
     * and c < parm_cols. The first phase reads any other index as the pad,
     * the last writes only those, and no other phase writes the output.
     * NULL pad: the arrays have 2^n elements. pad_in_only: the input alone
     * is the caller's shape, the output whole (a chain of an entry graph
     * that reads the padded parameter itself, entry_plan.c). */
    const Scalar *pad;
    int pad_rows_log, pad_cols_log;
    bool pad_in_only;
    /* An entry with segments (IrFunc.seg_starts): row r of the padded order
     * is the caller's elements parm_starts[r] .. parm_starts[r] + parm_lens[r]
     * - 1 of the parm_cols of its array (parm_rows is 1); what reads or
     * writes the caller's shape takes the two arrays too (emit_shape_params). */
    bool segments;
    Prim seg_starts_prim, seg_lens_prim;
    /* With segments, where only the write-back of segments reads the
     * chain's output (plan_live_rows.c): rows whose indices differ by a
     * vector of the span of live_basis[0..live_dim) (a class) meet in its
     * tiles, rows of different classes never do, so a block of a phase
     * that checks (Phase.live_check) returns at once when every row of its
     * class has length 0. */
    bool live_rows;
    int live_dim;
    uint64_t live_basis[F2_MAX];
    /* A commutative reduce of the chain's result, fused into it (an entry
     * graph's, entry_plan.c): phase reduce_phase, a LOCAL phase that only
     * permutations follow, also reduces the tile of each block b with the
     * reduce's operator into element b of its node's partial planes (one
     * per field of the reduced elements). NULL: none. */
    const IrStmt *reduce;
    int reduce_phase;
    SharedPlan reduce_shared; /* the fused reduce's warps' totals */
    /* Halves in the chain (entry_plan.c), in order: the steps after one
     * work on the kept half, and all of them are fused into the write of
     * the last phase, a LOCAL phase that writes the logical order (Phase.
     * half_log): the result has 2^(n - nhalves) elements. Until that write
     * the phases carry the whole array, the elements no half keeps too
     * (their work wasted, never written), so the scheduler takes halves
     * only where no phase boundary comes after the first. Where it cannot
     * fuse them, half_refused says why and the plan is not to be used:
     * half_fit is how many of the first halves could be (their steps within
     * the last phase's tile), and entry_plan.c plans the chain up to the
     * last of those, or without its one half, which stays a GATHER. */
    const IrStmt **halves;
    int nhalves, half_fit;
    const char *half_refused;
    /* Asked for clusters (SchedOptions.cluster_log), why a LOCAL phase
     * could not take one: schedule_func then plans without (NULL: none
     * refused). */
    const char *cluster_refused;
    /* What an entry graph knows of the chain's planes (entry_plan.c, set by
     * schedule_fuse_planes). Input plane k holds 2^(n - in_shift[k])
     * elements and element x of the chain's input is element x >>
     * in_shift[k] of it (an expand fused into the first phase's load; 0:
     * the plane itself); only a first phase that loads element by element,
     * LOCAL or MAP, reads such planes. Bit k of out_unstored: output slot
     * k, which nothing reads, is not stored (the last phase, LOCAL or MAP,
     * is the only one that writes the output). */
    int in_shift[SCHED_MAX_SLOTS];
    unsigned out_unstored;
    /* A slice of a larger array read in place (entry_plan.c, set by
     * schedule_fuse_slice): every input plane holds the 2^in_slice.log
     * elements of the array a run of halves by powers of two cut the
     * chain's input from, and the first phase, LOCAL or MAP, loads element
     * x of the input from element plan_slice_index(&in_slice, x) of them.
     * With a pad (pad_in_only) that array is the padded parameter, read
     * through the caller's shape. log 0: none. */
    Slice in_slice;
    /* A slice of a larger array written in place (set by
     * schedule_fuse_out_slice): every output plane holds 2^out_slice.log
     * elements, of which the chain writes its own, element y of its result
     * at plan_slice_index(&out_slice, y), the other chain of a join of two
     * arrays writing the rest (entry_plan.c, fuse_join); only the last
     * phase, LOCAL or MAP, element by element, writes the output. */
    Slice out_slice;
} Schedule;

/* ---- The entry graph (entry_plan.c) ----
 *
 * An entry's body is a DAG of whole-array and scalar statements. It is cut
 * into nodes that run in order; each reads and writes planes (arrays are
 * structure of arrays: one plane per primitive field). A value is a list of
 * planes, so zip, unzip and renamings cost nothing. A plane lies in an
 * entry parameter, an entry result, a temporary of the scratch, or (a
 * scalar known without memory) is a value: an entry scalar parameter or a
 * constant; a chain's output plane that nothing reads is not stored
 * (UNSTORED, Schedule.out_unstored). */
typedef enum { LOC_PARAM, LOC_RESULT, LOC_TEMP, LOC_VALUE, LOC_UNSTORED } PlaneKind;

typedef struct {
    PlaneKind kind;
    int index;   /* PARAM, RESULT: the flat plane index among the entry's
                                   array parameters' (results') planes; TEMP: the temporary */
    int log_len; /* 2^log_len elements (0 for a scalar) */
    Prim prim;
    const IrVal *val; /* VALUE: the scalar (an entry parameter or a CONST) */
    /* PARAM, RESULT of an entry of any length (EntryPlan.pad): the caller's
     * array holds the shape given (parm_rows rows of parm_cols elements,
     * row-major), not 2^log_len elements; only a COPY_PAD node or a chain
     * with a pad reads it, only a COPY_CUT node or a chain with a pad that
     * does not pad its loads alone (pad_in_only) writes it */
    bool shaped;
    /* A shaped RESULT of the entry's result row length (IrFunc.cut_cols):
     * its rows of 2^(log_len - pad_rows_log) are cut to row_cut elements,
     * not to the caller's row length (0) */
    long long row_cut;
} PlaneRef;

typedef struct {
    unsigned long long off, bytes; /* in the scratch, 256-byte aligned */
} Temp;

/* CHAIN: array statements, each reading the previous one's single-use
 * result: a Schedule (one array in, one array out).
 * REDUCE: a whole-array reduce to scalars, in the interpreter's tree order,
 * or a reduceblocks: each row of 2^(n - rows_log) consecutive elements
 * reduced so, into element `row` of its output planes.
 * EXPAND: an expand, element x of the output read from x >> k of the input.
 * FILL: an entry-level replicate (or one scalar value stored to a result).
 * COPY: planes copied (a result that is a parameter, or a value returned twice).
 * SERIAL: scalar statements, indexing of arrays at constants and builds of
 * small arrays, run by one thread.
 * GATHER: an entry-level half, join or shift (stmt, and those fused before
 * it: pre): each element of the result read from where the statements say
 * (the inputs: the argument's planes, join's two arguments' one after the
 * other; args: the shifts' fills).
 * SCAN: a scanblocks or exscanblocks (stmt), one pass over the array: on
 * CUDA each block of threads scans a tile of consecutive elements and, where
 * a scanned block of 2^k spans tiles, takes its prefix from the tiles before
 * it (a decoupled look-back over their published totals, `partial`). */
typedef enum {
    NODE_CHAIN,
    NODE_REDUCE,
    NODE_FILL,
    NODE_COPY,
    NODE_SERIAL,
    NODE_EXPAND,
    NODE_GATHER,
    NODE_SCAN
} NodeKind;

/* How a COPY node copies, for an entry of any length (EntryPlan.pad):
 * COPY_PAD from the caller's shape into the padded order (index
 * r·2^pad_cols_log + c), the pad at every other index; COPY_CUT from the
 * padded order to the caller's shape, the indices outside it left out;
 * COPY_SHAPE the caller's shape as it lies, from the padded parameter to a
 * result of its shape (no segments, no row cut): its rows·cols elements,
 * one copy, no kernel. */
typedef enum { COPY_PLAIN, COPY_PAD, COPY_CUT, COPY_SHAPE } CopyMode;

typedef struct {
    NodeKind kind;
    int n;              /* log length of the arrays it works on */
    const PlaneRef *in; /* the planes read: the chain's input, the reduced array, the copied */
    int nin;
    const PlaneRef *out; /* the planes written */
    int nout;
    /* scalars its element code reads as parm_arg<id>: by value (LOC_VALUE)
     * or from the device (any other location) */
    const IrVal **args;
    const PlaneRef *arg_at;
    int nargs;
    Schedule chain;     /* CHAIN */
    const IrStmt *stmt; /* REDUCE, FILL (NULL: a scalar value stored), EXPAND, GATHER */
    /* REDUCE: maps applied to each element as it is loaded (a map in front
     * of a reduction costs no pass of its own); `in` holds the first one's
     * input, of type pre_elem. GATHER: the halves, shifts and joins of one
     * array with itself before `stmt` that only it reads, in program order,
     * whose index maps its kernel composes (no pass of their own); `in`
     * holds the first one's input */
    const IrStmt **pre;
    int npre;
    const ElemType *pre_elem;
    /* REDUCE: plane k of `in` is an expand's input, read at x >> in_shift[k]
     * (an expand read in place, entry_plan.c; 0: the plane itself). NULL:
     * none. A CHAIN's are its Schedule.in_shift. */
    const int *in_shift;
    /* REDUCE on CUDA: a block of 2^threads_log threads, each reducing 2^per_thread_log
     * contiguous elements, 2^blocks_log blocks; partial planes (temps) hold
     * the blocks' results, which a second kernel reduces.
     * A reduceblocks has 2^rows_log rows (0 for a reduce): 2^blocks_log
     * blocks per row, and the second kernel one block per row, when a row
     * is larger than a block (none when blocks_log is 0); else the threads
     * of a row are 2^row_threads_log <= 32 lanes of a warp, which reduce
     * their row by shuffles alone and write it, in the one kernel. */
    int per_thread_log, threads_log, blocks_log;
    int rows_log, row_threads_log;
    /* SCAN on CUDA: tiles of 2^threads_log threads of 2^per_thread_log
     * consecutive elements, 2^grid_log tiles; `partial` holds one element
     * per tile of each field, its total and then its inclusive prefix (2·ns
     * planes), and last a u64 plane of 2^(grid_log+1): each tile's state (0
     * none yet, 1 its total, 2 its prefix) and, after them, the counter that
     * numbers the tiles in the order their blocks start. An element of one
     * field of at most 4 bytes has the u64 plane alone: the value published
     * is in the state word's high half. Plane k of the tile goes between
     * global memory and the threads' registers through shared memory, a
     * warp's 16-byte chunks at a time, when chunks_log[k] >= 0: 2^chunks_log[k]
     * chunks a thread, lane l's chunk c at slot l·C + (c ⊕ ((l >> (3 -
     * chunks_log)) mod C)), C = 2^chunks_log (kernel_plan.c); -1: directly. */
    int chunks_log[SCHED_MAX_SLOTS];
    /* the first kernel's 2^grid_log blocks in all (a reduce's 2^blocks_log,
     * a reduceblocks' over every row), and the second's threads, one block
     * over the partials (of a row) */
    int grid_log, final_threads_log;
    /* REDUCE on CUDA: of the first kernel's 2^grid_log blocks and the
     * second's 2^rows_log, 2^grid_y_log and 2^final_grid_y_log in the grid's
     * y dimension, where x alone cannot hold them (plan_grid_y_log): block
     * blockIdx.x + (blockIdx.y << (log2 of the x dimension)) */
    int grid_y_log, final_grid_y_log;
    /* REDUCE and SCAN on CUDA: the shared arrays of the (first) kernel, and
     * of a REDUCE's second kernel over the partials */
    SharedPlan shared, final_shared;
    /* REDUCE on CUDA: the partials (one plane per field of the result);
     * CHAIN with a fused reduce (chain.reduce): the per-block partials it
     * writes, which the REDUCE node after it reads */
    const PlaneRef *partial;
    int npartial;
    /* FILL, COPY (other than COPY_PLAIN), EXPAND, GATHER and SERIAL: their
     * kernel's launch (host_plan.c), grid_blocks blocks of grid_threads
     * threads, which loop over the 2^n elements (SERIAL: one thread) */
    unsigned long long grid_blocks;
    int grid_threads;
    CopyMode copy; /* COPY */
    /* SERIAL: its statements; params are the scalars it loads (in: one plane
     * each, element `load_index`), results those it stores */
    IrBody *serial;
    const int64_t *load_index;
} PlanNode;

/* What one kernel of a REDUCE or SCAN node loads as element x of the array
 * its statement reduces or scans (plan_node_loads, plan_partial_loads):
 * planes `in`, plane k at x >> in_shift[k] where in_shift is not NULL (an
 * expand read in place), each element through the maps `pre` where npre >
 * 0, else each plane one field of the element. */
typedef struct {
    const IrStmt *stmt;
    const PlaneRef *in;
    int nin;
    const IrStmt *const *pre;
    int npre;
    const int *in_shift;
} NodeLoads;

/* ---- The host program (host_plan.c) ----
 *
 * What NAME_run does, for every entry, in order. One scratch allocation
 * from the context holds every region, at 256-byte aligned offsets: the
 * graph's temporaries, then the chains' area (the chains run one at a time
 * and share it: each chain's planes, its work memory and its exchange
 * buffers or whole arrays), then the copies of parameter planes that overlap a result
 * (allocated only when some call needs one), or for a graph run whole on
 * every rank (EntryPlan.whole_graph), the whole parameters and results. */
typedef enum {
    REGION_TEMP,
    REGION_CHAIN,
    REGION_WORK,
    REGION_SEND,
    REGION_RECV,
    REGION_WHOLE_IN,
    REGION_WHOLE_OUT,
    REGION_COPY
} RegionKind;

typedef struct {
    RegionKind kind;
    /* CHAIN, WORK, SEND, RECV, WHOLE_IN, WHOLE_OUT: the chain's node; else -1
     * (a WHOLE_IN or WHOLE_OUT of an entry graph run whole: whole_graph) */
    int node;
    /* TEMP: the temporary; SEND, RECV: the plane; WHOLE_IN, WHOLE_OUT: the
     * chain's plane, or the entry's parameter (result) plane; COPY: the
     * parameter plane */
    int index;
    unsigned long long off, bytes;
} ScratchRegion;

/* RESULTS_DISJOINT: PARM_ERROR_ALIAS when two result planes overlap.
 * ALIAS_TEST: whether parameter plane `index` overlaps a result plane (all
 * of them when `tests`, none otherwise), except the result plane
 * `exact_ok` when it is exactly the same array (-1: none).
 * SCRATCH: the allocation, of HostProgram.bytes, or bytes_copies when
 * some parameter plane is copied.
 * COPY_INPUT: parameter plane `index`, when it overlaps, copied into region
 * `region`, which the nodes then read instead.
 * NODE: node `index` runs.
 * GATHER_INPUT (EntryPlan.whole_graph): every rank's slice of parameter
 * plane `index`, in rank order, into region `region` (its whole array),
 * which the nodes then read.
 * KEEP_SLICE (whole_graph): the rank's slice of result plane `index`
 * (all of a scalar) from region `region`, where the nodes wrote it whole,
 * to the caller's result. */
typedef enum {
    HOST_RESULTS_DISJOINT,
    HOST_ALIAS_TEST,
    HOST_SCRATCH,
    HOST_COPY_INPUT,
    HOST_NODE,
    HOST_GATHER_INPUT,
    HOST_KEEP_SLICE
} HostActionKind;

typedef struct {
    HostActionKind kind;
    int index;
    bool tests;
    int exact_ok;
    int region;
} HostAction;

typedef struct {
    ScratchRegion *regions;
    int nregions;
    unsigned long long bytes, bytes_copies;
    HostAction *actions;
    int nactions;
} HostProgram;

typedef struct {
    const IrFunc *func;
    PlanNode *nodes;
    int nnodes;
    Temp *temps;
    int ntemps;
    int nin_planes, nout_planes;      /* the array parameters' planes, the results' */
    PlaneRef *in_planes, *out_planes; /* their shapes (kind PARAM / RESULT) */
    unsigned long long chain_off;     /* where chains' own scratch starts (after the temps) */
    unsigned long long chain_bytes; /* the largest chain's scratch (Schedule.chain_scratch_bytes) */
    HostProgram host;
    int n;       /* log length of the first array (parameter, else result); -1: none */
    int gpu_log; /* compiled for 2^gpu_log GPUs ("Ranks") */
    /* With ranks, an entry graph (neither plan_one_chain nor plan_one_copy)
     * that every rank runs whole: its nodes are planned for one GPU, over
     * whole arrays; the rank gathers each array parameter whole first
     * (HOST_GATHER_INPUT) and keeps its own slice of each result last
     * (HOST_KEEP_SLICE), a scalar result whole. */
    bool whole_graph;
    /* An entry of any length (IrFunc.pad); when it is a graph, a COPY_PAD node
     * first copies its padded parameter (of 2^pad_log elements of type
     * pad_elem) into temporaries in the padded order, and a COPY_CUT node
     * last copies each result of that length to the caller's shape, so
     * that every other node sees whole arrays, as the interpreter's body
     * does. The API passes the shape as parm_rows and parm_cols (one row
     * when pad_rows_log < 0) after the scalars. NULL pad: none. */
    const Scalar *pad;
    const ElemType *pad_elem;
    int pad_log, pad_rows_log, pad_cols_log;
    /* An entry with segments (Schedule.segments): the API's input planes of
     * the rows' starts and lengths, and their types. */
    bool segments;
    int seg_starts_plane, seg_lens_plane;
    Prim seg_starts_prim, seg_lens_prim;
} EntryPlan;

/* A size of a ranged entry that the back end refuses whole while other
 * sizes compile (driver.c leaves it out with a warning). The API keeps the
 * interpreter's choice of size and returns ERROR_LENGTH where it would fall
 * on this one: for its n, and for an entry of any length, for the shapes
 * whose smallest holding size it is (never a larger size's result). */
typedef struct {
    const IrFunc *func;
    const char *why;
    int n;         /* as EntryPlan.n: log length of the first array */
    int next_plan; /* the plans compiled before it (their count): its place among them */
} RefusedSize;

void plan_print_entry(FILE *out, const EntryPlan *e);
const char *plan_verify_entry(Arena *arena, const EntryPlan *e);

/* "in", "out", "sa" or "sb": also the names of the emitted arrays of planes. */
const char *plan_buf_name(BufId b);

/* The names of the emitted code, which the emitters write and --report
 * (simulate.c) prints. The base of IR function f's own names: parm_F, in
 * arena a (its code is parm_F_run, ...). The parm_ namespace, which no API
 * prefix may use, keeps every such name apart from the exported ones. */
const char *plan_code_base(Arena *a, const IrFunc *f);
/* Whether e's graph is one chain from its parameters' planes to its results'
 * (a sort, a zipped sort unzipped): it is named, printed and reported as that
 * chain. */
bool plan_one_chain(const EntryPlan *e);
/* Whether e's graph is one copy from its parameters' planes to its
 * results', plain or of the caller's shape as it lies (an entry that
 * returns its parameters): the same array on both sides is harmless, and on
 * several GPUs each rank copies its slice. */
bool plan_one_copy(const EntryPlan *e);
/* The bytes of plane p: 2^log_len elements of its primitive. */
unsigned long long plan_plane_bytes(const PlaneRef *p);
/* The bytes of a rank's part of API plane p of e: with ranks, its slice
 * of an array; all of a scalar (of a graph run whole). */
unsigned long long plan_rank_bytes(const EntryPlan *e, const PlaneRef *p);
/* Whether e, of any length, writes nothing for an empty shape: every result
 * is an array of the caller's shape (no scalar, no row cut), so its call
 * returns at once (without segments, whose results are the segments'). */
bool plan_empty_shape_writes_nothing(const EntryPlan *e);
/* Node `node` of e: the code base of an entry that is one chain
 * (plan_one_chain), else BASE_nNODE (its chain's code, or its reduce's, ...). */
const char *plan_node_name(Arena *a, const EntryPlan *e, int node);
/* Phase `phase` of the chain named `chain`: CHAIN_PHASE, the function that
 * launches its kernels (CHAIN_PHASE_kernel, CHAIN_PHASE_slotK, ...). */
const char *plan_phase_name(Arena *a, const char *chain, int phase);

/* "chain", "reduce", "fill", "copy", "serial" or "expand". */
const char *plan_node_kind_name(NodeKind k);

/* Where a table lives, in words: "global memory (read-only cache)", ... */
const char *plan_table_place_name(TablePlace place);

/* Scratch offsets are aligned for any access the kernels make (cudaMalloc's
 * alignment): plan_align rounds bytes up to it. */
#define PLAN_ALIGN 256
unsigned long long plan_align(unsigned long long bytes);

/* The shared-memory slot of tile element u in a LOCAL phase (P·u). */
uint64_t plan_slot(const Phase *p, uint64_t u);
/* A functional f over tile coordinates on round rd's registers, as a mask
 * over the register index: parity(f & R·rho) = parity(mask & rho). */
uint64_t plan_reg_mask(const Round *rd, uint64_t f);
/* A LOCAL phase's block (Phase.cluster_log): the tile coordinates below
 * the rank's, and the block's threads, log2. */
int plan_block_tile_log(const Phase *p);
int plan_block_threads_log(const Phase *p);
/* Whether an entry of any length takes rows of one row length (rows,
 * row_len), rather than a flat array (one dimension, or segments: n). */
bool plan_pad_by_rows(const EntryPlan *e);
/* The blocks of a grid of 2^blocks_log that go in its y dimension, log2:
 * none while x holds them (2^30 at most, so that a block number times a
 * block's threads stays an int), else the rest (PlanNode.grid_y_log). */
int plan_grid_y_log(int blocks_log);
/* The loads of a REDUCE or SCAN node's (first) kernel: its input planes,
 * maps and shifts; and of a REDUCE's second kernel: its partials, one plane
 * a field, read as they are. */
NodeLoads plan_node_loads(const PlanNode *n);
NodeLoads plan_partial_loads(const PlanNode *n);
/* Whether a REDUCE node runs its second kernel over per-block partials:
 * a whole reduce always, a reduceblocks where a row spans blocks. */
bool plan_reduce_partials(const PlanNode *n);
/* Whether a SCAN node's scanned blocks span tiles, so that a tile looks
 * back for its prefix; and whether they span the warps of a tile, whose
 * totals then meet in shared memory. */
bool plan_scan_looks_back(const PlanNode *n);
bool plan_scan_spans_warps(const PlanNode *n);
/* The shared array of sh that holds `role` for `field` (-1: for every
 * field), or NULL. */
const SharedArray *plan_shared_array(const SharedPlan *sh, SharedRole role, int field);
/* Whether a LOCAL phase loads its tile in 16-byte vectors (Phase.vec_log):
 * not through cp.async (Phase.buffers) nor a load map (Phase.map), which
 * take each element alone. */
bool plan_vector_load(const Schedule *s, const Phase *p);
/* Whether phase p reads the chain's input at indices other than its own:
 * shifted (Schedule.in_shift) or through a slice (Schedule.in_slice). */
bool plan_shifted_load(const Schedule *s, const Phase *p);
/* Element x of a slice: its index in the sliced array (Slice). */
uint64_t plan_slice_index(const Slice *sl, uint64_t x);
/* Whether phase p stores its output slot k (Schedule.out_unstored). */
bool plan_stores_slot(const Schedule *s, const Phase *p, int k);
/* The element type phase p writes: its store map's result (Phase.store_map)
 * where it has one, else its own. */
const ElemType *plan_out_elem(const Phase *p);
/* Whether phase p's result fits the output: every slot of what it writes
 * has the type of the output's slot (the output's planes are only as large
 * as the output). */
bool plan_fits_output(const Schedule *s, const Phase *p);

/* A POS statement of a step's body (or, with st NULL, of a phase's map,
 * Phase.map) as masks: bit k of its value is parity(on_u[k] & u) ^
 * parity(on_b[k] & b) ^ bit k of *konst, with u and b as in Step (for a MAP
 * phase on_u is over the memory index and on_b is 0). Returns the bits. */
int plan_pos(const Phase *p, const Step *st, const IrStmt *pos, uint64_t *on_u, uint64_t *on_b,
             uint64_t *konst);
/* The same POS of a phase's store map (Phase.store_map), on_u over the
 * memory index it stores. Returns the bits. */
int plan_store_pos(const Phase *p, const IrStmt *pos, uint64_t *on_u, uint64_t *konst);
/* The same POS of a step's body over the thread index of its register
 * round (Step.pos_tid): bit k depends on the thread as parity(on_tid[k] &
 * tid). Returns the bits. */
int plan_pos_threads(const Step *st, const IrStmt *pos, uint64_t *on_tid);

/* plan_verify.c: the plan's invariants. Returns NULL when they hold, else
 * a description of the first one broken (in the arena). */
const char *plan_verify(Arena *arena, const Schedule *s);

#endif
