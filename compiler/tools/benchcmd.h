/* benchcmd.h: `parmc bench FILE` times the entries of a file on random input
 * (docs/testing.md). argv[0] is "bench"; exe is parmc's own argv[0], which
 * locates the stdlib. Returns the process exit code. */
#ifndef PARMC_BENCHCMD_H
#define PARMC_BENCHCMD_H

int bench_main(int argc, char **argv, const char *exe);

#endif
