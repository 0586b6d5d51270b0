// retype_driver.cpp: reads tests/emu/retype.parm's input, runs
// parm_main_run (emulated, graph_emu.py) and prints its result as
// --interpret does.
#include "parm_io.h"
int main() {
    std::vector<int32_t> xs(1 << 14), ys(1 << 14);
    std::vector<float> f(1 << 14);
    std::vector<uint8_t> u(1 << 14);
    for (auto &x : xs) { long v; if (scanf("%ld", &v) != 1) return 1; x = (int32_t)v; }
    const void *in[1] = {xs.data()};
    void *out[3] = {f.data(), u.data(), ys.data()};
    parm_ctx ctx{};
    if (parm_main_run(&ctx, in, out)) return 1;
    for (size_t i = 0; i < f.size(); i++) {
        parm_print_f32(stdout, f[i]); fputc(' ', stdout);
        parm_print_unsigned(stdout, u[i]); fputc('\n', stdout);
    }
    for (int32_t y : ys) { parm_print_signed(stdout, y); fputc('\n', stdout); }
}
