/* parser.y: the Lemon grammar of parm (see docs/language.md).
 *
 * Actions only build trees in the arena; declarations are appended to
 * ps->program as they are reduced, so source order is kept. parse.c feeds
 * the tokens and checks each one with parser_accepts() before handing it
 * over, so syntax errors are reported before any default reduction has
 * thrown away what the parser was expecting; %syntax_error is a backstop.
 *
 * Precedence, lowest first: \ -> , if, let (as far right as possible);
 * || ; && ; == != < <= > >= (non-associative) ; | ; xor ; & ; << >> ;
 * + - ; * / % ; unary - ! ; ^ (right) ; application ; atoms. */

%name Parse
%token_prefix TOK_
%token_type {Token}
%extra_context {ParseState *ps}
%stack_size 5100
%start_symbol program

%syntax_error {
    (void)yymajor;
    parse_syntax_error(ps, yypParser, TOKEN);
}
%stack_overflow {
    parse_too_deep(ps, yypParser); /* a backstop: parse.c stops at MAX_STACK first */
}
/* Nothing to free (the arena owns everything); this only uses ps, which
 * the template's destructor function would otherwise leave unused. */
%token_destructor { (void)ps; (void)$$; }

/* Token order fixes the order in which expected tokens are listed. */
%token SEP EQ THEN ELSE IN ARROW COLON DOTDOT RPAREN RBRACKET COMMA
       LPAREN LBRACKET IDENT INT FLOAT STRING TRUE FALSE WILD
       ENTRY IMPORT IF LET BACKSLASH BANG.

%left OROR.
%left ANDAND.
%nonassoc EQEQ NE LT LE GT GE.
%left BAR.
%left XOR.
%left AMP.
%left SHL SHR.
%left PLUS MINUS.
%left STAR SLASH PERCENT.
%right UNARY.
%left BANG.
%right POW.

%include {
#include <assert.h>
#include <string.h>

#include "lexer.h"
#include "parser.h"

/* An application operand with the location of its first token, so that an
 * application node can carry the location of its function's first token. */
typedef struct {
    Expr *e;
    Loc start;
} Spanned;

static char *tok_name(ParseState *ps, Token t)
{
    return arena_strndup(ps->arena, t.s, (size_t)t.len);
}

static Expr *mk_expr(ParseState *ps, ExprKind kind, Loc loc)
{
    Expr *e = NEW(ps->arena, Expr);
    e->kind = kind;
    e->loc = loc;
    return e;
}

static Op binop_of(int tok)
{
    switch (tok) {
    case TOK_PLUS: return OP_ADD;
    case TOK_MINUS: return OP_SUB;
    case TOK_STAR: return OP_MUL;
    case TOK_SLASH: return OP_DIV;
    case TOK_PERCENT: return OP_MOD;
    case TOK_POW: return OP_POW;
    case TOK_SHL: return OP_SHL;
    case TOK_SHR: return OP_SHR;
    case TOK_AMP: return OP_BAND;
    case TOK_BAR: return OP_BOR;
    case TOK_XOR: return OP_XOR;
    case TOK_EQEQ: return OP_EQ;
    case TOK_NE: return OP_NE;
    case TOK_LT: return OP_LT;
    case TOK_LE: return OP_LE;
    case TOK_GT: return OP_GT;
    case TOK_GE: return OP_GE;
    case TOK_ANDAND: return OP_AND;
    case TOK_OROR: return OP_OR;
    case TOK_BANG: return OP_INDEX;
    default: assert(!"not a binary operator"); return OP_ADD;
    }
}

/* lhs OP rhs, located at the operator. */
static Expr *mk_binary(ParseState *ps, Token op, Expr *lhs, Expr *rhs)
{
    Expr *e = mk_expr(ps, EXPR_BINARY, op.loc);
    e->op = binop_of(op.kind);
    e->lhs = lhs;
    e->rhs = rhs;
    return parse_node(e);
}

static Expr *mk_unary(ParseState *ps, Token op, Op o, Expr *arg)
{
    Expr *e = mk_expr(ps, EXPR_UNARY, op.loc);
    e->op = o;
    e->lhs = arg;
    return parse_node(e);
}

static Pattern *mk_pat(ParseState *ps, PatternKind kind, Loc loc)
{
    Pattern *p = NEW(ps->arena, Pattern);
    p->kind = kind;
    p->loc = loc;
    return p;
}

static TypeExpr *mk_type(ParseState *ps, TypeExprKind kind, Loc loc)
{
    TypeExpr *t = NEW(ps->arena, TypeExpr);
    t->kind = kind;
    t->loc = loc;
    return t;
}

/* A list holding first followed by the items of rest. */
static PtrList cons(ParseState *ps, void *first, PtrList rest)
{
    PtrList l = {0};
    ptrlist_push(ps->arena, &l, first);
    for (int i = 0; i < rest.len; i++)
        ptrlist_push(ps->arena, &l, rest.items[i]);
    return l;
}

static Expr *mk_let(ParseState *ps, Token kw, Pattern *bind, PtrList params,
                    Expr *value, Expr *body)
{
    Expr *e = mk_expr(ps, EXPR_LET, kw.loc);
    e->bind = bind;
    e->params = params;
    e->value_expr = value;
    e->body = body;
    return parse_node(e);
}
}

%code {
size_t parser_size(void)
{
    return sizeof(yyParser);
}

int parser_token_count(void)
{
    return YYNTOKEN;
}

int parser_depth(void *parser)
{
    yyParser *p = parser;
    return (int)(p->yytos - p->yystack);
}

int parser_count(void *parser, int major)
{
    yyParser *p = parser;
    int n = 0;
    for (const yyStackEntry *e = p->yystack; e <= p->yytos; e++)
        n += e->major == major;
    return n;
}

/* Runs the LR automaton on token without changing the parser: reductions
 * pop a virtual stack made of the real stack's lower part (below base) and
 * an overlay of states pushed since. Mirrors the loop in Parse(). */
bool parser_accepts(void *parser, int token)
{
    yyParser *p = parser;
    int base = (int)(p->yytos - p->yystack) + 1;
    enum { OVERLAY = 64 };
    YYACTIONTYPE over[OVERLAY];
    int nover = 0;
    if (token < 0 || token >= YYNTOKEN)
        return false;
    for (int steps = 0; steps < 10000; steps++) {
        YYACTIONTYPE state = nover ? over[nover - 1] : p->yystack[base - 1].stateno;
        YYACTIONTYPE act = yy_find_shift_action((YYCODETYPE)token, state);
        if (act >= YY_MIN_REDUCE) {
            int rule = act - YY_MIN_REDUCE;
            int n = -yyRuleInfoNRhs[rule];
            if (n <= nover) {
                nover -= n;
            } else {
                base -= n - nover;
                nover = 0;
            }
            if (base < 1 || nover == OVERLAY)
                return true;    /* cannot happen; let the parser decide */
            YYACTIONTYPE below = nover ? over[nover - 1] : p->yystack[base - 1].stateno;
            over[nover++] = yy_find_reduce_action(below, yyRuleInfoLhs[rule]);
        } else if (act <= YY_MAX_SHIFTREDUCE || act == YY_ACCEPT_ACTION) {
            return true;
        } else {
            return false;
        }
    }
    return true;
}
}

/* ---- declarations ---- */

program ::= .
program ::= decls.

decls ::= decl.
decls ::= decls SEP decl.

/* name p1 p2 ... = body */
decl ::= IDENT(N) pats(P) EQ expr(B). {
    Equation *eq = NEW(ps->arena, Equation);
    eq->loc = N.loc;
    eq->name = tok_name(ps, N);
    eq->params = P;
    eq->body = B;
    ptrlist_push(ps->arena, &ps->program->equations, eq);
}
/* entry name (x : t) (n : lo..hi) ... = body */
decl ::= ENTRY(K) IDENT(N) eparams(P) EQ expr(B). {
    Entry *en = NEW(ps->arena, Entry);
    en->loc = K.loc;
    en->name = tok_name(ps, N);
    en->params = P;
    en->body = B;
    ptrlist_push(ps->arena, &ps->program->entries, en);
}
/* entry name (xs : [2^b][2^r]t pad e) : [k] = body: results cut to rows of k */
decl ::= ENTRY(K) IDENT(N) eparams(P) COLON LBRACKET expr(C) RBRACKET EQ expr(B). {
    Entry *en = NEW(ps->arena, Entry);
    en->loc = K.loc;
    en->name = tok_name(ps, N);
    en->params = P;
    en->cut = C;
    en->body = B;
    ptrlist_push(ps->arena, &ps->program->entries, en);
}
/* import "path" */
decl ::= IMPORT(K) STRING(S). {
    Import *im = NEW(ps->arena, Import);
    im->loc = K.loc;
    im->path = arena_strndup(ps->arena, S.s + 1, (size_t)S.len - 2);
    ptrlist_push(ps->arena, &ps->program->imports, im);
}

%type eparams {PtrList}
eparams(A) ::= . { A = (PtrList){0}; }
eparams(A) ::= eparams(A) eparam(P). { ptrlist_push(ps->arena, &A, P); }

%type eparam {EntryParam*}
eparam(A) ::= LPAREN(L) IDENT(N) COLON type(T) RPAREN. {
    A = NEW(ps->arena, EntryParam);
    A->loc = L.loc;
    A->name = tok_name(ps, N);
    A->type = T;
}
/* (xs : [2^n]t pad e): any length up to 2^n, absent elements are e; `pad`
   is a word only here, so it stays free as a name elsewhere */
eparam(A) ::= LPAREN(L) IDENT(N) COLON type(T) IDENT(P) expr(E) RPAREN. {
    if (strcmp(tok_name(ps, P), "pad") != 0)
        diag_error(P.loc, "unexpected '%s' after the type of '%s', expected 'pad' or ')'",
                   tok_name(ps, P), tok_name(ps, N));
    A = NEW(ps->arena, EntryParam);
    A->loc = L.loc;
    A->name = tok_name(ps, N);
    A->type = T;
    A->pad = E;
}
/* (xs : [2^b][2^r]t pad e, segments starts lens): row i is the caller's
   elements starts[i] .. starts[i] + lens[i] - 1; `segments` is a word only here */
eparam(A) ::= LPAREN(L) IDENT(N) COLON type(T) IDENT(P) expr(E)
              COMMA IDENT(W) IDENT(S) IDENT(Z) RPAREN. {
    if (strcmp(tok_name(ps, P), "pad") != 0)
        diag_error(P.loc, "unexpected '%s' after the type of '%s', expected 'pad' or ')'",
                   tok_name(ps, P), tok_name(ps, N));
    if (strcmp(tok_name(ps, W), "segments") != 0)
        diag_error(W.loc, "unexpected '%s' after the pad of '%s', expected 'segments' or ')'",
                   tok_name(ps, W), tok_name(ps, N));
    A = NEW(ps->arena, EntryParam);
    A->loc = L.loc;
    A->name = tok_name(ps, N);
    A->type = T;
    A->pad = E;
    A->seg_loc = W.loc;
    A->seg_starts = tok_name(ps, S);
    A->seg_lens = tok_name(ps, Z);
}
eparam(A) ::= LPAREN(L) IDENT(N) COLON bound(LO) DOTDOT bound(HI) RPAREN. {
    A = NEW(ps->arena, EntryParam);
    A->loc = L.loc;
    A->name = tok_name(ps, N);
    A->lo = LO;
    A->hi = HI;
}

/* A size-range bound: an integer or the name of a constant. */
%type bound {Expr*}
bound(A) ::= INT(T). { A = mk_expr(ps, EXPR_INT, T.loc); A->value = T.ival; }
bound(A) ::= IDENT(T). { A = mk_expr(ps, EXPR_VAR, T.loc); A->name = tok_name(ps, T); }

/* ---- types ---- */

%type type {TypeExpr*}
type(A) ::= IDENT(T). { A = mk_type(ps, TYPE_PRIM, T.loc); A->prim = tok_name(ps, T); }
type(A) ::= LPAREN type(T) RPAREN. { A = T; }
type(A) ::= LPAREN(L) type(T) COMMA typelist(R) RPAREN. {
    A = mk_type(ps, TYPE_TUPLE, L.loc);
    A->fields = cons(ps, T, R);
}
/* [length]elem */
type(A) ::= LBRACKET(L) expr(N) RBRACKET type(T). {
    A = mk_type(ps, TYPE_ARRAY, L.loc);
    A->length = N;
    A->elem = T;
}

%type typelist {PtrList}
typelist(A) ::= type(T). { A = (PtrList){0}; ptrlist_push(ps->arena, &A, T); }
typelist(A) ::= typelist(A) COMMA type(T). { ptrlist_push(ps->arena, &A, T); }

/* ---- patterns ---- */

%type pats {PtrList}
pats(A) ::= . { A = (PtrList){0}; }
pats(A) ::= pats(A) pat(P). { ptrlist_push(ps->arena, &A, P); }

%type pats1 {PtrList}
pats1(A) ::= pat(P). { A = (PtrList){0}; ptrlist_push(ps->arena, &A, P); }
pats1(A) ::= pats1(A) pat(P). { ptrlist_push(ps->arena, &A, P); }

%type pat {Pattern*}
pat(A) ::= INT(T). { A = mk_pat(ps, PAT_INT, T.loc); A->value = T.ival; }
pat(A) ::= IDENT(T). { A = mk_pat(ps, PAT_VAR, T.loc); A->name = tok_name(ps, T); }
pat(A) ::= cpat(P). { A = P; }

/* Patterns that can be bound by `let` without looking like a function. */
%type cpat {Pattern*}
cpat(A) ::= WILD(T). { A = mk_pat(ps, PAT_WILD, T.loc); }
cpat(A) ::= LBRACKET(L) patlist(R) RBRACKET. {
    A = mk_pat(ps, PAT_LIST, L.loc);
    A->elems = R;
}
cpat(A) ::= LPAREN pat(P) RPAREN. { A = P; }
cpat(A) ::= LPAREN(L) pat(P) COMMA patlist(R) RPAREN. {
    A = mk_pat(ps, PAT_TUPLE, L.loc);
    A->elems = cons(ps, P, R);
}

%type patlist {PtrList}
patlist(A) ::= pat(P). { A = (PtrList){0}; ptrlist_push(ps->arena, &A, P); }
patlist(A) ::= patlist(A) COMMA pat(P). { ptrlist_push(ps->arena, &A, P); }

/* ---- expressions ---- */

%type expr {Expr*}
/* \p1 p2 -> body */
expr(A) ::= BACKSLASH(L) pats1(P) ARROW expr(B). {
    A = mk_expr(ps, EXPR_LAMBDA, L.loc);
    A->params = P;
    A->body = B;
    parse_node(A);
}
expr(A) ::= IF(K) expr(C) THEN expr(T) ELSE expr(E). {
    A = mk_expr(ps, EXPR_IF, K.loc);
    A->cond = C;
    A->then = T;
    A->els = E;
    parse_node(A);
}
/* let x = v in b, let f p1 p2 = v in b */
expr(A) ::= LET(K) IDENT(N) pats(P) EQ expr(V) IN expr(B). {
    Pattern *bind = mk_pat(ps, PAT_VAR, N.loc);
    bind->name = tok_name(ps, N);
    A = mk_let(ps, K, bind, P, V, B);
}
/* let (a, b) = v in b, let [a, b] = v in b, let _ = v in b */
expr(A) ::= LET(K) cpat(P) EQ expr(V) IN expr(B). {
    A = mk_let(ps, K, P, (PtrList){0}, V, B);
}
expr(A) ::= bexpr(X). { A = X; }

%type bexpr {Expr*}
bexpr(A) ::= bexpr(L) OROR(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) ANDAND(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) EQEQ(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) NE(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) LT(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) LE(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) GT(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) GE(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) BAR(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) XOR(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) AMP(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) SHL(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) SHR(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) PLUS(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) MINUS(O) bexpr(R). {
    A = mk_binary(ps, O, L, R);
    parse_negative_argument(A, O);
}
bexpr(A) ::= bexpr(L) STAR(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) SLASH(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= bexpr(L) PERCENT(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
/* xs ! k: tighter than unary - and !, looser than ^ and application */
bexpr(A) ::= bexpr(L) BANG(O) bexpr(R). { A = mk_binary(ps, O, L, R); }
bexpr(A) ::= MINUS(O) bexpr(X). [UNARY] { A = mk_unary(ps, O, OP_NEG, X); }
bexpr(A) ::= BANG(O) bexpr(X). [UNARY] { A = mk_unary(ps, O, OP_NOT, X); }
/* x ^ y: the exponent may carry a sign (2 ^ -1), the base may not */
bexpr(A) ::= app(L) POW(O) bexpr(R). { A = mk_binary(ps, O, L.e, R); }
bexpr(A) ::= app(X). { A = X.e; }

/* f a b: left-associative application, located at f's first token */
%type app {Spanned}
app(A) ::= atom(X). { A = X; }
app(A) ::= app(F) atom(X). {
    A.e = mk_expr(ps, EXPR_APP, F.start);
    A.e->fn = F.e;
    A.e->arg = X.e;
    parse_node(A.e);
    A.start = F.start;
}

%type atom {Spanned}
atom(A) ::= INT(T). {
    A.e = mk_expr(ps, EXPR_INT, T.loc);
    A.e->value = T.ival;
    A.e->name = tok_name(ps, T);
    A.start = T.loc;
}
atom(A) ::= FLOAT(T). {
    A.e = mk_expr(ps, EXPR_FLOAT, T.loc);
    A.e->fvalue = T.fval;
    A.e->name = tok_name(ps, T);
    A.start = T.loc;
}
atom(A) ::= TRUE(T). { A.e = mk_expr(ps, EXPR_BOOL, T.loc); A.e->value = 1; A.start = T.loc; }
atom(A) ::= FALSE(T). { A.e = mk_expr(ps, EXPR_BOOL, T.loc); A.start = T.loc; }
atom(A) ::= IDENT(T). {
    A.e = mk_expr(ps, EXPR_VAR, T.loc);
    A.e->name = tok_name(ps, T);
    A.start = T.loc;
}
atom(A) ::= LPAREN(L) expr(E) RPAREN. { A.e = E; A.start = L.loc; }
/* (e1, e2, ...) */
atom(A) ::= LPAREN(L) expr(E) COMMA exprlist(R) RPAREN. {
    A.e = mk_expr(ps, EXPR_TUPLE, L.loc);
    A.e->elems = cons(ps, E, R);
    parse_node(A.e);
    A.start = L.loc;
}
/* [e1, e2, ...] */
atom(A) ::= LBRACKET(L) exprlist(R) RBRACKET. {
    A.e = mk_expr(ps, EXPR_LIST, L.loc);
    A.e->elems = R;
    parse_node(A.e);
    A.start = L.loc;
}
/* (+), (xor), (<=): an operator as a function */
atom(A) ::= LPAREN(L) opname(O) RPAREN. {
    A.e = mk_expr(ps, EXPR_OPFN, L.loc);
    A.e->op = binop_of(O.kind);
    A.start = L.loc;
}

%type exprlist {PtrList}
exprlist(A) ::= expr(E). { A = (PtrList){0}; ptrlist_push(ps->arena, &A, E); }
exprlist(A) ::= exprlist(A) COMMA expr(E). { ptrlist_push(ps->arena, &A, E); }

%type opname {Token}
opname(A) ::= OROR(T). { A = T; }
opname(A) ::= ANDAND(T). { A = T; }
opname(A) ::= EQEQ(T). { A = T; }
opname(A) ::= NE(T). { A = T; }
opname(A) ::= LT(T). { A = T; }
opname(A) ::= LE(T). { A = T; }
opname(A) ::= GT(T). { A = T; }
opname(A) ::= GE(T). { A = T; }
opname(A) ::= BAR(T). { A = T; }
opname(A) ::= XOR(T). { A = T; }
opname(A) ::= AMP(T). { A = T; }
opname(A) ::= SHL(T). { A = T; }
opname(A) ::= SHR(T). { A = T; }
opname(A) ::= PLUS(T). { A = T; }
opname(A) ::= MINUS(T). { A = T; }
opname(A) ::= STAR(T). { A = T; }
opname(A) ::= SLASH(T). { A = T; }
opname(A) ::= PERCENT(T). { A = T; }
opname(A) ::= POW(T). { A = T; }
