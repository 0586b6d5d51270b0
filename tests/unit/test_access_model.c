/* test_access_model.c: the sector and bank model of
 * compiler/plan/access_model.c on access patterns whose cost the hardware
 * documents: a broadcast within a 32-bit word for 1- and 2-byte elements,
 * half-warps for 8-byte ones, and the planner's lane elimination against
 * the model it plans for.
 *
 * Prints the failures and "access_model: N passed, M failed"; exits 1 on any. */
#include "access_model.h"

#include "check.h"

/* Congestion of 32 lanes at slot base + lane * stride. */
static int strided(int elem_bytes, uint64_t stride) {
    uint64_t slot[32];
    for (int l = 0; l < 32; l++) slot[l] = 1000 * 64 + (uint64_t)l * stride;
    return access_congestion(slot, 32, elem_bytes);
}

/* Congestion of 32 lanes whose slots are the XOR of v[i] over lane bits i. */
static int linear(int elem_bytes, const uint64_t *v) {
    uint64_t slot[32];
    for (int l = 0; l < 32; l++) {
        slot[l] = 0;
        for (int i = 0; i < 5; i++)
            if (l >> i & 1) slot[l] ^= v[i];
    }
    return access_congestion(slot, 32, elem_bytes);
}

static void congestion_cases(void) {
    check(strided(4, 1) == 1, "4 bytes, consecutive: 1");
    check(strided(4, 2) == 2, "4 bytes, stride 2: 2");
    check(strided(4, 32) == 32, "4 bytes, stride 32: 32");
    check(strided(4, 33) == 1, "4 bytes, stride 33: 1");
    check(strided(4, 0) == 1, "4 bytes, one word for all: a broadcast");
    check(strided(2, 1) == 1, "2 bytes, consecutive: pairs share a word");
    check(strided(2, 2) == 1, "2 bytes, stride 2: one word per lane, 32 banks");
    check(strided(2, 4) == 2, "2 bytes, stride 4: 2");
    check(strided(1, 1) == 1, "1 byte, consecutive: four lanes a word");
    check(strided(1, 8) == 2, "1 byte, stride 8: 2");
    check(strided(8, 1) == 1, "8 bytes, consecutive: each half-warp on 16 pairs");
    check(strided(8, 2) == 2, "8 bytes, stride 2: 2 within a half-warp");
    check(strided(8, 16) == 16, "8 bytes, stride 16: 16");
    /* lanes 0-15 and 16-31 on the same pairs: different half-warps */
    uint64_t halves[5] = {1, 2, 4, 8, 64};
    check(linear(8, halves) == 1, "8 bytes, halves on the same bank pairs: 1");
    uint64_t mixed[5] = {1, 2, 4, 16, 8};
    check(linear(8, mixed) == 2, "8 bytes, lanes 0 and 8 on one pair: 2");
    check(linear(4, mixed) == 1, "4 bytes, the same slots: 1");
    /* i16: lane bit 0 in the same word, lane bit 4 two banks over a row */
    uint64_t i16[5] = {1, 2, 4, 8, 16 * 2 * 32 + 1};
    check(linear(2, i16) == 2, "2 bytes, words 0 and 512 both in bank 0: 2");
}

static void sector_cases(void) {
    uint64_t idx[32];
    for (int l = 0; l < 32; l++) idx[l] = (uint64_t)l;
    check(access_sectors(idx, 32, 4) == 4 && access_sectors_min(32, 4) == 4, "4 bytes: 4 sectors");
    check(access_sectors(idx, 32, 8) == 8 && access_sectors_min(32, 8) == 8, "8 bytes: 8 sectors");
    check(access_sectors(idx, 32, 1) == 1 && access_sectors_min(32, 1) == 1, "1 byte: 1 sector");
    for (int l = 0; l < 32; l++) idx[l] = (uint64_t)l * 8;
    check(access_sectors(idx, 32, 4) == 32, "4 bytes, stride 8: 32 sectors");
}

/* Every lane set that lane_banks_add accepts is conflict-free in the model,
 * and a set it refuses conflicts. */
static void elimination_cases(void) {
    const int sizes[4] = {1, 2, 4, 8};
    uint64_t state = 12345;
    for (int s = 0; s < 4; s++)
        for (int trial = 0; trial < 2000; trial++) {
            LaneBanks b;
            lane_banks_init(&b, sizes[s]);
            uint64_t v[5] = {0}, lane;
            int k = 0, wave = b.g.wave_log;
            bool refused = false;
            while (k < wave && !refused) {
                state = state * 6364136223846793005u + 1442695040888963407u;
                uint64_t cand = state >> 52; /* 12-bit slots */
                if (lane_banks_add(&b, cand, cand, &lane)) v[k++] = lane;
                else refused = true;
                if (refused) {
                    v[k] = cand;
                    uint64_t slot[32];
                    for (int l = 0; l < 1 << (k + 1); l++) {
                        slot[l] = 0;
                        for (int i = 0; i <= k; i++)
                            if (l >> i & 1) slot[l] ^= v[i];
                    }
                    check(access_congestion(slot, 1 << (k + 1), sizes[s]) > 1,
                          "a refused lane conflicts");
                }
            }
            if (!refused) check(linear(sizes[s], v) == 1, "accepted lanes are conflict-free");
        }
}

int main(void) {
    congestion_cases();
    sector_cases();
    elimination_cases();
    return check_summary("access_model");
}
