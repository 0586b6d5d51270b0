/* test_diag.c: the edit distance behind "did you mean" (compiler/base/diag.c),
 * against a plain recursive definition on every pair of short strings over
 * a small alphabet, and the suggestion rule on typical typos; the order of
 * a context's lead, the error and the context's notes, each once.
 * Prints "diag: N passed, M failed"; exits 1 on any failure. */
#include "diag.h"

#include <setjmp.h>
#include <stdio.h>
#include <string.h>

#include "check.h"


static int min3(int a, int b, int c) { return a < b ? (a < c ? a : c) : (b < c ? b : c); }

/* Optimal string alignment distance, by its recursive definition. */
static int osa(const char *a, int i, const char *b, int j) {
    if (i == 0) return j;
    if (j == 0) return i;
    int d = min3(osa(a, i - 1, b, j) + 1, osa(a, i, b, j - 1) + 1,
                 osa(a, i - 1, b, j - 1) + (a[i - 1] != b[j - 1]));
    if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) {
        int t = osa(a, i - 2, b, j - 2) + 1;
        if (t < d) d = t;
    }
    return d;
}

/* The k-th string over "ab" of length up to 5, in some fixed order. */
static void nth(int k, char out[8]) {
    int len = 0;
    while (k >= (1 << len)) k -= 1 << len++;
    for (int i = 0; i < len; i++) out[i] = (k >> i & 1) ? 'b' : 'a';
    out[len] = 0;
}

static void lead(void *data, Loc error) {
    (void)data;
    diag_lead(error, "lead");
}

static void notes(void *data, Loc error) {
    (void)data;
    diag_note(error, "context");
}

/* An error with a context: "lead:", the error, its own note, the context's
 * note; the next error has neither (diag_abort cleared them). */
static void check_context(void) {
    static char text[4096];
    Source src = {"f.parm", "x = 1\n", 6};
    Loc at = {&src, 1, 5};
    jmp_buf jb;
    FILE *f = fmemopen(text, sizeof text, "w");
    diag_set_stream(f);
    diag_handler = &jb;
    diag_set_context(lead, notes, NULL);
    for (int round = 0; round < 2; round++)
        if (setjmp(jb) == 0) {
            diag_report(at, "error %d", round);
            diag_note(at, "own");
            diag_abort();
        }
    diag_handler = NULL;
    diag_set_stream(NULL);
    fclose(f);
    const char *want = "f.parm:1:5: lead:\n"
                       "f.parm:1:5: error: error 0\nx = 1\n    ^\n"
                       "f.parm:1:5: note: own\nx = 1\n    ^\n"
                       "f.parm:1:5: note: context\nx = 1\n    ^\n"
                       "f.parm:1:5: error: error 1\nx = 1\n    ^\n"
                       "f.parm:1:5: note: own\nx = 1\n    ^\n";
    check(strcmp(text, want) == 0, "a context's lead and notes, once: got\n%s", text);
}

int main(void) {
    check_context();
    char a[8], b[8];
    int n = (1 << 6) - 1; /* strings of length 0..5 */
    for (int x = 0; x < n; x++)
        for (int y = 0; y < n; y++) {
            nth(x, a);
            nth(y, b);
            int want = osa(a, (int)strlen(a), b, (int)strlen(b));
            for (int limit = 0; limit <= 5; limit++) {
                int got = diag_edit_distance(a, b, limit);
                check(got == (want <= limit ? want : limit + 1), "distance '%s' '%s'", a, b);
            }
        }
    const char *yes[][2] = {{"sotr", "sort"},
                            {"ascendng", "ascending"},
                            {"entyr", "entry"},
                            {"cuont", "count"},
                            {"bitonic_srot", "bitonic_sort"},
                            {"mapp", "map"}};
    const char *no[][2] = {{"x", "y"},     {"id", "id"},       {"sort", "bsort_merge"},
                           {"abc", "xyz"}, {"enter", "entry"}, {"f", "fg"}};
    for (size_t i = 0; i < sizeof yes / sizeof yes[0]; i++)
        check(diag_similar(yes[i][0], yes[i][1]), "similar '%s' '%s'", yes[i][0], yes[i][1]);
    for (size_t i = 0; i < sizeof no / sizeof no[0]; i++)
        check(!diag_similar(no[i][0], no[i][1]), "not similar '%s' '%s'", no[i][0], no[i][1]);
    char longer[100];
    memset(longer, 'a', 99);
    longer[99] = 0;
    check(diag_edit_distance(longer, longer, 3) == 4, "names over 64 bytes are not compared");
    return check_summary("diag");
}
