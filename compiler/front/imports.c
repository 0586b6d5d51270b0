/* imports.c: source files and `import "name"` (imports.h).
 *
 * `import "sort"` loads sort.parm from the first directory that has it: the
 * -I directories in order, then the stdlib directory beside the executable.
 * The search path is the same for every file, so a name means the same file
 * wherever it is imported. Files are told apart by device and inode, so a
 * file reached twice (a cycle, or the main file imported back) is parsed
 * once. Source texts live in the arena: diagnostics can quote any file until
 * the end of the compilation, and an error path leaks nothing. */
#include "imports.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "parse.h"

enum { MAX_SOURCE = 1 << 24 }; /* bytes in one source file */

/* Reads f into the arena, NUL-terminated. Stops once past MAX_SOURCE bytes,
 * so that an oversized file is rejected without reading all of it. */
static char *read_text(Arena *a, FILE *f, size_t *len) {
    size_t cap = 1 << 16, n = 0;
    char *buf = arena_alloc(a, cap);
    while ((n += fread(buf + n, 1, cap - 1 - n, f)) == cap - 1 && n <= MAX_SOURCE) {
        char *grown = arena_alloc(a, 2 * cap);
        memcpy(grown, buf, n);
        buf = grown;
        cap *= 2;
    }
    *len = n;
    return ferror(f) ? NULL : buf; /* arena memory is zeroed: the NUL is there */
}

/* text: len bytes and a NUL, in the arena */
static const Source *make_source(Arena *a, const char *name, const char *text, size_t len) {
    if (strlen(text) < len)
        diag_fatal("'%s' contains a NUL byte; it is not a parm source file", name);
    if (len > MAX_SOURCE) diag_fatal("'%s' is larger than the limit of 16 MiB", name);
    Source *src = NEW(a, Source);
    *src = (Source){name, text, (int)len};
    return src;
}

const Source *source_copy(Arena *a, const char *name, const char *text, size_t len) {
    if (len > MAX_SOURCE) diag_fatal("'%s' is larger than the limit of 16 MiB", name);
    return make_source(a, name, arena_strndup(a, text, len), len);
}

/* The file at path; errors say why, at `at` (an import line, or no
 * location for the main file). */
static const Source *load_source(Arena *a, const char *path, Loc at) {
    FILE *f = fopen(path, "rb");
    if (!f) diag_error(at, "cannot open '%s': %s", path, strerror(errno));
    size_t len = 0;
    char *text = read_text(a, f, &len);
    int err = errno;
    fclose(f);
    if (!text) diag_error(at, "cannot read '%s': %s", path, strerror(err));
    return make_source(a, path, text, len);
}

const Source *source_load(Arena *a, const char *path) { return load_source(a, path, (Loc){0}); }

/* ---- the search path ---- */

typedef struct {
    const char **dirs;
    int n;
    const char *no_stdlib; /* set when the executable has no stdlib beside it: why */
} Search;

static bool is_dir(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The target of a symbolic link, whole at any length (in the arena); NULL
 * if it cannot be read. */
static const char *link_target(Arena *a, const char *path) {
    for (size_t size = 256;; size *= 2) {
        char *buf = arena_alloc(a, size);
        ssize_t n = readlink(path, buf, size);
        if (n <= 0) return NULL;
        if ((size_t)n < size) return buf; /* the arena zeroed the rest: terminated */
    }
}

/* The directory of the executable: that of argv[0] when it is a path, else
 * (a command found through PATH) that of /proc/self/exe. NULL if unknown. */
static const char *exe_dir(Arena *a, const char *argv0) {
    const char *exe = strchr(argv0, '/') ? argv0 : link_target(a, "/proc/self/exe");
    if (!exe || !strchr(exe, '/')) return NULL;
    return arena_strndup(a, exe, (size_t)(strrchr(exe, '/') - exe));
}

/* DIR/../share/parmc/stdlib (an installed parmc) or DIR/../stdlib
 * (build/parmc in the source tree), DIR the executable's; NULL with the
 * reason in *why when there is none. */
static const char *stdlib_dir(Arena *a, const ImportPath *path, const char **why) {
    *why = NULL;
    if (!path->exe) return NULL;
    const char *dir = exe_dir(a, path->exe);
    if (!dir) {
        *why = "the executable's directory is unknown";
        return NULL;
    }
    const char *installed = arena_printf(a, "%s/../share/parmc/stdlib", dir);
    const char *in_tree = arena_printf(a, "%s/../stdlib", dir);
    if (is_dir(installed)) return installed;
    if (is_dir(in_tree)) return in_tree;
    *why = arena_printf(a, "neither %s nor %s is a directory", installed, in_tree);
    return NULL;
}

/* The -I directories, then the stdlib. */
static Search search_path(Arena *a, const ImportPath *path) {
    Search s = {NEW_ARRAY(a, const char *, path->ndirs + 1), 0, NULL};
    for (int i = 0; i < path->ndirs; i++) s.dirs[s.n++] = path->dirs[i];
    const char *lib = stdlib_dir(a, path, &s.no_stdlib);
    if (lib) s.dirs[s.n++] = lib;
    return s;
}

static noreturn void not_found(Arena *a, const Search *s, const Import *im) {
    const char *list = s->n ? "" : "no directories";
    for (int i = 0; i < s->n; i++)
        list = arena_printf(a, "%s%s%s", list, i ? ", " : "", s->dirs[i]);
    diag_report(im->loc, "cannot find \"%s\" (searched: %s)", im->path, list);
    if (s->no_stdlib) diag_note((Loc){0}, "no stdlib beside the executable: %s", s->no_stdlib);
    diag_abort();
}

/* The file that im names, with its stat in *st. */
static const char *find(Arena *a, const Search *s, const Import *im, struct stat *st) {
    for (int i = 0; i < s->n; i++) {
        const char *file = arena_printf(a, "%s/%s.parm", s->dirs[i], im->path);
        if (stat(file, st) == 0 && S_ISREG(st->st_mode)) return file;
    }
    not_found(a, s, im);
}

/* ---- loading ---- */

typedef struct {
    dev_t dev;
    ino_t ino;
} FileId;

/* Records the file of st; false when it was recorded before. */
static bool first_visit(Arena *a, PtrList *seen, const struct stat *st) {
    for (int i = 0; i < seen->len; i++) {
        const FileId *id = seen->items[i];
        if (id->dev == st->st_dev && id->ino == st->st_ino) return false;
    }
    FileId *id = NEW(a, FileId);
    *id = (FileId){st->st_dev, st->st_ino};
    ptrlist_push(a, seen, id);
    return true;
}

/* Each imported file with the import that loaded it, for the notes of an
 * error in it: the imports that led from the main file to it. */
typedef struct {
    const Source *src;
    const Import *by;
} Imported;

typedef struct {
    PtrList files;         /* Imported* */
    const Source *parsing; /* the file being parsed */
} ImportChain;

static const Import *importer(const ImportChain *c, const Source *src) {
    for (int i = 0; i < c->files.len; i++) {
        const Imported *f = c->files.items[i];
        if (f->src == src) return f->by;
    }
    return NULL; /* the main file */
}

/* The diag notes of an error in an imported file: the import of each file
 * of the chain, innermost first, down to the main file's. */
static void import_notes(void *data, Loc error) {
    (void)error; /* the error may have no location: the chain is the parsed file's */
    const ImportChain *c = data;
    const Source *src = c->parsing;
    for (const Import *by; (by = importer(c, src)); src = by->loc.src)
        diag_note(by->loc, "'%s' is imported here", src->name);
}

/* Parses the file that im names; its equations and imports join the program. */
static void load(Arena *a, Program *program, const char *file, const Import *im,
                 ImportChain *chain) {
    Program lib = {0};
    Imported *f = NEW(a, Imported);
    *f = (Imported){load_source(a, file, im->loc), im};
    ptrlist_push(a, &chain->files, f);
    chain->parsing = f->src;
    diag_set_context(NULL, import_notes, chain);
    parse_source(a, f->src, &lib);
    diag_set_context(NULL, NULL, NULL);
    for (int i = 0; i < lib.equations.len; i++)
        ptrlist_push(a, &program->equations, lib.equations.items[i]);
    for (int i = 0; i < lib.imports.len; i++)
        ptrlist_push(a, &program->imports, lib.imports.items[i]);
    for (int i = 0; i < lib.entries.len; i++)
        ptrlist_push(a, &program->imported_entries, lib.entries.items[i]);
}

void imports_resolve(Arena *a, Program *program, const ImportPath *path, const char *main_path) {
    if (program->imports.len == 0) return;
    Search s = search_path(a, path);
    PtrList seen = {0};
    ImportChain chain = {0};
    struct stat st;
    if (main_path && stat(main_path, &st) == 0) first_visit(a, &seen, &st);
    /* the list grows as imported files add their own imports */
    for (int i = 0; i < program->imports.len; i++) {
        const Import *im = program->imports.items[i];
        const char *file = find(a, &s, im, &st);
        if (first_visit(a, &seen, &st)) load(a, program, file, im, &chain);
    }
}

/* ---- names the stdlib defines ---- */

static bool ident_char(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           c == '\'';
}

/* Whether an equation of text (a line that starts in column 1) defines name. */
static bool defines(const char *text, const char *name) {
    size_t n = strlen(name);
    for (const char *line = text; line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL)
        if (strncmp(line, name, n) == 0 && !ident_char(line[n])) return true;
    return false;
}

static int is_parm_file(const struct dirent *e) {
    size_t n = strlen(e->d_name);
    return n > 5 && strcmp(e->d_name + n - 5, ".parm") == 0;
}

const char *imports_stdlib_defining(Arena *a, const ImportPath *path, const char *name) {
    const char *why;
    const char *dir = stdlib_dir(a, path, &why);
    struct dirent **files;
    int n = dir ? scandir(dir, &files, is_parm_file, alphasort) : -1;
    const char *found = NULL;
    for (int i = 0; i < n; i++) {
        const char *file = files[i]->d_name;
        FILE *f = found ? NULL : fopen(arena_printf(a, "%s/%s", dir, file), "rb");
        size_t len;
        const char *text = f ? read_text(a, f, &len) : NULL;
        if (f) fclose(f);
        if (text && defines(text, name)) found = arena_strndup(a, file, strlen(file) - 5);
        free(files[i]);
    }
    if (n >= 0) free(files);
    return found;
}
