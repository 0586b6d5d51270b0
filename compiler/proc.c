/* proc.c: scratch files and child processes for `parmc test` and `parmc
 * bench`. */
#include "proc.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

char *proc_tmpdir(void) {
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    size_t len = strlen(base) + sizeof "/parmc-XXXXXX";
    char *dir = malloc(len);
    if (!dir) return NULL;
    snprintf(dir, len, "%s/parmc-XXXXXX", base);
    if (!mkdtemp(dir)) {
        fprintf(stderr, "parmc: error: cannot create a directory in '%s': %s\n", base, strerror(errno));
        free(dir);
        return NULL;
    }
    return dir;
}

void proc_rmdir(char *dir) {
    if (!dir) return;
    DIR *d = opendir(dir);
    if (d) {
        struct dirent *e;
        while ((e = readdir(d))) {
            if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) continue;
            size_t len = strlen(dir) + strlen(e->d_name) + 2;
            char *path = malloc(len);
            if (!path) break;
            snprintf(path, len, "%s/%s", dir, e->d_name);
            unlink(path);
            free(path);
        }
        closedir(d);
    }
    rmdir(dir);
    free(dir);
}

static bool redirect(posix_spawn_file_actions_t *fa, int fd, const char *path, int flags) {
    return posix_spawn_file_actions_addopen(fa, fd, path ? path : "/dev/null", flags, 0644) == 0;
}

/* Waits for pid, killing it after timeout_s seconds. */
static int wait_for(pid_t pid, int timeout_s) {
    struct timespec tick = {0, 5 * 1000 * 1000};
    long ticks = (long)timeout_s * 200;
    int status = 0;
    for (;;) {
        pid_t got = waitpid(pid, &status, WNOHANG);
        if (got == pid) break;
        if (got < 0 && errno != EINTR) return -1;
        if (ticks-- == 0) {
            kill(pid, SIGKILL);
            waitpid(pid, &status, 0);
            break;
        }
        nanosleep(&tick, NULL);
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

int proc_run(char *const argv[], const char *in_path, const char *out_path, const char *err_path,
             int timeout_s) {
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return -1;
    bool ok = redirect(&fa, 0, in_path, O_RDONLY) && redirect(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC) &&
              redirect(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC);
    pid_t pid;
    int err = ok ? posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ) : ENOMEM;
    posix_spawn_file_actions_destroy(&fa);
    if (err) {
        errno = err;
        return -1;
    }
    return wait_for(pid, timeout_s);
}

char **proc_command(const char *env, const char *fallback, const char *const extra[]) {
    const char *cmd = env ? getenv(env) : NULL;
    if (cmd) cmd += strspn(cmd, " \t");
    if (!cmd || !*cmd) cmd = fallback;
    size_t nextra = 0;
    while (extra[nextra]) nextra++;
    size_t cap = strlen(cmd) / 2 + 2 + nextra;
    char **argv = calloc(cap, sizeof *argv);
    char *copy = strdup(cmd);
    if (!argv || !copy) {
        free(argv);
        free(copy);
        return NULL;
    }
    size_t n = 0;
    /* argv[0] is the copy (cmd starts with a word); the other words point into it */
    for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save)) argv[n++] = w;
    for (size_t i = 0; i < nextra; i++) argv[n++] = (char *)extra[i];
    argv[n] = NULL;
    return argv;
}

void proc_free_argv(char **argv) {
    if (!argv) return;
    free(argv[0]);
    free(argv);
}

char *proc_read_file(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 4096, n = 0, got;
    char *buf = malloc(cap);
    while (buf && (got = fread(buf + n, 1, cap - n - 1, f)) > 0) {
        n += got;
        if (n + 1 == cap) {
            char *grown = realloc(buf, cap *= 2);
            if (!grown) free(buf);
            buf = grown;
        }
    }
    fclose(f);
    if (buf) buf[n] = 0;
    return buf;
}

bool proc_write_file(const char *path, const char *text) {
    FILE *f = fopen(path, "w");
    if (!f) return false;
    bool ok = fputs(text, f) >= 0;
    return fclose(f) == 0 && ok;
}

const char *proc_cuda_missing(void) {
    const char *forced = getenv("PARMC_CUDA");
    if (forced && *forced) return strcmp(forced, "0") != 0 ? NULL : "PARMC_CUDA=0";
    char *nvcc[] = {"nvcc", "--version", NULL}, *smi[] = {"nvidia-smi", "-L", NULL};
    if (proc_run(nvcc, NULL, NULL, NULL, 60) != 0) return "no nvcc on the PATH";
    if (proc_run(smi, NULL, NULL, NULL, 60) != 0) return "no GPU, nvidia-smi -L finds none";
    return NULL;
}

bool proc_have_gpu(void) { return !proc_cuda_missing(); }
