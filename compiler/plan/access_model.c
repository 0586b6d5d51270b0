/* access_model.c: sectors and bank congestion (access_model.h). */
#include "access_model.h"

#include "f2.h"
#include "machine.h"

static int distinct(const uint64_t *v, int n) {
    int count = 0;
    for (int i = 0; i < n; i++) {
        bool seen = false;
        for (int j = 0; j < i && !seen; j++) seen = v[j] == v[i];
        count += !seen;
    }
    return count;
}

int access_sectors(const uint64_t *idx, int lanes, int elem_bytes) {
    uint64_t sectors[MACHINE_WARP];
    if (lanes > MACHINE_WARP) lanes = MACHINE_WARP;
    for (int l = 0; l < lanes; l++)
        sectors[l] = idx[l] * (uint64_t)elem_bytes / MACHINE_SECTOR_BYTES;
    return distinct(sectors, lanes);
}

int access_sectors_min(int lanes, int elem_bytes) {
    return (lanes * elem_bytes + MACHINE_SECTOR_BYTES - 1) / MACHINE_SECTOR_BYTES;
}

/* Elements narrower than a bank's word share it; an element wider takes a
 * pair of banks, and a wavefront serves half a warp. */
BankGeometry access_bank_geometry(int elem_bytes) {
    if (elem_bytes > 1 << MACHINE_BANK_WORD_LOG)
        return (BankGeometry){0, MACHINE_BANKS_LOG - 1, MACHINE_WARP_LOG - 1};
    int shift = 0;
    while (elem_bytes << (shift + 1) <= 1 << MACHINE_BANK_WORD_LOG) shift++;
    return (BankGeometry){shift, MACHINE_BANKS_LOG, MACHINE_WARP_LOG};
}

int access_congestion(const uint64_t *slot, int lanes, int elem_bytes) {
    BankGeometry g = access_bank_geometry(elem_bytes);
    int wave = 1 << g.wave_log, banks = 1 << g.bank_bits, worst = 0;
    if (lanes > MACHINE_WARP) lanes = MACHINE_WARP;
    for (int start = 0; start < lanes; start += wave)
        for (int b = 0; b < banks; b++) {
            uint64_t words[MACHINE_WARP];
            int k = 0;
            for (int l = start; l < start + wave && l < lanes; l++) {
                uint64_t word = slot[l] >> g.word_shift;
                if ((int)(word & (uint64_t)(banks - 1)) == b) words[k++] = word;
            }
            int c = distinct(words, k);
            if (c > worst) worst = c;
        }
    return worst;
}

void lane_banks_init(LaneBanks *b, int elem_bytes) {
    *b = (LaneBanks){.g = access_bank_geometry(elem_bytes)};
}

/* Elimination on the bank key: a lane whose word reduces to zero shares a
 * word with lanes taken (served together); one whose key reduces to zero
 * but not its word would meet another word in the same bank. */
bool lane_banks_add(LaneBanks *b, uint64_t v, uint64_t slot, uint64_t *lane) {
    uint64_t mask = (UINT64_C(1) << b->g.bank_bits) - 1;
    uint64_t word = slot >> b->g.word_shift, key = word & mask;
    for (int bit = b->g.bank_bits - 1; bit >= 0; bit--)
        if ((key >> bit & 1) && b->key[bit]) {
            key ^= b->key[bit];
            word ^= b->word[bit];
            v ^= b->vec[bit];
        }
    if (!key && word) return false;
    if (key) {
        int top = f2_top_bit(key);
        b->key[top] = key;
        b->word[top] = word;
        b->vec[top] = v;
    }
    b->taken++;
    *lane = v;
    return true;
}
