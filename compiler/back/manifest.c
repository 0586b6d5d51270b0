/* manifest.c: the manifest (docs/manifest.md), written from the IR
 * functions' signatures: their parameters and results are the entry's, in
 * order, with element types and lengths, so the manifest describes whatever
 * entries the back end compiles. Parameter names come from the entry's
 * declaration, whose parameters are the IR function's minus the size range. */
#include "manifest.h"

#include <string.h>

#include "version.h"

enum { MANIFEST_VERSION = 1 };

/* The length of a valid UTF-8 sequence at s, or 0 when it is not one. */
static int utf8_length(const unsigned char *s) {
    int len = s[0] >= 0xf0 && s[0] <= 0xf4  ? 4
              : s[0] >= 0xe0                ? 3
              : s[0] >= 0xc2 && s[0] < 0xe0 ? 2
                                            : 0;
    for (int i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (len == 3 && ((s[0] == 0xe0 && s[1] < 0xa0) || (s[0] == 0xed && s[1] >= 0xa0))) return 0;
    if (len == 4 && ((s[0] == 0xf0 && s[1] < 0x90) || (s[0] == 0xf4 && s[1] >= 0x90))) return 0;
    return len;
}

/* The characters of a JSON string: quotes, backslashes and control
 * characters escaped; a byte that is not part of valid UTF-8 (a file name
 * may hold any) becomes U+FFFD, since JSON text is UTF-8. */
static void json_chars(FILE *out, const char *text) {
    for (const unsigned char *s = (const unsigned char *)text; *s;) {
        if (*s == '"' || *s == '\\') {
            fprintf(out, "\\%c", *s++);
        } else if (*s < 0x20) {
            fprintf(out, "\\u%04x", *s++);
        } else if (*s < 0x80) {
            fputc(*s++, out);
        } else {
            int len = utf8_length(s);
            if (len == 0) {
                fputs("\\ufffd", out);
                s++;
            } else {
                fwrite(s, 1, (size_t)len, out);
                s += len;
            }
        }
    }
}

static void json_string(FILE *out, const char *text) {
    fputc('"', out);
    json_chars(out, text);
    fputc('"', out);
}

static const Entry *find_entry(const Program *p, const char *name) {
    for (int i = 0; i < p->entries.len; i++) {
        const Entry *e = p->entries.items[i];
        if (strcmp(e->name, name) == 0) return e;
    }
    return NULL;
}

/* The name of IR parameter `index`: the entry's parameters with the size
 * range left out. */
static const char *param_name(const Entry *e, int index) {
    for (int i = 0; i < e->params.len; i++) {
        const EntryParam *p = e->params.items[i];
        if (!p->type) continue;
        if (index-- == 0) return p->name;
    }
    return NULL;
}

/* The element type as the language writes it: "i32", "((u32, i32), f32)". */
static void write_element(FILE *out, const ElemType *t) {
    if (!t->is_tuple) {
        fputs(prim_name(t->prim), out);
        return;
    }
    fputc('(', out);
    for (int i = 0; i < t->nfields; i++) {
        if (i) fputs(", ", out);
        write_element(out, t->fields[i]);
    }
    fputc(')', out);
}

/* {"name": ..., "kind": "array", "element": "(u32, i32)", "fields": ["u32", "i32"]} */
static void write_value(FILE *out, const char *name, const IrVal *v) {
    fputs("{", out);
    if (name) {
        fputs("\"name\": ", out);
        json_string(out, name);
        fputs(", ", out);
    }
    fprintf(out, "\"kind\": \"%s\", \"element\": \"", ir_is_scalar(v) ? "scalar" : "array");
    write_element(out, v->elem);
    fputs("\", \"fields\": [", out);
    for (int k = 0; k < v->elem->nslots; k++)
        fprintf(out, "%s\"%s\"", k ? ", " : "", prim_name(elem_slot_prim(v->elem, k)));
    fputs("]}", out);
}

static void write_values(FILE *out, const char *key, const Entry *e, IrVal *const *vals, int n,
                         bool last) {
    fprintf(out, "      \"%s\": [", key);
    for (int i = 0; i < n; i++) {
        fputs(i ? ",\n        " : "\n        ", out);
        write_value(out, e ? param_name(e, i) : NULL, vals[i]);
    }
    fprintf(out, "%s]%s\n", n ? "\n      " : "", last ? "" : ",");
}

static void write_lengths(FILE *out, IrVal *const *vals, int n) {
    fputs("[", out);
    for (int i = 0; i < n; i++) {
        fputs(i ? ", " : "", out);
        if (ir_is_scalar(vals[i])) fputs("null", out);
        else fprintf(out, "%llu", 1ULL << vals[i]->log_len);
    }
    fputs("]", out);
}

/* The API's n: the length of the padded parameter (whose elements the call's
 * n counts), else of the first array parameter, else of the first array
 * result; -1 when the function has no array. */
static int n_log_len(const IrFunc *f) {
    if (f->pad_param >= 0) return f->body->params[f->pad_param]->log_len;
    for (int i = 0; i < f->body->nparams; i++)
        if (!ir_is_scalar(f->body->params[i])) return f->body->params[i]->log_len;
    for (int i = 0; i < f->body->nresults; i++)
        if (!ir_is_scalar(f->body->results[i])) return f->body->results[i]->log_len;
    return -1;
}

/* Whether the entry takes any length (docs/language.md 7.1), and then up
 * to what (its last, largest size), the shape of rows, and the pad. */
static void write_any_length(FILE *out, const ManifestInput *in, int first) {
    const IrFunc *f = in->funcs[first], *last = f;
    for (int i = first; i < in->nfuncs; i++)
        if (strcmp(in->funcs[i]->entry, f->entry) == 0) last = in->funcs[i];
    fprintf(out, "      \"any_length\": %s,\n", f->pad_param >= 0 ? "true" : "false");
    if (f->pad_param < 0) return;
    const IrVal *v = last->body->params[last->pad_param];
    bool segments = f->seg_starts >= 0;
    fprintf(out, "      \"max_n\": %llu,\n",
            1ULL << (segments ? IR_SEGMENTED_MAX_LOG : v->log_len));
    fprintf(out, "      \"padded\": %d,\n", f->pad_param);
    if (segments)
        fprintf(out,
                "      \"segments\": {\"starts\": %d, \"lens\": %d, \"rows\": %llu, "
                "\"max_row_len\": %llu},\n",
                f->seg_starts, f->seg_lens, 1ULL << f->pad_rows_log, 1ULL << f->pad_cols_log);
    else if (last->pad_rows_log >= 0)
        fprintf(out, "      \"rows\": {\"max_rows\": %llu, \"max_row_len\": %llu},\n",
                1ULL << last->pad_rows_log, 1ULL << last->pad_cols_log);
    if (f->cut_cols) fprintf(out, "      \"row_cut\": %lld,\n", (long long)f->cut_cols);
    fputs("      \"pad\": [", out);
    for (int k = 0; k < v->elem->nslots; k++) {
        fputs(k ? ", \"" : "\"", out);
        scalar_print(out, elem_slot_prim(v->elem, k), f->pad[k]);
        fputs("\"", out);
    }
    fputs("],\n", out);
}

/* One entry: its signature from its first specialisation (every size has
 * the same parameters and element types), then one line per size. */
static void write_entry(FILE *out, const ManifestInput *in, int first, bool last) {
    const IrFunc *f = in->funcs[first];
    fputs("    {\n      \"name\": ", out);
    json_string(out, f->entry);
    fputs(",\n      \"symbol\": \"", out);
    json_chars(out, in->prefix);
    fputc('_', out);
    json_chars(out, f->entry);
    fputs("\",\n", out);
    write_values(out, "params", find_entry(in->program, f->entry), f->body->params,
                 f->body->nparams, false);
    write_values(out, "results", NULL, f->body->results, f->body->nresults, false);
    write_any_length(out, in, first);
    fputs("      \"sizes\": [", out);
    bool some = false;
    for (int i = first; i < in->nfuncs; i++) {
        const IrFunc *g = in->funcs[i];
        if (strcmp(g->entry, f->entry) != 0) continue;
        fputs(some ? ",\n        {" : "\n        {", out);
        some = true;
        int n = n_log_len(g);
        if (n >= 0) fprintf(out, "\"n\": %llu, ", 1ULL << n);
        fputs("\"params\": ", out);
        write_lengths(out, g->body->params, g->body->nparams);
        fputs(", \"results\": ", out);
        write_lengths(out, g->body->results, g->body->nresults);
        fputs("}", out);
    }
    fprintf(out, "\n      ]\n    }%s\n", last ? "" : ",");
}

static bool first_of_entry(const ManifestInput *in, int i) {
    for (int j = 0; j < i; j++)
        if (strcmp(in->funcs[j]->entry, in->funcs[i]->entry) == 0) return false;
    return true;
}

void manifest_write(FILE *out, const ManifestInput *in) {
    fprintf(out, "{\n  \"format\": \"parmc-manifest\",\n  \"version\": %d,\n", MANIFEST_VERSION);
    fputs("  \"parmc_version\": ", out);
    json_string(out, "parmc " PARMC_VERSION);
    const char *keys[] = {"source", "target", "prefix", "header"};
    const char *values[] = {in->source, in->target, in->prefix, in->header};
    for (int i = 0; i < 4; i++) {
        fprintf(out, ",\n  \"%s\": ", keys[i]);
        json_string(out, values[i]);
    }
    /* only for several GPUs (--gpus), so a one-GPU manifest is as it was */
    if (in->gpus > 1) fprintf(out, ",\n  \"gpus\": %d", in->gpus);
    fputs(",\n  \"entries\": [\n", out);
    int last = -1;
    for (int i = 0; i < in->nfuncs; i++)
        if (first_of_entry(in, i)) last = i;
    for (int i = 0; i < in->nfuncs; i++)
        if (first_of_entry(in, i)) write_entry(out, in, i, i == last);
    fputs("  ]\n}\n", out);
}
