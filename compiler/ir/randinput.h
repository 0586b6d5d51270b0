/* randinput.h: random inputs for an entry, in the text format of io.h
 * (--random-input, and the cases of `parmc test` and `parmc bench`). */
#ifndef PARMC_RANDINPUT_H
#define PARMC_RANDINPUT_H

#include <stdint.h>
#include <stdio.h>

#include "ir.h"

/* The specialisation of `entry` that seed picks: for an entry over a size
 * range, the sizes in turn (seed modulo their count). NULL when there is no
 * such entry. */
const IrFunc *randinput_pick(const IrProgram *p, const char *entry, uint64_t seed);
/* Values for every parameter of f, the same for the same seed: integers over
 * their whole range half the time and within -20..20 otherwise (so that
 * sorts see duplicates), finite floats, booleans; for a parameter with a
 * pad, a random length (or row length, first, and number of rows) up to
 * its size. With `special`, a quarter of the floats are special: NaN of
 * either sign, infinities, -0 and 0, subnormals, the least normal and the
 * largest finite number. */
void randinput_write(FILE *out, const IrFunc *f, uint64_t seed, bool special);
/* What randinput_write writes for f at most, whatever the seed: *elements
 * elements (of every parameter, at their full size) and the bytes of their
 * text, each value at its longest (scalar_text_max) with a separator. For
 * `parmc bench` and `parmc test`, which check that the disk has room before
 * they write it. Doubles: 2^62 elements of 25 bytes overflow 64 bits. */
double randinput_bound(const IrFunc *f, double *elements);

#endif
