/* imports.h: source files. Reading them into Sources that live as long as
 * the compilation's arena, and resolving `import "name"` lines
 * (docs/language.md, "Imports"). */
#ifndef PARMC_IMPORTS_H
#define PARMC_IMPORTS_H

#include <stddef.h>

#include "arena.h"
#include "ast.h"
#include "diag.h"

/* Where imports are looked for. */
typedef struct {
    const char *const *dirs; /* the -I directories, searched first, in order */
    int ndirs;
    const char *exe; /* argv[0]: the stdlib directory is found beside the
                                   executable; NULL: no stdlib (tools, the fuzzer) */
} ImportPath;

/* The file at path, or a copy of the len bytes at text, as a Source in the
 * arena.
 * Errors (a file that cannot be read, with the system's reason; a NUL byte;
 * more than 16 MiB) are diagnostics. */
const Source *source_load(Arena *arena, const char *path);
const Source *source_copy(Arena *arena, const char *name, const char *text, size_t len);

/* Loads the file that each import of *program names, and the files those
 * import, each file once (main_path, the file of *program, counts as loaded;
 * NULL when the program was not read from a file). The equations of the
 * imported files join *program; their entries are ignored. */
void imports_resolve(Arena *arena, Program *program, const ImportPath *path, const char *main_path);

/* For "unknown name" errors: the stdlib file (as `import` names it, "sort")
 * with an equation for name, scanning the files' equation heads (a name in
 * column 1); NULL when none has one. */
const char *imports_stdlib_defining(Arena *arena, const ImportPath *path, const char *name);

#endif
