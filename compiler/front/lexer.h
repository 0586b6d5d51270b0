/* lexer.h: tokens, the re2c lexer (lexer.re) and the interface between the
 * driver loop (parse.c) and the Lemon parser (parser.y).
 *
 * Tokens point into the source buffer; token codes are the TOK_* constants
 * that lemon writes to build/gen/parser.h, with 0 for the end of input.
 *
 * Layout: a declaration starts in column 1. Before any token in column 1
 * other than the first token of the file the lexer returns a virtual
 * TOK_SEP token (same location and text as the token that follows), which
 * the grammar uses to separate declarations. */
#ifndef PARMC_LEXER_H
#define PARMC_LEXER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdnoreturn.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"

typedef struct {
    int kind;      /* TOK_*, 0 at end of input */
    Loc loc;       /* first byte of the token */
    const char *s; /* the token's text in the source (not NUL-terminated) */
    int len;
    int64_t ival; /* TOK_INT */
    double fval;  /* TOK_FLOAT */
} Token;

typedef struct {
    const Source *src;
    Arena *arena;
    const unsigned char *cur, *mar, *lim; /* re2c cursor, marker, limit */
    const unsigned char *line_start;
    int line;
    bool seen_token;  /* a token has been returned: column 1 means TOK_SEP */
    bool has_pending; /* pending holds the token that follows a TOK_SEP */
    Token pending;
    Loc end_loc; /* just after the last token: where end of input is reported */
} Lexer;

void lexer_init(Lexer *lx, Arena *arena, const Source *src);
/* The next token; lexical errors are reported here (diag_error). */
Token lexer_next(Lexer *lx);

/* ---- between parse.c and parser.y ---- */

typedef struct {
    Arena *arena;
    Program *program; /* declarations are appended as they are reduced */
    Token tok;        /* the token being handed to the parser */
    Token head[2];    /* the first tokens of the current declaration, */
    int nhead;        /* for suggestions in syntax errors */
    bool in_head;     /* no '=' yet in the current declaration */
} ParseState;

/* The Lemon interface (%name Parse, %extra_context ParseState *ps). */
void *ParseAlloc(void *(*mallocProc)(size_t), ParseState *ps);
void ParseInit(void *parser, ParseState *ps);
void ParseFinalize(void *parser);
void ParseFree(void *parser, void (*freeProc)(void *));
void Parse(void *parser, int major, Token minor);
int ParseFallback(int token);
#ifndef NDEBUG
void ParseTrace(FILE *trace, char *prompt);
#endif

/* Helpers defined in parser.y, which can see the parser's tables. */
size_t parser_size(void);       /* bytes for ParseInit */
int parser_token_count(void);   /* token codes are 0 .. count-1 */
int parser_depth(void *parser); /* entries on the parser's stack */
/* The entries of the parser's stack that hold the token `major`: the
 * constructs it begins (a `let`, an `if`) that are still open. */
int parser_count(void *parser, int major);
/* Whether token would be shifted (after any reductions) in the current
 * state; the parser itself is not changed. */
bool parser_accepts(void *parser, int token);

/* Defined in parse.c, called from the grammar's error hooks. */
noreturn void parse_syntax_error(ParseState *ps, void *parser, Token tok);
/* The parser's stack is full, at ps->tok. */
noreturn void parse_too_deep(ParseState *ps, void *parser);
/* Sets e->height from its children's, rejecting trees deeper than the
 * limit as soon as they are built; called by every rule that gives a node
 * children, so a huge expression fails after its first 1000 levels. */
Expr *parse_node(Expr *e);
/* Marks the subtraction `minus`, whose operator is op, when it is written
 * as a negative argument, `f -1` (ast.h: neg_head, neg_literal). */
void parse_negative_argument(Expr *minus, Token op);

#endif
