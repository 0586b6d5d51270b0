/* testcmd.h: `parmc test FILE...` runs the test cases written in the files'
 * `-- ==` comment blocks (docs/testing.md) through the interpreter, the C
 * back end and, on a machine with a GPU, CUDA; `parmc bench FILE` times the
 * entries on random input. argv[0] is "test" or "bench"; exe is parmc's own
 * argv[0], which locates the stdlib. Both return the process exit code. */
#ifndef PARMC_TESTCMD_H
#define PARMC_TESTCMD_H

int test_main(int argc, char **argv, const char *exe);
int bench_main(int argc, char **argv, const char *exe);

#endif
