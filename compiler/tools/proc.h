/* proc.h: what `parmc test` and `parmc bench` need from the system: a
 * scratch directory, files, and child processes (the C compiler, nvcc and
 * the compiled programs), started with posix_spawnp. */
#ifndef PARMC_PROC_H
#define PARMC_PROC_H

#include <stdbool.h>

/* A fresh directory under $TMPDIR (or /tmp); NULL with a message on error.
 * Until proc_rmdir, SIGINT, SIGTERM and SIGHUP stop the running child (its
 * whole process group), remove the directory's proc_tmp_path files and the
 * directory, and end parmc by the signal. One at a time. */
char *proc_tmpdir(void);
/* DIR/NAME on the heap, named for the signal's clean-up. Everything parmc
 * or its children write in the directory must be named so. */
char *proc_tmp_path(const char *dir, const char *name);
/* Removes the directory and the files in it (not recursive). */
void proc_rmdir(char *dir);
/* NULL when dir's file system has `bytes` free (statvfs), else why not
 * ("needs up to 17.6 GB in DIR, which has 3.2 GB free"; heap): parmc checks
 * before it writes an input. */
char *proc_no_room(const char *dir, double bytes);

/* Runs argv[0] (searched in PATH), in a process group of its own, with
 * stdin from in_path (NULL: /dev/null) and stdout, stderr into out_path,
 * err_path (NULL: /dev/null), killing it
 * after timeout_s seconds. Returns its exit status, 128 + the signal that
 * ended it, or -1 when it could not be started (with errno set). */
int proc_run(char *const argv[], const char *in_path, const char *out_path, const char *err_path,
             int timeout_s);

/* A command from the environment (e.g. $CC), split at spaces, with `extra`
 * (NULL-terminated) appended: a NULL-terminated heap array, freed with
 * proc_free_argv. */
char **proc_command(const char *env, const char *fallback, const char *const extra[]);
void proc_free_argv(char **argv);

/* The whole file, NUL-terminated, on the heap; NULL on error. */
char *proc_read_file(const char *path);
bool proc_write_file(const char *path, const char *text);

/* nvcc is on PATH and nvidia-smi lists a device (PARMC_CUDA=0 says no,
 * PARMC_CUDA=1 yes without asking). */
bool proc_have_gpu(void);
/* Why CUDA cannot run here ("no nvcc on the PATH", "PARMC_CUDA=0", ...), or
 * NULL when it can (proc_have_gpu). */
const char *proc_cuda_missing(void);

#endif
