// fused_driver.cpp: reads tests/emu/fused.parm's input, runs parm_main_run
// (emulated, graph_emu.py) and prints its results as --interpret does.
#include "parm_io.h"
int main() {
    std::vector<int64_t> xs(1 << 14), s(1 << 14);
    std::vector<uint32_t> k(1 << 13);
    std::vector<int64_t> v(1 << 13);
    for (auto &x : xs) { long long e; if (scanf("%lld", &e) != 1) return 1; x = e; }
    for (size_t i = 0; i < k.size(); i++) {
        unsigned long a;
        long long b;
        if (scanf("%lu %lld", &a, &b) != 2) return 1;
        k[i] = (uint32_t)a;
        v[i] = b;
    }
    int64_t sum, most;
    uint32_t tk;
    int64_t tv, vmax;
    const void *in[3] = {xs.data(), k.data(), v.data()};
    void *out[6] = {s.data(), &sum, &most, &tk, &tv, &vmax};
    parm_ctx ctx{};
    if (parm_main_run(&ctx, in, out)) return 1;
    for (int64_t x : s) { parm_print_signed(stdout, x); fputc('\n', stdout); }
    parm_print_signed(stdout, sum); fputc('\n', stdout);
    parm_print_signed(stdout, most); fputc('\n', stdout);
    parm_print_unsigned(stdout, tk); fputc('\n', stdout); parm_print_signed(stdout, tv); fputc('\n', stdout);
    parm_print_signed(stdout, vmax); fputc('\n', stdout);
}
