// i32_driver.cpp: the driver of a program of one i32 array in and one of the
// same length out (tests/emu/sklansky.parm, invariant.parm): reads the
// input's values, runs parm_main_run (emulated, graph_emu.py) and prints its
// result as --interpret does. graph.sh uses it for a NAME.parm without a
// NAME_driver.cpp of its own.
#include "parm_io.h"
int main() {
    std::vector<int32_t> xs;
    for (long v; scanf("%ld", &v) == 1;) xs.push_back((int32_t)v);
    std::vector<int32_t> ys(xs.size());
    const void *in[1] = {xs.data()};
    void *out[1] = {ys.data()};
    parm_ctx ctx{};
    if (parm_main_run(&ctx, in, out)) return 1;
    for (int32_t y : ys) { parm_print_signed(stdout, y); fputc('\n', stdout); }
}
