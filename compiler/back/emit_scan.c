/* emit_scan.c: a SCAN node's element code that both targets share (the
 * operator applied, a block's running value started, an element scanned
 * in place) and the C target's SCAN node: scanblocks and exscanblocks in
 * one loop. The CUDA target's kernel is cuda/emit_cuda_scan.c's. */
#include "emit.h"

/* into<k> = left<k> op right<k> (formats of k), through tmp<k> (the
 * operator's results), so that into may be an operand. */
void emit_scan_apply(FILE *out, const IrStmt *s, const char *left, const char *right,
                     const char *into, const char *tmp, int indent) {
    int ns = emit_reduce_slots(s);
    for (int k = 0; k < ns; k++)
        fprintf(out, "%*s%s %s%d;\n", indent, "", prim_ctype(emit_reduce_prim(s, k)), tmp, k);
    Arena a = {0};
    emit_reduce_apply(out, s, left, right, arena_printf(&a, "%s%%d", tmp), indent);
    for (int k = 0; k < ns; k++) fprintf(out, "%*s%s%d = %s%d;\n", indent, "", into, k, tmp, k);
    arena_free(&a);
}

/* r<k> = r<k> op <right>, through nr<k>. */
void emit_scan_step(FILE *out, const IrStmt *s, const char *left, const char *right, int indent) {
    Arena a = {0};
    emit_scan_apply(out, s, arena_printf(&a, "%s%%d", left), right, left,
                    arena_printf(&a, "n%s", left), indent);
    arena_free(&a);
}

/* r<k> = z<k>, the running value at the start of each of the scan's
 * blocks; `declare`: with its declaration. */
void emit_scan_start(FILE *out, const IrStmt *s, int indent, bool declare) {
    for (int k = 0; k < emit_reduce_slots(s); k++)
        fprintf(out, "%*s%s%sr%d = parm_arg%d;\n", indent, "",
                declare ? prim_ctype(emit_reduce_prim(s, k)) : "", declare ? " " : "", k,
                s->args[k]->id);
}

/* One element, x<k>[at] in and out: from the running value r (exclusive:
 * before it takes the element in). */
void emit_scan_element(FILE *out, const IrStmt *s, const char *at, int indent) {
    int ns = emit_reduce_slots(s);
    for (int k = 0; k < ns; k++)
        fprintf(out, "%*sconst %s e%d = x%d[%s];\n", indent, "", prim_ctype(emit_reduce_prim(s, k)),
                k, k, at);
    if (s->exclusive)
        for (int k = 0; k < ns; k++) fprintf(out, "%*sx%d[%s] = r%d;\n", indent, "", k, at, k);
    emit_scan_step(out, s, "r", "e%d", indent);
    if (!s->exclusive)
        for (int k = 0; k < ns; k++) fprintf(out, "%*sx%d[%s] = r%d;\n", indent, "", k, at, k);
}

void emit_scan_declare(FILE *out, const IrStmt *s, const char *name, int indent) {
    for (int k = 0; k < emit_reduce_slots(s); k++)
        fprintf(out, "%*s%s %s%d;\n", indent, "", prim_ctype(emit_reduce_prim(s, k)), name, k);
}

/* The C target: each block of 2^k left to right, in place in the output. */
void emit_graph_scan_c(FILE *out, const PlanNode *n, const char *name) {
    const IrStmt *s = n->stmt;
    int ns = emit_reduce_slots(s);
    emit_node_open(out, "static void", name, n);
    for (int k = 0; k < ns; k++) {
        const char *t = prim_ctype(emit_reduce_prim(s, k));
        fprintf(out,
                "    %s *x%d = (%s *)o%d;\n"
                "    if ((const void *)x%d != i%d) memcpy(x%d, i%d, sizeof(%s) * %lluu);\n",
                t, k, t, k, k, k, k, k, t, 1ULL << n->n);
    }
    emit_scan_start(out, s, 4, true);
    fprintf(out, "    for (uint64_t i = 0; i < %lluu; i++) {\n        if ((i & %lluu) == 0) {\n",
            1ULL << n->n, (1ULL << s->k) - 1);
    emit_scan_start(out, s, 12, false);
    fputs("        }\n", out);
    emit_scan_element(out, s, "i", 8);
    fputs("    }\n}\n\n", out);
}
