/* lexer.re: the re2c lexer (lexer.h).
 *
 * Scans unsigned bytes with re2c's end-of-input rule ($) and YYLIMIT, so
 * NUL bytes inside the file are ordinary (invalid) characters. Lexical
 * errors are fatal and reported here, so they are never followed by a
 * syntax error. */
#include "lexer.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "parser.h"

void lexer_init(Lexer *lx, Arena *arena, const Source *src)
{
    memset(lx, 0, sizeof *lx);
    lx->src = src;
    lx->arena = arena;
    lx->cur = (const unsigned char *)src->text;
    lx->lim = lx->cur + src->len;
    if (source_has_bom(src))
        lx->cur += 3;   /* a UTF-8 byte-order mark is not part of the program */
    lx->line_start = lx->cur;
    lx->line = 1;
    lx->end_loc = (Loc){src, 1, 1};
}

static Loc loc_at(const Lexer *lx, const unsigned char *p)
{
    return (Loc){lx->src, lx->line, (int)(p - lx->line_start) + 1};
}

#define LITERAL_TOO_LARGE "integer literal too large (the maximum is 9223372036854775807)"

/* A literal of 2^63 to 2^64 - 1, v: static integers are 64-bit signed, so
 * the error says how to write v as a u64, the conversion of the negative
 * number of its bits, which wraps (6.3): `u64 (-0x1)` for 0xff..ff, in the
 * literal's notation (hexadecimal for binary); -2^63 is not a literal. */
noreturn static void u64_literal(const Lexer *lx, const unsigned char *tok, uint64_t v, int base)
{
    unsigned long long minus = (unsigned long long)-v;
    const char *num = base == 10 ? "%llu" : "0x%llx";
    const char *text = arena_printf(lx->arena, num, minus == 1ull << 63 ? minus - 1 : minus);
    diag_error(loc_at(lx, tok), LITERAL_TOO_LARGE "; as a u64, write it `u64 (-%s%s)`, a "
               "conversion that wraps", text, minus == 1ull << 63 ? " - 1" : "");
}

/* The value of digits s[0..n) in base (2, 10 or 16); errors past INT64_MAX. */
static int64_t int_value(const Lexer *lx, const unsigned char *tok,
                         const unsigned char *s, const unsigned char *end, int base)
{
    uint64_t v = 0;
    for (; s < end; s++) {
        int d = *s <= '9' ? *s - '0' : (*s | 0x20) - 'a' + 10;
        if (v > (UINT64_MAX - (uint64_t)d) / (uint64_t)base)
            diag_error(loc_at(lx, tok), LITERAL_TOO_LARGE);
        v = v * (uint64_t)base + (uint64_t)d;
    }
    if (v > (uint64_t)INT64_MAX) u64_literal(lx, tok, v, base);
    return (int64_t)v;
}

static double float_value(Lexer *lx, const unsigned char *tok)
{
    char *copy = arena_strndup(lx->arena, (const char *)tok, (size_t)(lx->cur - tok));
    errno = 0;
    double v = strtod(copy, NULL);
    if (isinf(v))
        diag_error(loc_at(lx, tok), "floating-point literal too large");
    return v;
}

noreturn static void bad_char(const Lexer *lx, const unsigned char *p)
{
    if (*p == '\'')
        diag_error(loc_at(lx, p), "invalid character \"'\"");
    if (*p >= 0x20 && *p < 0x7f)
        diag_error(loc_at(lx, p), "invalid character '%c'", *p);
    diag_error(loc_at(lx, p), "invalid character '\\x%02x'", *p);
}

/* The next real token (no TOK_SEP). */
static Token scan(Lexer *lx)
{
    for (;;) {
        const unsigned char *tok = lx->cur;
        Token t = {0};
        t.loc = loc_at(lx, tok);
        t.s = (const char *)tok;
#define TOKEN(k) do { t.kind = (k); t.len = (int)(lx->cur - tok); return t; } while (0)
        /*!re2c
        re2c:define:YYCTYPE = "unsigned char";
        re2c:define:YYCURSOR = "lx->cur";
        re2c:define:YYMARKER = "lx->mar";
        re2c:define:YYLIMIT = "lx->lim";
        re2c:yyfill:enable = 0;
        re2c:eof = 0;

        dec   = [0-9]+;
        exp   = [eE] [+-]? [0-9]+;
        ident = [A-Za-z_] [A-Za-z0-9_']*;

        $ {
            t.kind = 0;
            t.loc = lx->end_loc;
            t.len = 0;
            return t;
        }
        * { bad_char(lx, tok); }

        [ \t\r\f\v]+ { continue; }
        "\n" { lx->line++; lx->line_start = lx->cur; continue; }
        "--" [^\n]* { continue; }

        "if"     { TOKEN(TOK_IF); }
        "then"   { TOKEN(TOK_THEN); }
        "else"   { TOKEN(TOK_ELSE); }
        "let"    { TOKEN(TOK_LET); }
        "in"     { TOKEN(TOK_IN); }
        "entry"  { TOKEN(TOK_ENTRY); }
        "import" { TOKEN(TOK_IMPORT); }
        "true"   { TOKEN(TOK_TRUE); }
        "false"  { TOKEN(TOK_FALSE); }
        "xor"    { TOKEN(TOK_XOR); }
        "_"      { TOKEN(TOK_WILD); }
        ident    { TOKEN(TOK_IDENT); }

        dec {
            t.ival = int_value(lx, tok, tok, lx->cur, 10);
            TOKEN(TOK_INT);
        }
        "0" [xX] [0-9a-fA-F]+ {
            t.ival = int_value(lx, tok, tok + 2, lx->cur, 16);
            TOKEN(TOK_INT);
        }
        "0" [bB] [01]+ {
            t.ival = int_value(lx, tok, tok + 2, lx->cur, 2);
            TOKEN(TOK_INT);
        }
        dec "." dec exp? | dec exp {
            t.fval = float_value(lx, tok);
            TOKEN(TOK_FLOAT);
        }
        [0-9] [0-9A-Za-z_']* {
            diag_error(t.loc, "invalid number '%.*s'",
                       lx->cur - tok > 40 ? 40 : (int)(lx->cur - tok), (const char *)tok);
        }

        ["] [^"\n]* ["] {
            for (const unsigned char *p = tok + 1; p < lx->cur - 1; p++)
                if (*p < 0x20 || *p == 0x7f)
                    diag_error(loc_at(lx, p), "invalid character '\\x%02x' in string", *p);
            TOKEN(TOK_STRING);
        }
        ["] [^"\n]* { diag_error(t.loc, "unterminated string"); }

        "==" { TOKEN(TOK_EQEQ); }
        "!=" { TOKEN(TOK_NE); }
        "<=" { TOKEN(TOK_LE); }
        ">=" { TOKEN(TOK_GE); }
        "<<" { TOKEN(TOK_SHL); }
        ">>" { TOKEN(TOK_SHR); }
        "&&" { TOKEN(TOK_ANDAND); }
        "||" { TOKEN(TOK_OROR); }
        "->" { TOKEN(TOK_ARROW); }
        ".." { TOKEN(TOK_DOTDOT); }
        "="  { TOKEN(TOK_EQ); }
        "<"  { TOKEN(TOK_LT); }
        ">"  { TOKEN(TOK_GT); }
        "&"  { TOKEN(TOK_AMP); }
        "|"  { TOKEN(TOK_BAR); }
        "+"  { TOKEN(TOK_PLUS); }
        "-"  { TOKEN(TOK_MINUS); }
        "*"  { TOKEN(TOK_STAR); }
        "/"  { TOKEN(TOK_SLASH); }
        "%"  { TOKEN(TOK_PERCENT); }
        "^"  { TOKEN(TOK_POW); }
        "!"  { TOKEN(TOK_BANG); }
        "\\" { TOKEN(TOK_BACKSLASH); }
        "("  { TOKEN(TOK_LPAREN); }
        ")"  { TOKEN(TOK_RPAREN); }
        "["  { TOKEN(TOK_LBRACKET); }
        "]"  { TOKEN(TOK_RBRACKET); }
        ","  { TOKEN(TOK_COMMA); }
        ":"  { TOKEN(TOK_COLON); }
        */
#undef TOKEN
    }
}

Token lexer_next(Lexer *lx)
{
    if (lx->has_pending) {
        lx->has_pending = false;
        return lx->pending;
    }
    Token t = scan(lx);
    if (t.kind == 0)
        return t;
    lx->end_loc = t.loc;
    lx->end_loc.col += t.len;
    if (!lx->seen_token) {
        lx->seen_token = true;
        if (t.loc.col != 1)
            diag_error(t.loc, "a declaration must start in column 1");
        return t;
    }
    if (t.loc.col == 1) {
        /* A new declaration: hand out a separator first. */
        lx->pending = t;
        lx->has_pending = true;
        t.kind = TOK_SEP;
    }
    return t;
}
