/* testcmd.h: `parmc test FILE...` runs the test cases written in the files'
 * `-- ==` comment blocks (docs/testing.md) through the interpreter, the C
 * back end and, on a machine with a GPU, CUDA. argv[0] is "test"; exe is
 * parmc's own argv[0], which locates the stdlib. Returns the process exit
 * code. (`parmc bench` is benchcmd.h's.) */
#ifndef PARMC_TESTCMD_H
#define PARMC_TESTCMD_H

int test_main(int argc, char **argv, const char *exe);

#endif
