/* opt_posword.h: position code as words of decision diagrams (bdd.h).
 *
 * A statement of a body whose operands are functions of the body's
 * position (POS) and constants is one too; posword computes its value as a
 * word of diagrams over the position's bits, for the rules that decide a
 * fact at every position at once (opt_stencil.c, opt_swaps.c). */
#ifndef PARMC_OPT_POSWORD_H
#define PARMC_OPT_POSWORD_H

#include "bdd.h"
#include "ir.h"

/* s's value into *out, given the words of its arguments (args[a] NULL for
 * one that is not position code) and the position's nbits bits: false
 * when s is not position code or the diagrams do not take its operator. */
bool posword(BddSet *b, const IrStmt *s, const BddInt *const *args, const Bdd *position, int nbits,
             BddInt *out);

#endif
