// padchain_driver.cpp: reads tests/emu/padchain.parm's input (any number
// of elements up to 2^17), runs parm_main_run (emulated, graph_emu.py) on
// that shape and prints its results as --interpret does.
#include "parm_io.h"
int main() {
    std::vector<int32_t> xs;
    long long e;
    while (scanf("%lld", &e) == 1) xs.push_back((int32_t)e);
    std::vector<int32_t> s(xs.size() + 1);
    int32_t sum;
    const void *in[1] = {xs.data()};
    void *out[2] = {s.data(), &sum};
    parm_ctx ctx{};
    if (parm_main_run(&ctx, in, out, 1, xs.size())) return 1;
    for (size_t i = 0; i < xs.size(); i++) { parm_print_signed(stdout, s[i]); fputc('\n', stdout); }
    parm_print_signed(stdout, sum); fputc('\n', stdout);
}
