/* access_model.h: the memory model that the kernels are planned for and that
 * --report measures them against, in one place (docs/performance.md, "The
 * access model").
 *
 * Global memory: a warp access costs the distinct 32-byte sectors that its
 * lanes touch.
 *
 * Shared memory (the Discrete Memory Machine of Koji Nakano, "Simple Memory
 * Machine Models for GPUs", with the element sizes of the hardware): 32 banks
 * of 4-byte words. Lanes reading or writing one word are served together
 * (for 1- and 2-byte elements, neighbours share a word); a wavefront serves
 * one word per bank, so an access costs the most distinct words that one
 * bank serves, its congestion. 8-byte accesses are served as two half-warps
 * (lanes 0-15, 16-31) over 16 pairs of banks, and the congestion counts
 * within each half. Tile slots are element indices in the tile. */
#ifndef PARMC_ACCESS_MODEL_H
#define PARMC_ACCESS_MODEL_H

#include <stdbool.h>
#include <stdint.h>

/* Distinct sectors of a global access of `lanes` lanes at element indices
 * idx, and the fewest any access of that many lanes can touch. */
int access_sectors(const uint64_t *idx, int lanes, int elem_bytes);
int access_sectors_min(int lanes, int elem_bytes);

/* The bank congestion of one shared access of `lanes` lanes at tile slots. */
int access_congestion(const uint64_t *slot, int lanes, int elem_bytes);

/* The banks as a linear map, for planning: the word of slot s is
 * s >> word_shift, its bank (or pair of banks) the low bank_bits bits of the
 * word, and one wavefront takes the lanes that differ in lane bits below
 * wave_log (5, or 4 for 8-byte elements). */
typedef struct {
    int word_shift, bank_bits, wave_log;
} BankGeometry;
BankGeometry access_bank_geometry(int elem_bytes);

/* Lanes chosen one by one for a conflict-free wavefront, when every lane
 * takes tile vector base ⊕ (an XOR of lane vectors) with a linear slot map:
 * a set of lanes is conflict-free when no XOR of their slots moves to another
 * word in the same bank. lane_banks_add offers a lane vector v whose slot is
 * slot; it returns false when v would conflict with the lanes taken, else
 * true with *lane = v combined with taken lanes so that the banks stay in
 * echelon form (a basis of the same lanes). */
typedef struct {
    BankGeometry g;
    uint64_t key[8], word[8], vec[8]; /* pivots, by the top bit of the bank key */
    int taken;
} LaneBanks;
void lane_banks_init(LaneBanks *b, int elem_bytes);
bool lane_banks_add(LaneBanks *b, uint64_t v, uint64_t slot, uint64_t *lane);

#endif
