/* ir.c: constructing IR values, bodies and statements. */
#include "ir.h"

#include <limits.h>
#include <string.h>

static const char *op_names[IR_OP_COUNT] = {
    [IR_CONST] = "const",   [IR_UNARY] = "unary",
    [IR_BINARY] = "binary", [IR_TERNARY] = "ternary",
    [IR_SELECT] = "select", [IR_CONVERT] = "convert",
    [IR_INDEX] = "index",   [IR_BUILD] = "build",
    [IR_PARM] = "parm",     [IR_TWO] = "two",
    [IR_COL] = "col",       [IR_BMMC] = "bmmc",
    [IR_MAP] = "map",       [IR_ZIP] = "zip",
    [IR_UNZIP] = "unzip",   [IR_REPLICATE] = "replicate",
    [IR_REDUCE] = "reduce", [IR_POS] = "pos",
    [IR_TABLE] = "table",   [IR_REDUCEBLOCKS] = "reduceblocks",
    [IR_EXPAND] = "expand", [IR_HALF] = "half",
    [IR_JOIN] = "join",     [IR_SHIFT] = "shift",
    [IR_SCAN] = "scan",
};

const char *ir_op_name(IrOp op) { return op_names[op]; }

bool ir_op_is_alu(IrOp op) { return op == IR_UNARY || op == IR_BINARY || op == IR_TERNARY; }

bool ir_is_scalar(const IrVal *v) { return v->log_len < 0; }

int ir_cut_row_log(const IrFunc *f, const IrVal *v) {
    if (!f->cut_cols || ir_is_scalar(v) || v->log_len == f->body->params[f->pad_param]->log_len)
        return -1;
    return v->log_len - (f->pad_rows_log < 0 ? 0 : f->pad_rows_log);
}

IrVal *ir_new_val(IrProgram *p, int log_len, const ElemType *elem) {
    IrVal *v = NEW(p->arena, IrVal);
    v->id = p->next_id++;
    v->log_len = log_len;
    v->elem = elem;
    return v;
}

IrBody *ir_new_body(IrProgram *p) { return NEW(p->arena, IrBody); }

void ir_body_push(IrProgram *p, IrBody *b, IrStmt *s) {
    if (b->nstmts == b->cap) {
        int cap = b->cap ? 2 * b->cap : 8;
        IrStmt **grown = NEW_ARRAY(p->arena, IrStmt *, cap);
        if (b->nstmts) memcpy(grown, b->stmts, sizeof(IrStmt *) * (size_t)b->nstmts);
        b->stmts = grown;
        b->cap = cap;
    }
    b->stmts[b->nstmts++] = s;
}

IrStmt *ir_append(IrProgram *p, IrBody *b, IrOp op, Loc loc, int nargs, IrVal **args) {
    IrStmt *s = NEW(p->arena, IrStmt);
    s->op = op;
    s->loc = loc;
    s->alu = OP_COUNT;
    s->nargs = nargs;
    s->args = NEW_ARRAY(p->arena, IrVal *, nargs > 0 ? nargs : 1);
    if (nargs) memcpy(s->args, args, sizeof(IrVal *) * (size_t)nargs);
    ir_body_push(p, b, s);
    return s;
}

static IrVal **grow(IrProgram *p, IrVal **items, int n);

/* Results are few (at most the slots of one element), so grow one by one. */
IrVal *ir_add_result(IrProgram *p, IrStmt *s, int log_len, const ElemType *elem) {
    IrVal *v = ir_new_val(p, log_len, elem);
    v->def = s;
    s->res = grow(p, s->res, s->nres);
    s->res[s->nres++] = v;
    return v;
}

static IrVal **grow_by(IrProgram *p, IrVal **items, int n, int k) {
    IrVal **grown = NEW_ARRAY(p->arena, IrVal *, (size_t)n + (size_t)k);
    if (n) memcpy(grown, items, sizeof(IrVal *) * (size_t)n);
    return grown;
}

static IrVal **grow(IrProgram *p, IrVal **items, int n) { return grow_by(p, items, n, 1); }

IrVal *ir_body_add_param(IrProgram *p, IrBody *b, int log_len, const ElemType *elem) {
    IrVal *v = ir_new_val(p, log_len, elem);
    b->params = grow(p, b->params, b->nparams);
    b->params[b->nparams++] = v;
    return v;
}

void ir_body_add_result(IrProgram *p, IrBody *b, IrVal *v) {
    b->results = grow(p, b->results, b->nresults);
    b->results[b->nresults++] = v;
}

/* One allocation for all of them: growing one by one copies the list each
 * time, which for an element of 2^16 fields would take gigabytes. */
void ir_body_add_results(IrProgram *p, IrBody *b, int k, IrVal **vals) {
    b->results = grow_by(p, b->results, b->nresults, k);
    memcpy(b->results + b->nresults, vals, sizeof(IrVal *) * (size_t)k);
    b->nresults += k;
}

/* Field by field, not elem_slot_prim per slot, which walks the fields. */
static void add_slots(IrProgram *p, IrBody *b, const ElemType *t, IrVal **slots, int *k) {
    if (t->is_tuple) {
        for (int i = 0; i < t->nfields; i++) add_slots(p, b, t->fields[i], slots, k);
        return;
    }
    slots[*k] = ir_new_val(p, -1, elem_prim(t->prim));
    b->params[b->nparams++] = slots[(*k)++];
}

void ir_body_add_slot_params(IrProgram *p, IrBody *b, const ElemType *t, IrVal **slots) {
    b->params = grow_by(p, b->params, b->nparams, t->nslots);
    int k = 0;
    add_slots(p, b, t, slots, &k);
}

void ir_pos_substitute(IrStmt *pos, const uint64_t *m_rows, int m_nrows, uint64_t t) {
    for (int k = 0; k < pos->mat->n; k++) {
        uint64_t row = pos->mat->row[k], composed = 0;
        for (int j = 0; j < m_nrows; j++)
            if (row >> j & 1) composed ^= m_rows[j];
        pos->compl ^= (uint64_t)f2_parity(row & t) << k;
        pos->mat->row[k] = composed;
    }
}

void ir_body_id_range(const IrBody *b, int *lo, int *count) {
    int l = INT_MAX, h = INT_MIN;
    for (int k = 0; k < b->nparams; k++) {
        if (b->params[k]->id < l) l = b->params[k]->id;
        if (b->params[k]->id > h) h = b->params[k]->id;
    }
    for (int i = 0; i < b->nstmts; i++)
        for (int k = 0; k < b->stmts[i]->nres; k++) {
            int id = b->stmts[i]->res[k]->id;
            if (id < l) l = id;
            if (id > h) h = id;
        }
    *lo = h < l ? 0 : l;
    *count = h < l ? 0 : h - l + 1;
}

void ir_copy_scalar_attrs(IrStmt *to, const IrStmt *from) {
    to->alu = from->alu;
    to->to = from->to;
    to->cval = from->cval;
    to->at = from->at;
    to->slot = from->slot;
    to->compl = from->compl ;
}

static IrVal *append_i64(IrProgram *p, IrBody *b, Loc loc, uint64_t c) {
    IrStmt *s = ir_append(p, b, IR_CONST, loc, 0, NULL);
    s->cval.u = c;
    return ir_add_result(p, s, -1, elem_prim(PRIM_I64));
}

IrVal *ir_append_mask_test(IrProgram *p, IrBody *b, Loc loc, IrVal *x, uint64_t mask,
                           uint64_t value) {
    IrVal *args[2] = {x, append_i64(p, b, loc, mask)};
    IrStmt *bits = ir_append(p, b, IR_BINARY, loc, 2, args);
    bits->alu = OP_BAND;
    args[0] = ir_add_result(p, bits, -1, elem_prim(PRIM_I64));
    args[1] = append_i64(p, b, loc, value);
    IrStmt *eq = ir_append(p, b, IR_BINARY, loc, 2, args);
    eq->alu = OP_EQ;
    return ir_add_result(p, eq, -1, elem_prim(PRIM_BOOL));
}
