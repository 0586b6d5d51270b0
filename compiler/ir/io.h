/* io.h: the standalone text format of entry inputs and results.
 *
 * Inputs are whitespace-separated values in index order, tuples flattened
 * field by field within each element; results are written one element per
 * line, the fields of a tuple separated by spaces. */
#ifndef PARMC_IO_H
#define PARMC_IO_H

#include <stdio.h>

#include "ir_eval.h"

/* The shape given to an entry's padded parameter (docs/language.md, 7):
 * rows of cols elements (one row for a one-dimensional parameter). */
typedef struct {
    long rows, cols;
} IoShape;

/* Parse `text` (named `name` in messages) as the inputs of an entry. For an
 * entry over a size range the number of values picks the specialisation.
 * text holds len bytes and a NUL after them; a NUL byte among them is an
 * error. Errors are reported through diag and abort. The caller frees the
 * buffers. For an entry with a padded parameter the count (and the row
 * length, the first token, for rows) gives the shape, *shape, and the
 * smallest specialisation that takes it. */
const IrFunc *io_read_inputs(const IrProgram *p, const char *entry, const char *name,
                             const char *text, long len, Buf ***inputs, IoShape *shape);
/* The results; those of the padded parameter's length truncated to shape
 * (for an entry with segments, each row's segment in row order, from the
 * segments' parameters among the inputs). */
void io_write_results(FILE *out, const IrFunc *f, Buf *const *inputs, Buf **results, IoShape shape);
/* Read a whole stream into a NUL-terminated heap buffer; NULL on error, with
 * errno saying why. */
char *io_slurp(FILE *in, long *len);

#endif
