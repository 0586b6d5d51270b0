/* schedule.h: the optimised IR of an entry cut into kernels (phases): the
 * plan of plan.h, complete, for the emitters and the simulator to read. */
#ifndef PARMC_SCHEDULE_H
#define PARMC_SCHEDULE_H

#include "machine.h"
#include "plan.h"

/* Shared memory for one LOCAL phase's tile, in bytes: the default, and the
 * range --tile-bytes accepts (up to all that a block may opt in to; a tile
 * of 16 KB still holds a segment and a register round of the widest
 * element). A tile is the largest power of two of elements that fits. */
#define SCHED_DEFAULT_TILE_BYTES (64 * 1024)
#define SCHED_MIN_TILE_BYTES (16 * 1024)
#define SCHED_MAX_TILE_BYTES MACHINE_BLOCK_SHARED_BYTES
/* Bytes of a plane that every warp access reads or writes whole, by
 * default: a cache line. */
#define SCHED_SEGMENT_BYTES MACHINE_LINE_BYTES

/* What the scheduler may use of the target. */
typedef struct {
    int tile_bytes;    /* 0: the default (schedule.c, default_tile_log) */
    int segment_bytes; /* bytes of a plane that a warp access reads whole: 32, 64 or 128 (0: 128) */
    /* tile copies in 16-byte vectors where they can be, any field size (Phase.vec_log) */
    bool vector_copies;
    bool narrow_permutes; /* permutation kernels without vectors (BmmcPlan.vec_log) */
    bool narrow_copies;   /* tile copies of 1- and 2-byte fields without vectors (Phase.vec_log) */
    int register_bytes;   /* a thread's register round, in bytes (Phase.reg_bytes_log); 0: 128 */
    /* LOCAL kernels of this many tile buffers where they fit (Phase.buffers); 0: one */
    int tile_buffers;
    int cluster_log;       /* tiles of clusters of 2^cluster_log blocks (Phase.cluster_log) */
    int gpu_log;           /* the entry runs on 2^gpu_log GPUs (ranks, plan.h) */
    int exchange_pieces;   /* cut each exchange into this many pieces (a power of two
                                   up to 2^EXCHANGE_MAX_PIECE_LOG); 0: exchange_plan.c's choice */
    bool tiles_in_scratch; /* the target holds a LOCAL phase's tile in the call's scratch
                                   (the C target), not in shared memory (host_plan.c) */
} SchedOptions;

/* Why the back end cannot compile f, an entry of one chain from its array
 * to its array result, at all (element fields or length), or NULL. */
const char *schedule_refusal(Arena *arena, const IrFunc *f);
/* Why f, of arrays of 2^n elements, cannot be compiled for 2^gpu_log GPUs
 * (each must hold at least one element), or NULL. */
const char *schedule_gpus_refusal(Arena *arena, const IrFunc *f, int n, int gpu_log);
/* Cut f into phases and plan them (tiles, swizzles, register rounds,
 * buffers, permutation kernels), for 2^gpu_log GPUs (plan.h, "Ranks"; 0:
 * one). Programs outside what the back end supports
 * (see docs/language.md) are rejected with a diagnostic at the entry (a
 * refusal above) or at the statement. opt may be NULL (the defaults). */
void schedule_func(Arena *arena, const IrFunc *f, const SchedOptions *opt, Schedule *out);
/* What an entry graph knows of chain s's planes, taken where the plan can
 * honour it (Schedule.in_shift, out_unstored; the caller reads back what
 * was taken): input plane k read at x >> in_shift[k] where the first phase
 * loads element by element (LOCAL or MAP: its tile load then moves no
 * vectors and no cp.async), output slots `unstored` left unwritten where
 * the last phase is LOCAL or MAP (the buffers assigned again, so that no
 * other phase writes the output). */
void schedule_fuse_planes(Schedule *s, const int *in_shift, unsigned unstored);
/* Chain s reads its input as a slice of a larger array in place
 * (Schedule.in_slice), where its first phase loads element by element
 * (LOCAL or MAP, no cluster, no expand read in place) and the slice keeps
 * each sector of its elements whole (none fixed inside one, so that its
 * loads move as many sectors as the whole array's): returns whether it
 * does. padded: the entry whose padded parameter is that array (its
 * caller's shape read with the pad, no segments), or NULL. */
bool schedule_fuse_slice(Schedule *s, const Slice *slice, const EntryPlan *padded);
/* Whether chain s can write its result as `slice` of a larger array in
 * place (Schedule.out_slice): its last phase LOCAL or MAP, its output whole
 * (no cut to a shape, no unstored planes, no reduce fused), no ranks, and
 * every sector of the result one of the array's (as for slices read). */
bool schedule_takes_out_slice(const Schedule *s, const Slice *slice);
/* Chain s (schedule_takes_out_slice) writes so: its buffers assigned again
 * so that no other phase writes the output, its last phase's stores element
 * by element. */
void schedule_fuse_out_slice(Schedule *s, const Slice *slice);

#endif
