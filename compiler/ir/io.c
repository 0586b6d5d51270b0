/* io.c: reading entry inputs and writing results as text.
 *
 * Bad input is reported with the messages of runtime/parm_io.h, which the
 * standalone main of --emit-main uses too: both say the same, word for word.
 * The messages give the position in the input but do not echo the line: an
 * input line can hold millions of values. */
#include "io.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "parm_io.h"

typedef struct {
    const char *text;
    long *starts; /* offset of each token */
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
        if (strcmp(p->funcs[i]->entry, entry) == 0 && slots_needed(p->funcs[i]) == count)
            return p->funcs[i];
    return NULL;
}

static noreturn void count_mismatch(const IrProgram *p, const char *entry, const Source *src,
                                    long count) {
    const IrFunc *first = NULL, *last = NULL;
    for (int i = 0; i < p->nfuncs; i++) {
        if (strcmp(p->funcs[i]->entry, entry) != 0) continue;
        if (!first) first = p->funcs[i];
        last = p->funcs[i];
    }
    if (!first) diag_fatal("no entry point named '%s'", entry);
    char *msg = parm_count_message(entry, slots_needed(first), slots_needed(last), count);
    diag_report((Loc){src, 0, 0}, "%s", msg);
    free(msg);
    diag_abort();
}

typedef struct {
    long offset; /* of the first bad token, -1 when all parsed */
    Prim prim;
    char text[PARM_EXCERPT_SIZE];
} BadToken;

/* Token *next into slot k of element i of b. */
static bool read_value(const Tokens *t, long *next, Buf *b, long i, int k, BadToken *bad) {
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
    if (fits && scalar_parse(p, tok, &b->planes[k][i])) return true;
    bad->offset = t->starts[at];
    bad->prim = p;
    parm_excerpt(s, n, bad->text);
    return false;
}

static void fill_buffer(const Tokens *t, long *next, Buf *b, BadToken *bad) {
    long len = buf_len(b);
    for (long i = 0; i < len; i++)
        for (int k = 0; k < b->elem->nslots; k++)
            if (!read_value(t, next, b, i, k, bad)) return;
}

/* ---- entries with a padded parameter (docs/language.md, section 7) ---- */

/* Whether the caller gives rows of one row length (the input's first
 * token), rather than a flat array (one dimension, or segments). */
static bool by_rows(const IrFunc *f) { return f->pad_rows_log >= 0 && f->seg_starts < 0; }

static long pad_rows_max(const IrFunc *f) { return by_rows(f) ? 1L << f->pad_rows_log : 1; }

/* The most elements the caller's flat array may hold. */
static long pad_cols_max(const IrFunc *f) {
    return 1L << (f->seg_starts >= 0 ? IR_SEGMENTED_MAX_LOG : f->pad_cols_log);
}

/* The padded parameter: every element the pad, then the shape's elements
 * (row r, column c at index r·2^cols + c) read in order. */
static void fill_padded(const Tokens *t, long *next, const IrFunc *f, Buf *b, IoShape shape,
                        BadToken *bad) {
    long len = buf_len(b);
    for (long i = 0; i < len; i++)
        for (int k = 0; k < b->elem->nslots; k++) b->planes[k][i] = f->pad[k];
    for (long r = 0; r < shape.rows; r++)
        for (long c = 0; c < shape.cols; c++)
            for (int k = 0; k < b->elem->nslots; k++)
                if (!read_value(t, next, b, r << f->pad_cols_log | c, k, bad)) return;
}

/* The value of element i of an integer parameter's buffer. */
static int64_t int_at(const Buf *b, long i) { return b->planes[0][i].i; }

/* The smallest k with 2^k >= n (0 for n <= 1). */
static int log2_up(long n) {
    int k = 0;
    while ((1L << k) < n) k++;
    return k;
}

/* The first n elements of b, read in order. */
static void fill_given(const Tokens *t, long *next, Buf *b, long n, BadToken *bad) {
    for (long i = 0; i < n; i++)
        for (int k = 0; k < b->elem->nslots; k++)
            if (!read_value(t, next, b, i, k, bad)) return;
}

/* An entry with segments (docs/language.md 7.3): the caller's n elements
 * (`given`, freed here) placed into the padded rows, row i from starts[i],
 * once the segments are checked (a message through diag when they are not). */
static void fill_segments(const IrFunc *f, Buf *const *bufs, Buf *given, long n,
                          const Source *src) {
    long rows = 1L << f->pad_rows_log;
    int64_t *starts = malloc(sizeof(int64_t) * (size_t)rows);
    int64_t *lens = malloc(sizeof(int64_t) * (size_t)rows);
    if (!starts || !lens) diag_fatal("out of memory reading input");
    for (long i = 0; i < rows; i++) {
        starts[i] = int_at(bufs[f->seg_starts], i);
        lens[i] = int_at(bufs[f->seg_lens], i);
    }
    char *msg = parm_segments_message(starts, lens, rows, 1L << f->pad_cols_log, n);
    Buf *b = bufs[f->pad_param];
    for (long i = 0; i < buf_len(b); i++)
        for (int k = 0; k < b->elem->nslots; k++) b->planes[k][i] = f->pad[k];
    for (long r = 0; !msg && r < rows; r++)
        for (long c = 0; c < lens[r]; c++)
            for (int k = 0; k < b->elem->nslots; k++)
                b->planes[k][r << f->pad_cols_log | c] = given->planes[k][starts[r] + c];
    free(starts);
    free(lens);
    buf_free(given);
    if (msg) {
        diag_report((Loc){src, 0, 0}, "%s", msg);
        free(msg);
        diag_abort();
    }
}

/* The row length, the first token of the input of an entry over rows: the
 * length, or 0 with a message (at the token: *at its offset, else -1), a
 * heap string. */
static long read_row_length(const Tokens *t, const IrFunc *last, char **msg, long *at) {
    long max = 1L << last->pad_cols_log, len;
    *at = -1;
    if (t->count == 0) {
        *msg = parm_message(PARM_MSG_NO_ROW_LENGTH, last->entry);
        return 0;
    }
    const char *s = t->text + t->starts[0];
    size_t n = 0;
    while (s[n] && !isspace((unsigned char)s[n])) n++;
    char tok[PARM_MAX_TOKEN], excerpt[PARM_EXCERPT_SIZE];
    if (n < sizeof tok) {
        memcpy(tok, s, n);
        tok[n] = 0;
        if (parm_parse_row_length(tok, max, &len)) return len;
    }
    parm_excerpt(s, n, excerpt);
    *msg = parm_message(PARM_MSG_ROW_LENGTH, excerpt, max);
    *at = t->starts[0];
    return 0;
}

/* The values of f's parameters other than the padded one. */
static long other_values(const IrFunc *f) {
    const IrVal *v = f->body->params[f->pad_param];
    return slots_needed(f) - (1L << v->log_len) * v->elem->nslots;
}

/* Whether f takes `count` values (after the row length) in rows of row_len
 * elements (1 for one dimension), and the shape they give. */
static bool shape_for(const IrFunc *f, long count, long row_len, IoShape *shape) {
    long slots = f->body->params[f->pad_param]->elem->nslots, values = count - other_values(f);
    if (values < 0 || values % slots != 0 || (values / slots) % row_len != 0) return false;
    long elems = values / slots;
    *shape = by_rows(f) ? (IoShape){elems / row_len, row_len} : (IoShape){1, elems};
    return shape->cols <= pad_cols_max(f) && shape->rows <= pad_rows_max(f);
}

/* The shape of the input of an entry with a padded parameter and the first
 * (the smallest) specialisation that takes it; *first is the first token of
 * the values. NULL with a message, a heap string (at input offset *at, or -1
 * for the whole input), when none. */
static const IrFunc *padded_shape(const IrProgram *p, const IrFunc *last, const Tokens *t,
                                  IoShape *shape, long *first, char **msg, long *at) {
    bool rows = by_rows(last);
    *first = rows ? 1 : 0;
    *at = -1;
    long row_len = rows ? read_row_length(t, last, msg, at) : 1;
    if (row_len == 0) return NULL;
    for (int i = 0; i < p->nfuncs; i++)
        if (strcmp(p->funcs[i]->entry, last->entry) == 0 &&
            shape_for(p->funcs[i], t->count - *first, row_len, shape))
            return p->funcs[i];
    long others = other_values(last), slots = last->body->params[last->pad_param]->elem->nslots;
    if (rows)
        *msg = parm_rows_message(last->entry, others, slots, pad_rows_max(last), row_len,
                                 t->count - 1);
    else *msg = parm_padded_message(last->entry, others, slots, pad_cols_max(last), t->count);
    return NULL;
}

static const IrFunc *last_of_entry(const IrProgram *p, const char *entry) {
    const IrFunc *last = NULL;
    for (int i = 0; i < p->nfuncs; i++)
        if (strcmp(p->funcs[i]->entry, entry) == 0) last = p->funcs[i];
    return last;
}

const IrFunc *io_read_inputs(const IrProgram *p, const char *entry, const char *name,
                             const char *text, long len, Buf ***inputs, IoShape *shape) {
    Source src = {name, NULL, 0};
    long bom = (long)parm_bom_len(text, (size_t)len);
    text += bom;
    len -= bom;
    /* tokenising stops at a NUL, which would end the input silently */
    const char *nul = memchr(text, 0, (size_t)len);
    if (nul) diag_error(input_loc(&src, text, nul - text), PARM_MSG_NUL);
    Tokens t = tokenize(text);
    const IrFunc *last = last_of_entry(p, entry), *f;
    long next = 0;
    *shape = (IoShape){0, 0};
    if (last && last->pad_param >= 0) {
        char *msg;
        long at;
        f = padded_shape(p, last, &t, shape, &next, &msg, &at);
        if (!f) {
            free(t.starts);
            diag_report(at < 0 ? (Loc){&src, 0, 0} : input_loc(&src, text, at), "%s", msg);
            free(msg);
            diag_abort();
        }
    } else {
        f = find_specialisation(p, entry, t.count);
    }
    if (!f) {
        free(t.starts);
        count_mismatch(p, entry, &src, t.count);
    }
    /* The buffers are the caller's from the start, so that it can free them
       when a bad value aborts through diag. */
    Buf **bufs = calloc((size_t)f->body->nparams + 1, sizeof(Buf *));
    if (!bufs) diag_fatal("out of memory reading input");
    *inputs = bufs;
    BadToken bad = {-1, PRIM_BOOL, ""};
    Buf *given = NULL; /* the caller's array of an entry with segments */
    for (int i = 0; i < f->body->nparams && bad.offset < 0; i++) {
        const IrVal *v = f->body->params[i];
        bufs[i] = buf_new(1, v->log_len, v->elem);
        if (i == f->pad_param && f->seg_starts >= 0) {
            given = buf_new(1, log2_up(shape->cols), v->elem);
            fill_given(&t, &next, given, shape->cols, &bad);
        } else if (i == f->pad_param) fill_padded(&t, &next, f, bufs[i], *shape, &bad);
        else fill_buffer(&t, &next, bufs[i], &bad);
    }
    free(t.starts);
    if (bad.offset >= 0) {
        if (given) buf_free(given);
        diag_error(input_loc(&src, text, bad.offset), PARM_MSG_INVALID, bad.text,
                   prim_name(bad.prim));
    }
    if (given) fill_segments(f, bufs, given, shape->cols, &src);
    return f;
}

static void write_element(FILE *out, const Buf *b, long i) {
    for (int k = 0; k < b->elem->nslots; k++) {
        if (k) fputc(' ', out);
        scalar_print(out, elem_slot_prim(b->elem, k), b->planes[k][i]);
    }
    fputc('\n', out);
}

/* A result of the padded length of an entry with segments: each row's
 * segment, row after row (the caller's array in the order of the rows). */
static void write_segments(FILE *out, const IrFunc *f, Buf *const *inputs, const Buf *b) {
    for (long row = 0; row < 1L << f->pad_rows_log; row++)
        for (long c = 0; c < int_at(inputs[f->seg_lens], row); c++)
            write_element(out, b, row << f->pad_cols_log | c);
}

void io_write_results(FILE *out, const IrFunc *f, Buf *const *inputs, Buf **results,
                      IoShape shape) {
    int padded_len = f->pad_param >= 0 ? f->body->params[f->pad_param]->log_len : -2;
    bool segments = f->seg_starts >= 0;
    if (segments) shape.rows = 1L << f->pad_rows_log; /* every row, for the cut results */
    for (int r = 0; r < f->body->nresults; r++) {
        const Buf *b = results[r];
        if (b->log_len == padded_len && segments) {
            write_segments(out, f, inputs, b);
            continue;
        }
        if (b->log_len == padded_len) {
            /* truncated to the shape given */
            for (long row = 0; row < shape.rows; row++)
                for (long c = 0; c < shape.cols; c++)
                    write_element(out, b, row << f->pad_cols_log | c);
            continue;
        }
        int row_log = ir_cut_row_log(f, f->body->results[r]);
        if (row_log >= 0) {
            /* the given rows, cut to the entry's result row length */
            for (long row = 0; row < shape.rows; row++)
                for (long c = 0; c < f->cut_cols; c++) write_element(out, b, row << row_log | c);
            continue;
        }
        long len = buf_len(b);
        for (long i = 0; i < len; i++) write_element(out, b, i);
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
            if (!grown) {
                free(buf);
                return NULL;
            }
            buf = grown;
        }
    }
    if (ferror(in)) {
        int err = errno;
        free(buf);
        errno = err;
        return NULL;
    }
    buf[n] = 0;
    if (len) *len = (long)n;
    return buf;
}
