// single_driver.cpp: reads tests/emu/single.parm's input, runs parm_main_run
// (emulated, graph_emu.py) and prints its results as --interpret does.
#include "parm_io.h"
int main() {
    long x, k;
    double f;
    if (scanf("%ld %ld %lf", &x, &k, &f) != 3) return 1;
    int32_t xs = (int32_t)x, mapped, sum;
    uint8_t y0 = (uint8_t)k, r0;
    float y1 = (float)f, r1;
    const void *in[3] = {&xs, &y0, &y1};
    void *out[4] = {&r0, &r1, &mapped, &sum};
    parm_ctx ctx{};
    if (parm_main_run(&ctx, in, out)) return 1;
    parm_print_unsigned(stdout, r0); fputc('\n', stdout);
    parm_print_f32(stdout, r1); fputc('\n', stdout);
    parm_print_signed(stdout, mapped); fputc('\n', stdout);
    parm_print_signed(stdout, sum); fputc('\n', stdout);
}
