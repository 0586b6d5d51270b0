// cp_async.h: the cp.async copies of persistent kernels (--tile-buffers)
// on the CPU, for tests/emu/emu.cpp and graph_mock.h (before the runtime's
// ops, which then keep these). A copy may land at any time between its
// issue and the wait that covers its group, so the emulation fills the
// destination with a poison pattern at the issue and copies at the wait: a
// read of a buffer before its wait and barrier, or a load into a buffer
// that another thread still reads, then reads poison. The emulators run a
// persistent launch on EMU_GRID blocks, fewer than its tiles, so that each
// block takes several.
#include <cstring>
#include <vector>

struct CpCopy {
    void *dst;
    const void *src;
    size_t bytes;
};
static thread_local std::vector<std::vector<CpCopy>> cp_groups(1);   // the last one is open
static void emu_cp_async(void *dst, const void *src, size_t bytes) {
    memset(dst, 0x5a, bytes);
    cp_groups.back().push_back({dst, src, bytes});
}
static void emu_cp_commit() { cp_groups.emplace_back(); }
static void emu_cp_wait(size_t in_flight) {
    while (cp_groups.size() - 1 > in_flight) {
        for (const CpCopy &c : cp_groups.front()) memcpy(c.dst, c.src, c.bytes);
        cp_groups.erase(cp_groups.begin());
    }
}
// Copies that no wait covered at the end of a thread: a tile loaded for
// nothing, or a wait missing. Clears them for the thread's next kernel.
static bool cp_pending() {
    bool any = false;
    for (const auto &g : cp_groups) any |= !g.empty();
    cp_groups.assign(1, {});
    return any;
}
#define PARM_CP_ASYNC4(dst, src) emu_cp_async(dst, src, 4)
#define PARM_CP_ASYNC8(dst, src) emu_cp_async(dst, src, 8)
#define PARM_CP_COMMIT() emu_cp_commit()
#define PARM_CP_WAIT(n) emu_cp_wait(n)
#define EMU_GRID(tiles) ((tiles) < 3 ? (tiles) : 3)
