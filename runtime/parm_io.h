/* parm_io.h: the standalone text format, for programs built with --emit-main.
 *
 * Inputs are whitespace-separated values in index order (tuples flattened
 * field by field); results are one element per line, fields separated by a
 * space. The parsing and printing rules are the interpreter's (compiler/ir/io.c,
 * compiler/base/types.c): integers in decimal and exactly in range, bool as
 * true/false (or 1/0), f32 printed with %.9g and f64 with %.17g. */
#ifndef PARM_IO_H
#define PARM_IO_H

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- bad input ----
 * The interpreter (compiler/ir/io.c) includes this header and reports bad input
 * with these texts and positions, so that a program built with --emit-main
 * says word for word what `parmc --interpret` says (tests/sections/
 * 31-input.sh compares the two). A message reads "<stdin>: error: MSG" or,
 * at a place in the input, "<stdin>:LINE:COL: error: MSG", LINE and COL
 * counted from 1, COL in bytes. The messages are heap strings of any length
 * (an entry's name is as long as its writer made it): the caller frees them. */
#define PARM_INPUT_NAME "<stdin>"
#define PARM_MAX_TOKEN 64    /* a token of this many bytes or more is never a valid value */
#define PARM_EXCERPT_SIZE 44 /* a bad token as messages quote it: 40 bytes, "...", NUL */
#define PARM_MSG_NUL "the input contains a NUL byte"
#define PARM_MSG_NEEDS "entry '%s' needs %ld value%s, but the input has %ld"
#define PARM_MSG_ACCEPTS \
    "entry '%s' accepts %ld to %ld values (a power-of-two size in its range), but the input has %ld"
#define PARM_MSG_INVALID "'%s' is not a valid %s value"
#define PARM_MSG_PADDED \
    "entry '%s' accepts %s0 to %ld elements of %ld value%s, but the input has %ld value%s"
#define PARM_MSG_ROWS \
    "entry '%s' accepts %sup to %ld row%s of %ld element%s of %ld value%s, but the input has %ld value%s after the row length"
#define PARM_MSG_ROW_LENGTH "'%s' is not a valid row length (1 to %ld)"
#define PARM_MSG_NO_ROW_LENGTH "entry '%s' takes rows: the input must start with the row length"

#define PARM_MSG_SEG_LENGTH "segment %ld has length %lld; the entry's rows hold 0 to %ld elements"
#define PARM_MSG_SEG_OUTSIDE \
    "segment %ld (start %lld, length %lld) is not within the %ld element%s given"
#define PARM_MSG_SEG_OVERLAP "segments %ld and %ld overlap"

/* The bytes of a UTF-8 byte-order mark (EF BB BF) at the start of text:
 * 3, or 0 without one. An input saved with one (as some editors do) is read
 * without it, as a source file is, and positions do not count it. */
static inline size_t parm_bom_len(const char *text, size_t len) {
    return len >= 3 && memcmp(text, "\xef\xbb\xbf", 3) == 0 ? 3 : 0;
}

/* The line and column of byte `offset` of text. */
static inline void parm_text_position(const char *text, size_t offset, long *line, long *col) {
    *line = 1;
    *col = 1;
    for (size_t i = 0; i < offset; i++) {
        if (text[i] == '\n') {
            ++*line;
            *col = 1;
        } else ++*col;
    }
}

/* The n bytes at s as a message quotes them: the first 40, then "...". */
static inline void parm_excerpt(const char *s, size_t n, char out[PARM_EXCERPT_SIZE]) {
    snprintf(out, PARM_EXCERPT_SIZE, "%.*s%s", (int)(n <= 40 ? n : 40), s, n <= 40 ? "" : "...");
}

/* printf into a heap string of the length it needs; out of memory, the
 * program stops with a message (it could not go on reading its input). */
static inline char *parm_message(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static inline char *parm_message(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    char *text = n < 0 ? NULL : (char *)malloc((size_t)n + 1);
    if (!text) {
        fputs("error: out of memory for a message about the input\n", stderr);
        exit(1);
    }
    va_start(ap, fmt);
    vsnprintf(text, (size_t)n + 1, fmt, ap);
    va_end(ap);
    return text;
}

/* The ending of a noun after the number n: "1 value", "2 values". */
static inline const char *parm_plural(long n) { return n == 1 ? "" : "s"; }

/* The message when count values fit none of an entry's specialisations,
 * which take counts lo (the smallest) to hi values. */
static inline char *parm_count_message(const char *entry, long lo, long hi, long count) {
    if (lo == hi) return parm_message(PARM_MSG_NEEDS, entry, lo, parm_plural(lo), count);
    return parm_message(PARM_MSG_ACCEPTS, entry, lo, hi, count);
}

/* The message when an entry with a padded parameter (docs/language.md,
 * section 7.1) gets a count of values (after the row length, for rows) that
 * no shape it accepts takes: `args` values of the other parameters and
 * elements of `slots` values, at most `max_elems`, or, for rows of
 * `row_len` elements, at most `max_rows` of them. */
static inline char *parm_scalars_text(long args) {
    if (!args) return parm_message("%s", "");
    return parm_message("%ld value%s for the other parameters and ", args, parm_plural(args));
}

static inline char *parm_padded_message(const char *entry, long args, long slots, long max_elems,
                                        long count) {
    char *scalars = parm_scalars_text(args);
    char *text = parm_message(PARM_MSG_PADDED, entry, scalars, max_elems, slots, parm_plural(slots),
                              count, parm_plural(count));
    free(scalars);
    return text;
}

static inline char *parm_rows_message(const char *entry, long args, long slots, long max_rows,
                                      long row_len, long count) {
    char *scalars = parm_scalars_text(args);
    char *text = parm_message(PARM_MSG_ROWS, entry, scalars, max_rows, parm_plural(max_rows),
                              row_len, parm_plural(row_len), slots, parm_plural(slots), count,
                              parm_plural(count));
    free(scalars);
    return text;
}

/* ---- segments (docs/language.md 7.3) ---- */

typedef struct {
    int64_t start;
    long row;
} parm_segment;

static inline int parm_segment_order(const void *a, const void *b) {
    const parm_segment *x = (const parm_segment *)a, *y = (const parm_segment *)b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->row < y->row ? -1 : x->row > y->row;
}

/* NULL when the rows' segments (row i: starts[i], lens[i] elements) are
 * each 0 to max_len long, inside the n elements given, and pairwise
 * disjoint (empty ones are nowhere); else the message about the first
 * segment, in row order, that is not (the pair that overlaps with the
 * smallest start, for overlaps). */
static inline char *parm_segments_message(const int64_t *starts, const int64_t *lens, long rows,
                                          long max_len, long n) {
    long used = 0;
    for (long i = 0; i < rows; i++) {
        if (lens[i] < 0 || lens[i] > max_len)
            return parm_message(PARM_MSG_SEG_LENGTH, i, (long long)lens[i], max_len);
        if (lens[i] > 0 && (starts[i] < 0 || starts[i] > (int64_t)n - lens[i]))
            return parm_message(PARM_MSG_SEG_OUTSIDE, i, (long long)starts[i], (long long)lens[i],
                                n, parm_plural(n));
        used += lens[i] > 0;
    }
    parm_segment *order = (parm_segment *)malloc(sizeof(parm_segment) * (size_t)(used ? used : 1));
    if (!order) return parm_message("%s", "out of memory checking the segments");
    for (long i = 0, k = 0; i < rows; i++)
        if (lens[i] > 0) order[k++] = (parm_segment){starts[i], i};
    qsort(order, (size_t)used, sizeof *order, parm_segment_order);
    char *msg = NULL;
    for (long k = 1; k < used && !msg; k++) {
        const parm_segment *a = &order[k - 1], *b = &order[k];
        if (a->start + lens[a->row] > b->start)
            msg = parm_message(PARM_MSG_SEG_OVERLAP, a->row < b->row ? a->row : b->row,
                               a->row < b->row ? b->row : a->row);
    }
    free(order);
    return msg;
}

/* A row length: a decimal integer 1..max. */
static inline int parm_parse_row_length(const char *tok, long max, long *out) {
    char *end;
    errno = 0;
    long long x = strtoll(tok, &end, 10);
    if (errno || *end || end == tok || x < 1 || x > max) return 0;
    *out = (long)x;
    return 1;
}

typedef struct {
    char *text;   /* all of the input, NUL-terminated */
    size_t len;   /* bytes read (a NUL among them is an error) */
    size_t pos;   /* next unread byte */
    long count;   /* values read so far */
    size_t start; /* where the last token read starts, and its length */
    size_t tok_len;
} parm_input;

/* "<stdin>:LINE:COL: error: MSG" for byte `at` of the input. */
static inline void parm_input_error_at(const parm_input *in, size_t at, const char *msg) {
    long line, col;
    parm_text_position(in->text, at, &line, &col);
    fprintf(stderr, PARM_INPUT_NAME ":%ld:%ld: error: %s\n", line, col, msg);
}

/* Reports a NUL byte in the input; 1 if there is one. */
static inline int parm_input_has_nul(const parm_input *in) {
    const char *nul = (const char *)memchr(in->text, 0, in->len);
    if (nul) parm_input_error_at(in, (size_t)(nul - in->text), PARM_MSG_NUL);
    return nul != NULL;
}

/* Reports a count of values that none of the entry's specialisations takes
 * (counts[0..n), ascending); 1 if so. */
static inline int parm_input_bad_count(const char *entry, const long *counts, int n, long count) {
    for (int i = 0; i < n; i++)
        if (counts[i] == count) return 0;
    char *msg = parm_count_message(entry, counts[0], counts[n - 1], count);
    fprintf(stderr, PARM_INPUT_NAME ": error: %s\n", msg);
    free(msg);
    return 1;
}

/* Reports the last token read as not a valid value of the type. */
static inline void parm_input_invalid(const parm_input *in, const char *type) {
    char tok[PARM_EXCERPT_SIZE];
    parm_excerpt(in->text + in->start, in->tok_len, tok);
    char *msg = parm_message(PARM_MSG_INVALID, tok, type);
    parm_input_error_at(in, in->start, msg);
    free(msg);
}

/* Reports why the input could not be read, frees what was read and fails. */
static inline int parm_input_unread(parm_input *in, const char *why) {
    fprintf(stderr, PARM_INPUT_NAME ": error: cannot read standard input: %s\n", why);
    free(in->text);
    in->text = NULL;
    return -1;
}

/* The whole of f into in (its text NUL-terminated, a byte-order mark
 * skipped); 0, or -1 after the reason is reported (nothing to free). */
static inline int parm_input_read(parm_input *in, FILE *f) {
    size_t cap = 1 << 16, n = 0, got;
    in->text = (char *)malloc(cap);
    in->pos = 0;
    in->count = 0;
    in->start = in->tok_len = 0;
    if (!in->text) return parm_input_unread(in, "out of memory");
    while ((got = fread(in->text + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *grown = (char *)realloc(in->text, cap *= 2);
            if (!grown) return parm_input_unread(in, "out of memory");
            in->text = grown;
        }
    }
    if (ferror(f)) return parm_input_unread(in, strerror(errno));
    size_t bom = parm_bom_len(in->text, n);
    memmove(in->text, in->text + bom, n - bom); /* a reader may go back to pos 0 */
    in->text[n - bom] = 0;
    in->len = n - bom;
    return 0;
}

static inline int parm_is_space(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* The next token into buf; 0 at the end of the input. */
static inline int parm_next_token(parm_input *in, char *buf, size_t size) {
    while (in->text[in->pos] && parm_is_space(in->text[in->pos])) in->pos++;
    if (!in->text[in->pos]) return 0;
    in->start = in->pos;
    size_t n = 0;
    while (in->text[in->pos] && !parm_is_space(in->text[in->pos])) {
        if (n + 1 < size) buf[n++] = in->text[in->pos];
        else buf[0] = '#'; /* too long for any number: unparsable */
        in->pos++;
    }
    buf[n] = 0;
    in->tok_len = in->pos - in->start;
    in->count++;
    return 1;
}

static inline int parm_parse_signed(const char *tok, int bits, int64_t *out) {
    char *end;
    errno = 0;
    long long x = strtoll(tok, &end, 10);
    if (errno || *end || end == tok) return 0;
    if (bits < 64 && (x < -(1LL << (bits - 1)) || x >= (1LL << (bits - 1)))) return 0;
    *out = x;
    return 1;
}

static inline int parm_parse_unsigned(const char *tok, int bits, uint64_t *out) {
    char *end;
    if (tok[0] == '-') return 0;
    errno = 0;
    unsigned long long x = strtoull(tok, &end, 10);
    if (errno || *end || end == tok) return 0;
    if (bits < 64 && x >> bits) return 0;
    *out = x;
    return 1;
}

static inline int parm_parse_bool(const char *tok, uint8_t *out) {
    if (!strcmp(tok, "true") || !strcmp(tok, "1")) {
        *out = 1;
        return 1;
    }
    if (!strcmp(tok, "false") || !strcmp(tok, "0")) {
        *out = 0;
        return 1;
    }
    return 0;
}

static inline int parm_parse_double(const char *tok, double *out) {
    char *end;
    *out = strtod(tok, &end);
    return !*end && end != tok;
}

static inline void parm_print_signed(FILE *f, int64_t v) { fprintf(f, "%" PRId64, v); }
static inline void parm_print_unsigned(FILE *f, uint64_t v) { fprintf(f, "%" PRIu64, v); }
static inline void parm_print_bool(FILE *f, uint8_t v) { fputs(v ? "true" : "false", f); }
static inline void parm_print_f32(FILE *f, float v) { fprintf(f, "%.9g", (double)v); }
static inline void parm_print_f64(FILE *f, double v) { fprintf(f, "%.17g", v); }

#endif
