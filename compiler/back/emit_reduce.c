/* emit_reduce.c: the code of a reduction's operator, for the REDUCE nodes
 * of entry graphs (emit_graph.c, cuda/emit_cuda_reduce.c) and the reduces
 * fused into a chain's phase (emit_c.c, emit_cuda.c). */
#include "emit.h"

/* reduce has a result per field, reduceblocks one array: the operator's
   results are the fields either way */
int emit_reduce_slots(const IrStmt *s) { return s->body->nresults; }

Prim emit_reduce_prim(const IrStmt *s, int k) {
    return elem_slot_prim(s->args[s->nargs - 1]->elem, k);
}

void emit_reduce_apply(FILE *out, const IrStmt *s, const char *left, const char *right,
                       const char *res, int indent) {
    int ns = emit_reduce_slots(s);
    Arena a = {0};
    const char **params = NEW_ARRAY(&a, const char *, 2 * ns),
               **results = NEW_ARRAY(&a, const char *, ns);
    for (int k = 0; k < ns; k++) {
        params[k] = arena_printf(&a, left, k);
        params[ns + k] = arena_printf(&a, right, k);
        results[k] = arena_printf(&a, res, k);
    }
    fprintf(out, "%*s{\n", indent, "");
    emit_elem_body(out, s->body, params, results, "o_", indent + 4, NULL);
    fprintf(out, "%*s}\n", indent, "");
    arena_free(&a);
}
