/* parse.c: parse_source (parse.h) drives the re2c lexer and the Lemon parser.
 *
 * Each token is checked with parser_accepts() before it is handed to
 * Parse(), so a syntax error is reported in the state where the parser
 * still knows what it expected (Lemon's default reductions would otherwise
 * have discarded that). The parser object lives in the arena, so the
 * longjmp of a diagnostic leaks nothing.
 *
 * Syntax errors read "unexpected FOUND, expected A, B or C", where the
 * expected tokens are grouped into classes ("an expression", "a pattern",
 * "a type", "an operator", ...) for readability. */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "parse.h"
#include "lexer.h"
#include "names.h"
#include "parser.h"

enum {
    MAX_BRACKETS = 200, /* open ( and [ at once */
    MAX_STACK = 5000,   /* parser stack entries; %stack_size is a bit more */
    MAX_DEPTH = 1000,   /* depth of an expression or type tree */
    MAX_TOKENS = 64,    /* bound on parser_token_count() */
};

_Static_assert(TOK_POW < MAX_TOKENS && TOK_UNARY < MAX_TOKENS, "MAX_TOKENS too small");

/* ---- describing tokens ---- */

/* How a token kind is named in a list of expected tokens. */
static const char *const expected_name[MAX_TOKENS] = {
    [0] = "end of input",
    [TOK_SEP] = "a new declaration",
    [TOK_EQ] = "'='",
    [TOK_THEN] = "'then'",
    [TOK_ELSE] = "'else'",
    [TOK_IN] = "'in'",
    [TOK_ARROW] = "'->'",
    [TOK_COLON] = "':'",
    [TOK_DOTDOT] = "'..'",
    [TOK_RPAREN] = "')'",
    [TOK_RBRACKET] = "']'",
    [TOK_COMMA] = "','",
    [TOK_LPAREN] = "'('",
    [TOK_LBRACKET] = "'['",
    [TOK_IDENT] = "an identifier",
    [TOK_INT] = "an integer",
    [TOK_FLOAT] = "a number",
    [TOK_STRING] = "a string",
    [TOK_TRUE] = "'true'",
    [TOK_FALSE] = "'false'",
    [TOK_WILD] = "'_'",
    [TOK_ENTRY] = "'entry'",
    [TOK_IMPORT] = "'import'",
    [TOK_IF] = "'if'",
    [TOK_LET] = "'let'",
    [TOK_BACKSLASH] = "'\\'",
    [TOK_BANG] = "'!'",
    [TOK_OROR] = "'||'",
    [TOK_ANDAND] = "'&&'",
    [TOK_EQEQ] = "'=='",
    [TOK_NE] = "'!='",
    [TOK_LT] = "'<'",
    [TOK_LE] = "'<='",
    [TOK_GT] = "'>'",
    [TOK_GE] = "'>='",
    [TOK_BAR] = "'|'",
    [TOK_XOR] = "'xor'",
    [TOK_AMP] = "'&'",
    [TOK_SHL] = "'<<'",
    [TOK_SHR] = "'>>'",
    [TOK_PLUS] = "'+'",
    [TOK_MINUS] = "'-'",
    [TOK_STAR] = "'*'",
    [TOK_SLASH] = "'/'",
    [TOK_PERCENT] = "'%'",
    [TOK_POW] = "'^'",
};

/* The found token as the message names it: "')'", "identifier 'xs'". */
static const char *found_name(Arena *a, Token t) {
    int len = t.len > 40 ? 40 : t.len;
    const char *more = t.len > 40 ? "..." : "";
    switch (t.kind) {
    case 0: return "end of input";
    case TOK_SEP: return arena_printf(a, "'%.*s%s' in column 1", len, t.s, more);
    case TOK_IDENT: return arena_printf(a, "identifier '%.*s%s'", len, t.s, more);
    case TOK_INT:
    case TOK_FLOAT: return arena_printf(a, "number '%.*s%s'", len, t.s, more);
    case TOK_STRING: return arena_printf(a, "string %.*s%s", len, t.s, more);
    default: return arena_printf(a, "'%.*s'", len, t.s);
    }
}

/* ---- grouping expected tokens ---- */

typedef struct {
    bool tok[MAX_TOKENS];
    int ntok;
} TokSet;

static bool has_all(const TokSet *s, const int *kinds, int n) {
    for (int i = 0; i < n; i++)
        if (!s->tok[kinds[i]]) return false;
    return true;
}

static void remove_all(TokSet *s, const int *kinds, int n) {
    for (int i = 0; i < n; i++) s->tok[kinds[i]] = false;
}

#define COUNT(a) ((int)(sizeof(a) / sizeof((a)[0])))

static const int expr_start[] = {
    TOK_INT,    TOK_FLOAT,    TOK_TRUE,  TOK_FALSE, TOK_IDENT,
    TOK_LPAREN, TOK_LBRACKET, TOK_MINUS, TOK_BANG,
};
static const int expr_only_start[] = {TOK_IF, TOK_LET, TOK_BACKSLASH};
static const int atom_start[] = {
    TOK_INT, TOK_FLOAT, TOK_TRUE, TOK_FALSE, TOK_IDENT, TOK_LPAREN, TOK_LBRACKET,
};
static const int pattern_start[] = {TOK_INT, TOK_IDENT, TOK_WILD, TOK_LBRACKET, TOK_LPAREN};
/* what `let` binds: a name (of a value or a function) or a pattern */
static const int binding_start[] = {TOK_IDENT, TOK_WILD, TOK_LBRACKET, TOK_LPAREN};
static const int type_start[] = {TOK_IDENT, TOK_LPAREN, TOK_LBRACKET};
static const int type_or_range_start[] = {TOK_IDENT, TOK_LPAREN, TOK_LBRACKET, TOK_INT};
static const int decl_start[] = {TOK_IDENT, TOK_ENTRY, TOK_IMPORT};
static const int binary_ops[] = {
    TOK_OROR,  TOK_ANDAND, TOK_EQEQ,  TOK_NE,      TOK_LT,  TOK_LE,   TOK_GT,
    TOK_GE,    TOK_BAR,    TOK_XOR,   TOK_AMP,     TOK_SHL, TOK_SHR,  TOK_PLUS,
    TOK_MINUS, TOK_STAR,   TOK_SLASH, TOK_PERCENT, TOK_POW, TOK_BANG,
};
static const int comparisons[] = {TOK_EQEQ, TOK_NE, TOK_LT, TOK_LE, TOK_GT, TOK_GE};
/* Tokens that close or continue a construct: when one is expected, the
 * operators and arguments that could also extend an expression are noise. */
static const int closers[] = {
    TOK_RPAREN, TOK_RBRACKET, TOK_COMMA, TOK_THEN,   TOK_ELSE,
    TOK_IN,     TOK_EQ,       TOK_ARROW, TOK_DOTDOT, TOK_COLON,
};

/* "A", "A or B", "A, B or C" (`last` " or "; " and " likewise) */
static char *join(Arena *a, const char **items, int n, const char *last) {
    char *s = "";
    for (int i = 0; i < n; i++)
        s = arena_printf(a, "%s%s%s", s, i == 0 ? "" : i == n - 1 ? last : ", ", items[i]);
    return s;
}

/* Describes the set of acceptable tokens. */
static char *describe_expected(Arena *a, TokSet e) {
    const char *classes[8];
    int nclass = 0;
    bool operators = false, arguments = false, closing = false;

    if (e.tok[TOK_LPAREN] && e.tok[TOK_EQ]) {
        int n = 0;
        for (int k = 0; k < e.ntok; k++) n += e.tok[k];
        if (n == 2) return "'=' or a parameter '(name : type)'";
        if (n == 3 && e.tok[TOK_COLON]) /* after an entry's parameters */
            return "'=', a parameter '(name : type)' or a result row length ': [k]'";
    }
    /* operators first: '-' and '!' are binary after an operand, not the
       start of an expression */
    int nops = 0;
    for (int i = 0; i < COUNT(binary_ops); i++) nops += e.tok[binary_ops[i]];
    if (nops >= 5) {
        operators = true;
        remove_all(&e, binary_ops, COUNT(binary_ops));
    }
    if (has_all(&e, expr_start, COUNT(expr_start))) {
        classes[nclass++] = "an expression";
        remove_all(&e, expr_start, COUNT(expr_start));
        remove_all(&e, expr_only_start, COUNT(expr_only_start));
    } else if (has_all(&e, atom_start, COUNT(atom_start))) {
        arguments = true; /* an application can go on */
        remove_all(&e, atom_start, COUNT(atom_start));
    } else if (has_all(&e, pattern_start, COUNT(pattern_start))) {
        classes[nclass++] = "a pattern";
        remove_all(&e, pattern_start, COUNT(pattern_start));
    } else if (has_all(&e, binding_start, COUNT(binding_start))) {
        classes[nclass++] = "a name or a pattern";
        remove_all(&e, binding_start, COUNT(binding_start));
    } else if (has_all(&e, type_or_range_start, COUNT(type_or_range_start))) {
        classes[nclass++] = "a type or a size range";
        remove_all(&e, type_or_range_start, COUNT(type_or_range_start));
    } else if (has_all(&e, type_start, COUNT(type_start))) {
        classes[nclass++] = "a type";
        remove_all(&e, type_start, COUNT(type_start));
    }
    if (has_all(&e, decl_start, COUNT(decl_start))) {
        classes[nclass++] = "a declaration";
        remove_all(&e, decl_start, COUNT(decl_start));
    }
    for (int i = 0; i < COUNT(closers); i++) closing |= e.tok[closers[i]];
    if (!closing) {
        if (operators) classes[nclass++] = "an operator";
        if (arguments) classes[nclass++] = "an argument";
    }

    /* Single tokens first, then the classes, then the ends of declarations. */
    const char *items[MAX_TOKENS + sizeof classes / sizeof classes[0] + 2];
    int n = 0;
    for (int k = 1; k < e.ntok; k++)
        if (e.tok[k] && k != TOK_SEP) items[n++] = expected_name[k] ? expected_name[k] : "a token";
    for (int i = 0; i < nclass; i++) items[n++] = classes[i];
    if (e.tok[TOK_SEP]) items[n++] = expected_name[TOK_SEP];
    if (e.tok[0]) items[n++] = expected_name[0];
    return join(a, items, n, " or ");
}

/* A ':' before the '=' of an equation: a parameter list with types, which
 * only an entry has. `entyr main (xs : t)` or `main (xs : t)`. */
static void entry_note(ParseState *ps) {
    Token first = ps->head[0];
    const char *name = arena_strndup(ps->arena, first.s, (size_t)first.len);
    if (ps->nhead > 1 && ps->head[1].kind == TOK_IDENT && diag_similar(name, "entry"))
        diag_note(first.loc, "only an entry's parameters have types; did you mean 'entry'?");
    else
        diag_note(first.loc, "only an entry's parameters have types; did you mean 'entry %s'?",
                  name);
}

/* Whether tok is one of the slashes of "//": a C-style comment. */
static bool is_slash_comment(Token tok) {
    const Source *src = tok.loc.src;
    if (tok.s[0] != '/' || !src || !src->text) return false;
    return tok.s[1] == '/' || (tok.s > src->text && tok.s[-1] == '/');
}

noreturn void parse_syntax_error(ParseState *ps, void *parser, Token tok) {
    TokSet e = {.ntok = parser_token_count()};
    if (e.ntok > MAX_TOKENS) e.ntok = MAX_TOKENS;
    int nexpected = 0;
    for (int k = 0; k < e.ntok; k++) nexpected += e.tok[k] = parser_accepts(parser, k);

    const char *found = found_name(ps->arena, tok);
    if (tok.kind == TOK_SEP && nexpected > 0)
        /* the column-1 token may well be the one expected ('else'): what is
           wrong is where it stands */
        diag_report(tok.loc,
                    "%s starts a new declaration, but the one above is unfinished (expected %s)",
                    found, describe_expected(ps->arena, e));
    else if (nexpected == 0) diag_report(tok.loc, "unexpected %s", found);
    else diag_report(tok.loc, "unexpected %s, expected %s", found, describe_expected(ps->arena, e));

    if (is_slash_comment(tok)) diag_note(tok.loc, "comments start with '--' in parm, not '//'");
    else if (tok.kind == TOK_SEP)
        diag_note(tok.loc, "a token in column 1 always starts a new declaration; "
                           "indent the continuation lines of a declaration");
    bool args = has_all(&e, atom_start, COUNT(atom_start));
    if (args && tok.kind == TOK_IF)
        diag_note(tok.loc, "an 'if' used as an argument or operand must be in parentheses");
    if (args && tok.kind == TOK_LET)
        diag_note(tok.loc, "a 'let' used as an argument or operand must be in parentheses");
    if (args && tok.kind == TOK_BACKSLASH)
        diag_note(tok.loc, "a lambda used as an argument or operand must be in parentheses");
    for (int i = 0; i < COUNT(comparisons); i++)
        if (tok.kind == comparisons[i] && e.tok[TOK_PLUS])
            diag_note(tok.loc, "comparisons do not chain; use parentheses or '&&'");
    if (tok.kind == TOK_COLON && ps->in_head && ps->nhead > 0 && ps->head[0].kind == TOK_IDENT)
        entry_note(ps);
    diag_abort();
}

/* The tokens that begin a construct holding what follows it (its body or
 * its right operand), so that a long chain of them, such as a `let` a line,
 * nests on the parser's stack. */
static const struct {
    int token;
    const char *name;
} nesting[] = {
    {TOK_LET, "`let ... in`"}, {TOK_IF, "`if`"},  {TOK_BACKSLASH, "`\\ ... ->`"},
    {TOK_MINUS, "'-'"},        {TOK_BANG, "'!'"}, {TOK_POW, "'^'"},
};

/* "833 unfinished `let ... in` and 2 unfinished `if`" on the parser's
 * stack, or NULL if it holds none of them. */
static const char *open_nesting(Arena *a, void *parser) {
    const char *items[COUNT(nesting)];
    int n = 0;
    for (int i = 0; i < COUNT(nesting); i++) {
        int open = parser_count(parser, nesting[i].token);
        if (open) items[n++] = arena_printf(a, "%d unfinished %s", open, nesting[i].name);
    }
    return n ? join(a, items, n, " and ") : NULL;
}

noreturn void parse_too_deep(ParseState *ps, void *parser) {
    const char *open = open_nesting(ps->arena, parser);
    diag_error(ps->tok.loc,
               "nesting too deep: the parser's stack of %d entries is full%s%s%s; move part of the "
               "expression into a function of its own",
               MAX_STACK, open ? ", holding " : "", open ? open : "",
               open ? " (each nests what follows it)" : "");
}

/* ---- tree depth ---- */

static int height_of(const Expr *e) { return e ? e->height : -1; }

static int max_int(int a, int b) { return a > b ? a : b; }

Expr *parse_node(Expr *e) {
    int h = max_int(max_int(height_of(e->fn), height_of(e->arg)),
                    max_int(height_of(e->lhs), height_of(e->rhs)));
    h = max_int(h, max_int(height_of(e->cond), max_int(height_of(e->then), height_of(e->els))));
    h = max_int(h, max_int(height_of(e->value_expr), height_of(e->body)));
    for (int i = 0; i < e->elems.len; i++) h = max_int(h, height_of(e->elems.items[i]));
    e->height = h + 1;
    if (e->height > MAX_DEPTH)
        diag_error(e->loc, "expression nesting too deep (more than %d levels)", MAX_DEPTH);
    return e;
}

/* ---- negative arguments ---- */

/* The leaf that e starts with (first) or ends with, through applications
 * and operators: the token next to an operator beside e. */
static const Expr *edge_leaf(const Expr *e, bool first) {
    while (e->kind == EXPR_APP || e->kind == EXPR_BINARY)
        e = e->kind == EXPR_APP ? (first ? e->fn : e->arg) : (first ? e->lhs : e->rhs);
    return e;
}

void parse_negative_argument(Expr *minus, Token op) {
    const Expr *head = edge_leaf(minus->lhs, false), *literal = edge_leaf(minus->rhs, true);
    if (head->kind != EXPR_VAR || (literal->kind != EXPR_INT && literal->kind != EXPR_FLOAT))
        return;
    if (literal->loc.line != op.loc.line || literal->loc.col != op.loc.col + 1 ||
        head->loc.line != op.loc.line)
        return;
    /* only blanks between the name and '-': `(g x) -1` ends in ')' */
    int gap = op.loc.col - (head->loc.col + (int)strlen(head->name));
    if (gap < 1) return;
    for (int i = 1; i <= gap; i++)
        if (op.s[-i] != ' ' && op.s[-i] != '\t') return;
    minus->neg_head = head;
    minus->neg_literal = literal;
}

/* Rejects types deeper than MAX_DEPTH, counting the expressions inside, so
 * that later passes can recurse over them. */
static void check_type_depth(const TypeExpr *t, int depth) {
    if (!t) return;
    if (depth > MAX_DEPTH)
        diag_error(t->loc, "type nesting too deep (more than %d levels)", MAX_DEPTH);
    if (t->length && depth + 1 + t->length->height > MAX_DEPTH)
        diag_error(t->length->loc, "expression nesting too deep (more than %d levels)", MAX_DEPTH);
    check_type_depth(t->elem, depth + 1);
    for (int i = 0; i < t->fields.len; i++) check_type_depth(t->fields.items[i], depth + 1);
}

/* ---- the driver loop ---- */

static void track_head(ParseState *ps, Token t) {
    if (t.kind == TOK_SEP) {
        ps->nhead = 0;
        ps->in_head = true;
    } else if (ps->nhead < COUNT(ps->head)) {
        ps->head[ps->nhead++] = t;
    }
    if (t.kind == TOK_EQ) ps->in_head = false;
}

/* ---- names bound once ---- */

/* A name bound a second time in one binding (parameters, a lambda's, a
 * let's pattern, an entry's): the first could never be read. */
static noreturn void bound_twice(const char *name, Loc second, Loc first) {
    diag_report(second, "'%s' is bound twice here", name);
    diag_note(
        first,
        "its first binding is here; a name is bound once in one pattern or list of parameters");
    diag_abort();
}

/* Records name as bound at *at in seen (Loc* by name), checking that it
 * was not bound there before: through a hash table, since a list pattern
 * may have 2^16 names. */
static void bind_once(Arena *a, NameTable *seen, const char *name, const Loc *at) {
    const Loc *first = name_find(seen, name);
    if (first) bound_twice(name, *at, *first);
    name_add(a, seen, name, (void *)at);
}

/* The variables of p, recorded in seen. */
static void bind_names(Arena *a, const Pattern *p, NameTable *seen) {
    if (p->kind == PAT_LIST || p->kind == PAT_TUPLE) {
        for (int i = 0; i < p->elems.len; i++) bind_names(a, p->elems.items[i], seen);
        return;
    }
    if (p->kind == PAT_VAR) bind_once(a, seen, p->name, &p->loc);
}

static void distinct_params(Arena *a, const PtrList *patterns) {
    NameTable seen = {0};
    for (int i = 0; i < patterns->len; i++) bind_names(a, patterns->items[i], &seen);
}

/* Every lambda's and let's bindings in e (its height is at most MAX_DEPTH,
 * so the recursion is bounded). */
static void distinct_in_expr(Arena *a, const Expr *e) {
    if (!e) return;
    if (e->kind == EXPR_LAMBDA || (e->kind == EXPR_LET && e->params.len))
        distinct_params(a, &e->params);
    if (e->kind == EXPR_LET && !e->params.len) {
        NameTable seen = {0};
        bind_names(a, e->bind, &seen);
    }
    const Expr *kids[] = {e->fn,   e->arg, e->lhs,        e->rhs, e->cond,
                          e->then, e->els, e->value_expr, e->body};
    for (size_t i = 0; i < sizeof kids / sizeof kids[0]; i++) distinct_in_expr(a, kids[i]);
    for (int i = 0; i < e->elems.len; i++) distinct_in_expr(a, e->elems.items[i]);
}

static void distinct_entry_params(Arena *a, const Entry *en) {
    NameTable seen = {0};
    for (int i = 0; i < en->params.len; i++) {
        const EntryParam *p = en->params.items[i];
        bind_once(a, &seen, p->name, &p->loc);
    }
}

void parse_source(Arena *arena, const Source *src, Program *program) {
    ParseState ps = {.arena = arena, .program = program, .in_head = true};
    if (!program->src) program->src = src;
    size_t first_entry = (size_t)program->entries.len;
    int first_equation = program->equations.len;
    Lexer lx;
    lexer_init(&lx, arena, src);
    void *parser = arena_alloc(arena, parser_size());
    ParseInit(parser, &ps);

    int brackets = 0;
    for (;;) {
        Token t = lexer_next(&lx);
        ps.tok = t;
        track_head(&ps, t);
        if (t.kind == TOK_LPAREN || t.kind == TOK_LBRACKET) {
            if (++brackets > MAX_BRACKETS)
                diag_error(t.loc, "nesting too deep (more than %d open brackets)", MAX_BRACKETS);
        } else if ((t.kind == TOK_RPAREN || t.kind == TOK_RBRACKET) && brackets > 0) {
            brackets--;
        }
        if (parser_depth(parser) >= MAX_STACK) parse_too_deep(&ps, parser);
        if (!parser_accepts(parser, t.kind)) parse_syntax_error(&ps, parser, t);
        Parse(parser, t.kind, t);
        if (t.kind == 0) break;
    }
    ParseFinalize(parser);

    for (int i = (int)first_entry; i < program->entries.len; i++) {
        const Entry *en = program->entries.items[i];
        for (int j = 0; j < en->params.len; j++) {
            const EntryParam *p = en->params.items[j];
            check_type_depth(p->type, 0);
        }
        distinct_entry_params(arena, en);
        distinct_in_expr(arena, en->body);
    }
    for (int i = first_equation; i < program->equations.len; i++) {
        const Equation *eq = program->equations.items[i];
        distinct_params(arena, &eq->params);
        distinct_in_expr(arena, eq->body);
    }
}
