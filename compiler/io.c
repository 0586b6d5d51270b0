/* io.c: reading entry inputs and writing results as text.
 *
 * Bad input is reported with the messages of runtime/parm_io.h, which the
 * standalone main of --emit-main uses too: both say the same, word for word.
 * The messages give the position in the input but do not echo the line: an
 * input line can hold millions of values. */
#include "io.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "parm_io.h"

typedef struct {
    const char *text;
    long *starts;       /* offset of each token */
    long count, cap;
} Tokens;

static void tokens_push(Tokens *t, long start) {
    if (t->count == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 1024;
        long *grown = realloc(t->starts, sizeof(long) * (size_t)t->cap);
        if (!grown) diag_fatal("out of memory reading input");
        t->starts = grown;
    }
    t->starts[t->count++] = start;
}

static Tokens tokenize(const char *text) {
    Tokens t = {text, NULL, 0, 0};
    long i = 0;
    while (text[i]) {
        while (text[i] && isspace((unsigned char)text[i])) i++;
        if (!text[i]) break;
        tokens_push(&t, i);
        while (text[i] && !isspace((unsigned char)text[i])) i++;
    }
    return t;
}

/* A location in the input text; src names the input and has no text, so
 * that messages give the position without the line (see above). */
static Loc input_loc(const Source *src, const char *text, long offset) {
    long line, col;
    parm_text_position(text, (size_t)offset, &line, &col);
    return (Loc){src, (int)line, (int)col};
}

static long slots_needed(const IrFunc *f) {
    long total = 0;
    for (int i = 0; i < f->body->nparams; i++) {
        const IrVal *v = f->body->params[i];
        total += (v->log_len < 0 ? 1 : 1L << v->log_len) * v->elem->nslots;
    }
    return total;
}

static const IrFunc *find_specialisation(const IrProgram *p, const char *entry, long count) {
    for (int i = 0; i < p->nfuncs; i++)
        if (strcmp(p->funcs[i]->entry, entry) == 0 && slots_needed(p->funcs[i]) == count) return p->funcs[i];
    return NULL;
}

static noreturn void count_mismatch(const IrProgram *p, const char *entry, const Source *src, long count) {
    const IrFunc *first = NULL, *last = NULL;
    for (int i = 0; i < p->nfuncs; i++) {
        if (strcmp(p->funcs[i]->entry, entry) != 0) continue;
        if (!first) first = p->funcs[i];
        last = p->funcs[i];
    }
    if (!first) diag_fatal("no entry point named '%s'", entry);
    char msg[256];
    parm_count_message(msg, sizeof msg, entry, slots_needed(first), slots_needed(last), count);
    diag_error((Loc){src, 0, 0}, "%s", msg);
}

typedef struct {
    long offset;            /* of the first bad token, -1 when all parsed */
    Prim prim;
    char text[PARM_EXCERPT_SIZE];
} BadToken;

static void fill_buffer(const Tokens *t, long *next, Buf *b, BadToken *bad) {
    long len = buf_len(b);
    for (long i = 0; i < len; i++)
        for (int k = 0; k < b->elem->nslots; k++) {
            Prim p = elem_slot_prim(b->elem, k);
            long at = (*next)++;
            const char *s = t->text + t->starts[at];
            size_t n = 0;
            while (s[n] && !isspace((unsigned char)s[n])) n++;
            char tok[PARM_MAX_TOKEN];
            bool fits = n < sizeof tok;
            if (fits) {
                memcpy(tok, s, n);
                tok[n] = 0;
            }
            if (fits && scalar_parse(p, tok, &b->planes[k][i])) continue;
            bad->offset = t->starts[at];
            bad->prim = p;
            parm_excerpt(s, n, bad->text);
            return;
        }
}

const IrFunc *io_read_inputs(const IrProgram *p, const char *entry, const char *name, const char *text,
                             long len, Buf ***inputs) {
    Source src = {name, NULL, 0};
    /* tokenising stops at a NUL, which would end the input silently */
    const char *nul = memchr(text, 0, (size_t)len);
    if (nul) diag_error(input_loc(&src, text, nul - text), PARM_MSG_NUL);
    Tokens t = tokenize(text);
    const IrFunc *f = find_specialisation(p, entry, t.count);
    if (!f) {
        free(t.starts);
        count_mismatch(p, entry, &src, t.count);
    }
    /* The buffers are the caller's from the start, so that it can free them
       when a bad value aborts through diag. */
    Buf **bufs = calloc((size_t)f->body->nparams + 1, sizeof(Buf *));
    if (!bufs) diag_fatal("out of memory reading input");
    *inputs = bufs;
    long next = 0;
    BadToken bad = {-1, PRIM_BOOL, ""};
    for (int i = 0; i < f->body->nparams && bad.offset < 0; i++) {
        const IrVal *v = f->body->params[i];
        bufs[i] = buf_new(1, v->log_len, v->elem);
        fill_buffer(&t, &next, bufs[i], &bad);
    }
    free(t.starts);
    if (bad.offset >= 0)
        diag_error(input_loc(&src, text, bad.offset), PARM_MSG_INVALID, bad.text, prim_name(bad.prim));
    return f;
}

void io_write_results(FILE *out, const IrFunc *f, Buf **results) {
    for (int r = 0; r < f->body->nresults; r++) {
        const Buf *b = results[r];
        long len = buf_len(b);
        for (long i = 0; i < len; i++) {
            for (int k = 0; k < b->elem->nslots; k++) {
                if (k) fputc(' ', out);
                scalar_print(out, elem_slot_prim(b->elem, k), b->planes[k][i]);
            }
            fputc('\n', out);
        }
    }
}

char *io_slurp(FILE *in, long *len) {
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    if (!buf) return NULL;
    size_t got;
    while ((got = fread(buf + n, 1, cap - n - 1, in)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) { free(buf); return NULL; }
            buf = grown;
        }
    }
    if (ferror(in)) { free(buf); return NULL; }
    buf[n] = 0;
    if (len) *len = (long)n;
    return buf;
}
