/* ir_print.c: the stable text form of the IR (docs/ir.md). */
#include "ir.h"

#include <inttypes.h>

static void print_type(FILE *out, const IrVal *v) {
    if (!ir_is_scalar(v)) fprintf(out, "[2^%d]", v->log_len);
    elem_print(out, v->elem);
}

static void print_decl(FILE *out, const IrVal *v) {
    fprintf(out, "%%%d : ", v->id);
    print_type(out, v);
}

static void indent(FILE *out, int depth) {
    for (int i = 0; i < depth; i++) fputs("  ", out);
}

/* A BPC prints as the source of each output bit, bit 0 first, as the list
 * [p 0, p 1, ...] of `bitperm n p`: the identity on 3 bits is bits[0 1 2]
 * and the reversal bits[2 1 0]. Anything else prints as hex rows. */
static void print_matrix(FILE *out, const F2Mat *m, uint64_t compl ) {
    int perm[F2_MAX];
    if (f2_is_bpc(m, perm)) {
        fputs("bits[", out);
        for (int i = 0; i < m->n; i++) fprintf(out, i ? " %d" : "%d", perm[i]);
        fputc(']', out);
    } else {
        Arena scratch = {0};
        fprintf(out, "rows%s", f2_hex_text(&scratch, m));
        arena_free(&scratch);
    }
    if (compl ) fprintf(out, " xor 0x%" PRIx64, compl );
}

static void print_body(FILE *out, const IrBody *b, int depth);

static void print_attrs(FILE *out, const IrStmt *s) {
    switch (s->op) {
    case IR_CONST: {
        fputc(' ', out);
        scalar_print(out, s->res[0]->elem->prim, s->cval);
        break;
    }
    case IR_UNARY:
    case IR_BINARY:
    case IR_TERNARY: fprintf(out, ".%s", op_info(s->alu)->name); break;
    case IR_INDEX: fprintf(out, " %" PRId64 ".%d", s->at, s->slot); break;
    case IR_PARM:
    case IR_COL:
    case IR_JOIN: fprintf(out, " 0x%" PRIx64, s->mask); break;
    case IR_HALF: fprintf(out, " 0x%" PRIx64 " %d", s->mask, s->k); break;
    case IR_SHIFT:
        fprintf(out, " %" PRId64, s->dist);
        if (s->k < s->res[0]->log_len) fprintf(out, " blocks %d", s->k);
        break;
    case IR_TWO:
    case IR_REPLICATE:
    case IR_EXPAND: fprintf(out, " %d", s->k); break;
    case IR_BMMC:
        fputc(' ', out);
        print_matrix(out, s->mat, s->compl );
        break;
    case IR_TABLE: {
        /* the first entries: enough to recognise a table, short for 2^16 */
        fprintf(out, " %d [", s->k);
        int shown = s->k < 2 ? 1 << s->k : 4;
        for (int i = 0; i < shown; i++) {
            if (i) fputc(' ', out);
            scalar_print(out, s->res[0]->elem->prim, s->tab[i]);
        }
        fputs(shown < 1 << s->k ? " ...]" : "]", out);
        break;
    }
    case IR_REDUCE:
        if (s->commutative) fputs(".commutative", out);
        break;
    case IR_REDUCEBLOCKS: fprintf(out, "%s %d", s->commutative ? ".commutative" : "", s->k); break;
    case IR_SCAN: fprintf(out, "%s %d", s->exclusive ? ".exclusive" : "", s->k); break;
    case IR_POS: {
        Arena scratch = {0};
        fprintf(out, " rows%s", f2_hex_text(&scratch, s->mat));
        arena_free(&scratch);
        if (s->compl ) fprintf(out, " xor 0x%" PRIx64, s->compl );
        break;
    }
    default: break;
    }
}

static void print_stmt(FILE *out, const IrStmt *s, int depth) {
    indent(out, depth);
    for (int r = 0; r < s->nres; r++) {
        if (r) fputs(", ", out);
        print_decl(out, s->res[r]);
    }
    fprintf(out, " = %s", ir_op_name(s->op));
    print_attrs(out, s);
    for (int a = 0; a < s->nargs; a++) fprintf(out, " %%%d", s->args[a]->id);
    if (s->body) {
        fputs(" {\n", out);
        print_body(out, s->body, depth + 1);
        indent(out, depth);
        fputc('}', out);
    }
    fputc('\n', out);
}

static void print_body(FILE *out, const IrBody *b, int depth) {
    indent(out, depth);
    fputc('(', out);
    for (int i = 0; i < b->nparams; i++) {
        if (i) fputs(", ", out);
        print_decl(out, b->params[i]);
    }
    fputs(") ->\n", out);
    for (int i = 0; i < b->nstmts; i++) print_stmt(out, b->stmts[i], depth + 1);
    indent(out, depth + 1);
    fputs("return", out);
    for (int r = 0; r < b->nresults; r++) fprintf(out, " %%%d", b->results[r]->id);
    fputc('\n', out);
}

void ir_print_stmt_brief(FILE *out, const IrStmt *s) {
    fprintf(out, "%s", ir_op_name(s->op));
    if (s->op == IR_TWO) fprintf(out, " %d", s->k);
    if (s->loc.src) fprintf(out, " at %s:%d:%d", s->loc.src->name, s->loc.line, s->loc.col);
    fprintf(out, " (%%%d)", s->res[0]->id);
}

void ir_print_program(FILE *out, const IrProgram *p) {
    for (int i = 0; i < p->nfuncs; i++) {
        const IrFunc *f = p->funcs[i];
        fprintf(out, "entry %s {\n", f->name);
        print_body(out, f->body, 1);
        fputs("}\n", out);
    }
}
