// invariant_driver.cpp: reads tests/emu/invariant.parm's input, runs
// parm_main_run (emulated, graph_emu.py) and prints its result as
// --interpret does.
#include "parm_io.h"
int main() {
    std::vector<int32_t> xs(1 << 12), ys(1 << 12);
    for (auto &x : xs) { long v; if (scanf("%ld", &v) != 1) return 1; x = (int32_t)v; }
    const void *in[1] = {xs.data()};
    void *out[1] = {ys.data()};
    parm_ctx ctx{};
    if (parm_main_run(&ctx, in, out)) return 1;
    for (int32_t y : ys) { parm_print_signed(stdout, y); fputc('\n', stdout); }
}
