/* parse.h: the front end's entry point (parse.c, with the re2c lexer and the
 * Lemon parser behind it): source text to the AST of ast.h. */
#ifndef PARMC_PARSE_H
#define PARMC_PARSE_H

#include "ast.h"

/* Parse a whole source file, appending its declarations to *program (zero it
 * before the first call); on a lexical or syntax error reports the first one
 * and aborts (diag.h). src->text must have a NUL at src->text[src->len]. */
void parse_source(Arena *arena, const Source *src, Program *program);

#endif
