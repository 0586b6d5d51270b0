// graph_driver.cpp: reads tests/emu/graph.parm's input, runs parm_main_run
// (emulated, graph_emu.py) and prints its results as --interpret does.
#include "parm_io.h"
int main() {
    std::vector<int32_t> xs(1 << 14);
    std::vector<float> y0(1 << 12);
    std::vector<int64_t> y1(1 << 12);
    std::vector<uint8_t> zs(8);
    for (auto &x : xs) { long v; if (scanf("%ld", &v) != 1) return 1; x = (int32_t)v; }
    for (size_t i = 0; i < y0.size(); i++) {
        double f;
        long long v;
        if (scanf("%lf %lld", &f, &v) != 2) return 1;
        y0[i] = (float)f;
        y1[i] = v;
    }
    for (auto &z : zs) { long v; if (scanf("%ld", &v) != 1) return 1; z = (uint8_t)v; }
    int32_t r0;
    float r1, r4;
    int64_t r2;
    uint8_t r3;
    const void *in[4] = {xs.data(), y0.data(), y1.data(), zs.data()};
    void *out[5] = {&r0, &r1, &r2, &r3, &r4};
    parm_ctx ctx{};
    if (parm_main_run(&ctx, in, out)) return 1;
    parm_print_signed(stdout, r0); fputc('\n', stdout);
    parm_print_f32(stdout, r1); fputc('\n', stdout);
    parm_print_signed(stdout, r2); fputc('\n', stdout);
    parm_print_unsigned(stdout, r3); fputc('\n', stdout);
    parm_print_f32(stdout, r4); fputc('\n', stdout);
}
