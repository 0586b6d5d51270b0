/* guard_io.h: the text side of the guard drivers (tests/tools/guard_main.c
 * for the C target, tests/gpu/guard_cuda.cu for CUDA): an entry's input read
 * into host planes and its result printed, in the format of --emit-main
 * (runtime/parm_io.h), with the fields' types from entry.h
 * (tests/tools/guard_entry.py). */
#ifndef GUARD_IO_H
#define GUARD_IO_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "parm_io.h"

#ifndef GUARD_NIN
#error "compile with -include entry.h (tests/tools/guard_entry.py)"
#endif

static int type_bytes(const char *t) {
    if (!strcmp(t, "bool") || !strcmp(t, "i8") || !strcmp(t, "u8")) return 1;
    if (!strcmp(t, "i16") || !strcmp(t, "u16")) return 2;
    if (!strcmp(t, "i32") || !strcmp(t, "u32") || !strcmp(t, "f32")) return 4;
    return 8;
}

/* Parses tok as type t into dst (one element); 0 when it is not valid. */
static int parse_value(const char *t, const char *tok, unsigned char *dst) {
    int bytes = type_bytes(t);
    if (!strcmp(t, "bool")) return parm_parse_bool(tok, dst);
    if (t[0] == 'f') {
        double d;
        if (!parm_parse_double(tok, &d)) return 0;
        float f = (float)d;
        memcpy(dst, bytes == 4 ? (void *)&f : (void *)&d, (size_t)bytes);
        return 1;
    }
    union {
        int64_t i;
        uint64_t u;
    } v;
    if (!(t[0] == 'i' ? parm_parse_signed(tok, bytes * 8, &v.i)
                      : parm_parse_unsigned(tok, bytes * 8, &v.u)))
        return 0;
    memcpy(dst, &v, (size_t)bytes); /* the low bytes: little-endian */
    return 1;
}

static void print_value(const char *t, const unsigned char *src) {
    int bytes = type_bytes(t);
    float f;
    double d;
    uint64_t u = 0;
    memcpy(&u, src, (size_t)bytes);
    int shift = 64 - 8 * bytes;
    if (!strcmp(t, "bool")) parm_print_bool(stdout, *src);
    else if (!strcmp(t, "f32")) parm_print_f32(stdout, (memcpy(&f, src, 4), f));
    else if (!strcmp(t, "f64")) parm_print_f64(stdout, (memcpy(&d, src, 8), d));
    else if (t[0] == 'u') parm_print_unsigned(stdout, u);
    else parm_print_signed(stdout, shift ? (int64_t)(u << shift) >> shift : (int64_t)u);
}

static size_t in_bytes(int k, size_t n) { return n * (size_t)type_bytes(guard_in_types[k]); }
static size_t out_bytes(int k, size_t n) { return n * (size_t)type_bytes(guard_out_types[k]); }

static void read_token(parm_input *input, const char *t, unsigned char *dst) {
    char tok[80];
    parm_next_token(input, tok, sizeof tok);
    if (!dst || !parse_value(t, tok, dst)) {
        fprintf(stderr, "guard: '%s' is not a valid %s\n", tok, t);
        exit(1);
    }
}

/* The run-time scalar parameters before (or after) the array, into guard_args. */
static void read_args(parm_input *input, int before) {
    for (int k = 0; k < GUARD_NARGS; k++)
        if (guard_arg_before[k] == before)
            read_token(input, guard_arg_types[k], guard_args[k].bytes);
}

static size_t guard_row_len = 1; /* an entry over rows: the input's first token */

/* The input from stdin: planes[k] (malloc'd) get field k, guard_args the
 * scalar parameters; returns n, the number of elements. */
static size_t read_input(unsigned char **planes) {
    parm_input input;
    if (parm_input_read(&input, stdin)) exit(1);
    char tok[80];
    long count = 0, row_len = 1;
    if (GUARD_ROWS && !(parm_next_token(&input, tok, sizeof tok) &&
                        parm_parse_row_length(tok, 1L << 40, &row_len))) {
        fprintf(stderr, "guard: the input does not start with a row length\n");
        exit(1);
    }
    guard_row_len = (size_t)row_len;
    size_t first = input.pos;
    while (parm_next_token(&input, tok, sizeof tok)) count++;
    size_t n = (size_t)(count - GUARD_NARGS) / GUARD_NIN;
    input.pos = first;
    for (int k = 0; k < GUARD_NIN; k++) planes[k] = (unsigned char *)malloc(in_bytes(k, n) + 1);
    read_args(&input, 1);
    for (size_t i = 0; i < n; i++)
        for (int k = 0; k < GUARD_NIN; k++)
            read_token(&input, guard_in_types[k],
                       planes[k] ? planes[k] + i * (size_t)type_bytes(guard_in_types[k]) : NULL);
    read_args(&input, 0);
    free(input.text);
    return n;
}

static void print_result(unsigned char *const *planes, size_t n) {
    for (size_t i = 0; i < n; i++) {
        for (int k = 0; k < GUARD_NOUT; k++) {
            if (k) fputc(' ', stdout);
            print_value(guard_out_types[k], planes[k] + i * (size_t)type_bytes(guard_out_types[k]));
        }
        fputc('\n', stdout);
    }
}

/* Whether the entry's input and output fields have the same types (so a
 * call in place is possible). */
static int same_types(void) {
    if (GUARD_NIN != GUARD_NOUT) return 0;
    for (int k = 0; k < GUARD_NIN; k++)
        if (strcmp(guard_in_types[k], guard_out_types[k])) return 0;
    return 1;
}

#endif
