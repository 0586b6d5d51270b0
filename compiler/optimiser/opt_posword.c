/* opt_posword.c: position code as words of decision diagrams (opt_posword.h). */
#include "opt_posword.h"

static bool word_pos(BddSet *b, const IrStmt *s, const Bdd *position, int nbits, BddInt *out) {
    *out = bdd_int_const(0);
    for (int k = 0; k < s->mat->n && k < 64; k++) {
        if (s->mat->row[k] & ~f2_mask(nbits)) return false;
        out->bit[k] = (s->compl >> k & 1) ? BDD_TRUE : BDD_FALSE;
        for (int j = 0; j < nbits; j++)
            if (s->mat->row[k] >> j & 1) out->bit[k] = bdd_xor(b, out->bit[k], position[j]);
    }
    return true;
}

bool posword(BddSet *b, const IrStmt *s, const BddInt *const *args, const Bdd *position, int nbits,
             BddInt *out) {
    if (s->nres != 1) return false;
    for (int a = 0; a < s->nargs; a++)
        if (!args[a]) return false;
    Prim p = s->nargs ? s->args[0]->elem->prim : s->res[0]->elem->prim;
    switch (s->op) {
    case IR_CONST:
        if (prim_is_float(p)) return false;
        *out = bdd_int_const(s->cval.i);
        return true;
    case IR_POS: return word_pos(b, s, position, nbits, out);
    case IR_SELECT: *out = bdd_int_select(b, args[0]->bit[0], args[1], args[2]); return true;
    case IR_CONVERT: return bdd_int_convert(b, p, s->to, args[0], out);
    case IR_UNARY: return bdd_int_unary(b, s->alu, p, args[0], out);
    case IR_BINARY: return bdd_int_binary(b, s->alu, p, args[0], args[1], out);
    default: return false;
    }
}
