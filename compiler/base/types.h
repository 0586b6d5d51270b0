/* types.h: element types and scalar values shared by every stage.
 *
 * An element type is a primitive or a tuple of element types. Arrays of
 * tuples are stored field by field ("slots"): a tuple type with k primitive
 * leaves has k slots, numbered depth-first. */
#ifndef PARMC_TYPES_H
#define PARMC_TYPES_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "arena.h"

typedef enum {
    PRIM_BOOL,
    PRIM_I8,
    PRIM_I16,
    PRIM_I32,
    PRIM_I64,
    PRIM_U8,
    PRIM_U16,
    PRIM_U32,
    PRIM_U64,
    PRIM_F32,
    PRIM_F64,
    PRIM_COUNT
} Prim;

typedef struct ElemType ElemType;
struct ElemType {
    bool is_tuple;
    Prim prim;   /* when !is_tuple */
    int nfields; /* when is_tuple */
    const ElemType **fields;
    int nslots; /* primitive leaves */
};

/* A scalar in canonical form: integers wrapped to their width and then sign-
 * or zero-extended into i/u; f32 held in f32 (the rest zero); bool is 0/1. */
typedef union {
    int64_t i;
    uint64_t u;
    double f64;
    float f32;
} Scalar;

const char *prim_name(Prim p);
bool prim_from_name(const char *name, Prim *out);
bool prim_is_float(Prim p);
bool prim_is_signed(Prim p);
int prim_bits(Prim p);          /* bool counts as 8 */
const char *prim_ctype(Prim p); /* C type used by the back ends */

const ElemType *elem_prim(Prim p);
const ElemType *elem_tuple(Arena *a, int nfields, const ElemType **fields);
bool elem_equal(const ElemType *a, const ElemType *b);
Prim elem_slot_prim(const ElemType *t, int slot);
/* The element type's spelling, whole at any width: "i32", "(u32, i32)". */
const char *elem_text(Arena *a, const ElemType *t);
void elem_print(FILE *out, const ElemType *t); /* the same, printed */
int elem_bytes(const ElemType *t);             /* sum of the slots' sizes */
int elem_max_slot_bytes(const ElemType *t); /* the widest slot: segments and banks are per slot */
/* The most elements of t that element code holds in a thread's registers,
 * log2, where a thread holds at most 2^reg_bytes_log bytes of them: 8 to
 * 2^(reg_bytes_log - 2) elements. The one rule for both stages that need
 * it: the back end's register rounds (plan_rounds.c, which says why) and
 * the optimiser, which lifts a two's body on more out of element code. */
int elem_register_log(const ElemType *t, int reg_bytes_log);
#define ELEM_REGISTER_BYTES_LOG 7 /* the default: 128 bytes (--register-bytes 256 makes it 8) */

Scalar scalar_wrap(Prim p, Scalar v); /* canonicalise an integer */
Scalar scalar_from_int(Prim p, int64_t v);
Scalar scalar_from_double(Prim p, double v);
/* Whether a static number is a value of p without wrapping (integers) or
 * overflowing to an infinity (floats); any integer fits a float type. */
bool scalar_int_fits(Prim p, int64_t v);
bool scalar_double_fits(Prim p, double v);
/* "0..255", "-128..127": the values of an integer type, for messages. */
const char *prim_range_text(Arena *a, Prim p);
bool scalar_equal(Prim p, Scalar a, Scalar b); /* bitwise */
void scalar_print(FILE *f, Prim p, Scalar v);
/* The most characters scalar_print writes for a value of p: what the space
 * a text input needs is computed from (randinput_bound). */
int scalar_text_max(Prim p);
/* Parse one whitespace-free token; false when it is not a value of p. */
bool scalar_parse(Prim p, const char *tok, Scalar *out);

#endif
