/* specialise.h: the specialiser's entry points (specialise.c, with value.c
 * and builtins.c behind it): the AST of ast.h to the IR of ir.h. */
#ifndef PARMC_SPECIALISE_H
#define PARMC_SPECIALISE_H

#include <stdnoreturn.h>

#include "ast.h"
#include "imports.h"
#include "ir.h"

/* The front door: specialise the named entry (or every entry when name is
 * NULL) into prog. Errors abort through diag; an unknown name that the
 * stdlib of path defines suggests its import (path NULL: no suggestion). */
void specialise_program(Arena *arena, const Program *program, const char *entry,
                        const ImportPath *path, IrProgram *prog);
/* Reports that the program has no entry named entry (NULL: no entry at all). */
noreturn void spec_no_entry(const Program *program, const char *entry);

#endif
