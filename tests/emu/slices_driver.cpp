// slices_driver.cpp: reads tests/emu/slices.parm's input (any number of
// elements up to 2^13), runs parm_main_run (emulated, graph_emu.py) on that
// shape and prints its results (8 values, 8 indices) as --interpret does.
#include "parm_io.h"
int main() {
    std::vector<int32_t> xs;
    long long e;
    while (scanf("%lld", &e) == 1) xs.push_back((int32_t)e);
    float v[8];
    int64_t i[8];
    const void *in[1] = {xs.data()};
    void *out[2] = {v, i};
    parm_ctx ctx{};
    if (parm_main_run(&ctx, in, out, 1, xs.size())) return 1;
    for (int k = 0; k < 8; k++) { parm_print_f32(stdout, v[k]); fputc('\n', stdout); }
    for (int k = 0; k < 8; k++) { parm_print_signed(stdout, i[k]); fputc('\n', stdout); }
}
