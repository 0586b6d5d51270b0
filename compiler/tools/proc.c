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
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---- the scratch directory on a signal ----
 * SIGINT, SIGTERM or SIGHUP while the scratch directory exists stops the
 * running child and its process group (the C compiler's cc1 and as, nvcc's
 * stages), removes the files parmc named in the directory and the
 * directory, and then ends parmc by the same signal, so that its exit
 * status says what ended it. The handler does only async-signal-safe work
 * (kill, waitpid, nanosleep, unlink, rmdir, sigaction, raise) on what the
 * main flow keeps ready: the paths, which it changes with the signals
 * blocked. */
static const int caught[] = {SIGINT, SIGTERM, SIGHUP};
static char *scratch;        /* the directory, or NULL */
static char **scratch_paths; /* the files in it that parmc names (proc_tmp_path) */
static int nscratch, scratch_cap;
/* the child's pid, which is its process group's; 0: none (pid_t is an int
 * where sig_atomic_t is) */
static volatile sig_atomic_t running;

static sigset_t block_signals(void) {
    sigset_t set, old;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) sigaddset(&set, caught[i]);
    sigprocmask(SIG_BLOCK, &set, &old);
    return old;
}

static void restore_signals(sigset_t old) { sigprocmask(SIG_SETMASK, &old, NULL); }

/* The signal to the child's group, a second for it to clean up after itself
 * (cc and nvcc remove their own temporary files), then SIGKILL. */
static void stop_child(int sig) {
    pid_t pid = (pid_t)running;
    if (pid <= 0) return;
    kill(-pid, sig);
    struct timespec tick = {0, 10 * 1000 * 1000};
    for (int i = 0; i < 100; i++) {
        if (waitpid(pid, NULL, WNOHANG) != 0) return;
        nanosleep(&tick, NULL);
    }
    kill(-pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static void on_signal(int sig) {
    stop_child(sig);
    for (int i = 0; i < nscratch; i++) unlink(scratch_paths[i]);
    if (scratch) rmdir(scratch);
    struct sigaction dfl = {.sa_handler = SIG_DFL};
    sigemptyset(&dfl.sa_mask);
    sigaction(sig, &dfl, NULL);
    raise(sig); /* blocked in the handler: it ends parmc when the handler returns */
}

/* A signal ignored when parmc started (nohup's SIGHUP) stays ignored. */
static void catch_signals(void) {
    struct sigaction sa = {.sa_handler = on_signal};
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) sigaddset(&sa.sa_mask, caught[i]);
    for (size_t i = 0; i < sizeof caught / sizeof caught[0]; i++) {
        struct sigaction was;
        if (sigaction(caught[i], NULL, &was) == 0 && was.sa_handler != SIG_IGN)
            sigaction(caught[i], &sa, NULL);
    }
}

char *proc_tmpdir(void) {
    const char *base = getenv("TMPDIR");
    if (!base || !*base) base = "/tmp";
    size_t len = strlen(base) + sizeof "/parmc-XXXXXX";
    char *dir = malloc(len);
    if (!dir) return NULL;
    snprintf(dir, len, "%s/parmc-XXXXXX", base);
    if (!mkdtemp(dir)) {
        fprintf(stderr, "parmc: error: cannot create a directory in '%s': %s\n", base,
                strerror(errno));
        free(dir);
        return NULL;
    }
    sigset_t old = block_signals();
    scratch = dir;
    restore_signals(old);
    catch_signals();
    return dir;
}

char *proc_tmp_path(const char *dir, const char *name) {
    size_t len = strlen(dir) + strlen(name) + 2;
    char *path = malloc(len);
    if (!path) {
        fputs("parmc: error: out of memory\n", stderr);
        exit(1);
    }
    snprintf(path, len, "%s/%s", dir, name);
    for (int i = 0; i < nscratch; i++)
        if (!strcmp(scratch_paths[i], path)) return path;
    char *kept = strdup(path);
    sigset_t old = block_signals();
    if (kept && nscratch == scratch_cap) {
        int cap = scratch_cap ? 2 * scratch_cap : 16;
        char **grown = realloc(scratch_paths, sizeof *grown * (size_t)cap);
        if (grown) scratch_paths = grown, scratch_cap = cap;
    }
    bool room = kept && nscratch < scratch_cap;
    if (room) scratch_paths[nscratch++] = kept;
    restore_signals(old);
    if (!room) {
        fputs("parmc: error: out of memory\n", stderr);
        exit(1);
    }
    return path;
}

void proc_rmdir(char *dir) {
    if (!dir) return;
    sigset_t old = block_signals();
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
    for (int i = 0; i < nscratch; i++) free(scratch_paths[i]);
    free(scratch_paths);
    scratch_paths = NULL;
    nscratch = scratch_cap = 0;
    if (scratch == dir) scratch = NULL;
    restore_signals(old);
    free(dir);
}

static void format_bytes(char *buf, size_t n, double bytes) {
    if (bytes >= 1e9) snprintf(buf, n, "%.1f GB", bytes / 1e9);
    else if (bytes >= 1e6) snprintf(buf, n, "%.1f MB", bytes / 1e6);
    else if (bytes >= 1e3) snprintf(buf, n, "%.1f KB", bytes / 1e3);
    else snprintf(buf, n, "%.0f bytes", bytes);
}

char *proc_no_room(const char *dir, double bytes) {
    struct statvfs fs;
    char need[64], have[64], *why = NULL;
    format_bytes(need, sizeof need, bytes);
    if (statvfs(dir, &fs) != 0) {
        const char *err = strerror(errno);
        size_t len = strlen(need) + strlen(dir) + strlen(err) + 64;
        if ((why = malloc(len)))
            snprintf(why, len, "needs up to %s in %s, whose free space is unknown: %s", need, dir,
                     err);
    } else {
        double free_bytes = (double)fs.f_bavail * (double)fs.f_frsize;
        if (bytes <= free_bytes) return NULL;
        format_bytes(have, sizeof have, free_bytes);
        size_t len = strlen(need) + strlen(dir) + strlen(have) + 64;
        if ((why = malloc(len)))
            snprintf(why, len, "needs up to %s in %s, which has %s free", need, dir, have);
    }
    if (!why) {
        fputs("parmc: error: out of memory\n", stderr);
        exit(1);
    }
    return why;
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
        /* reaped with the signals blocked, so that the handler never signals a pid that is gone */
        sigset_t old = block_signals();
        pid_t got = waitpid(pid, &status, WNOHANG);
        int err = errno;
        if (got == pid || (got < 0 && err != EINTR)) running = 0;
        restore_signals(old);
        if (got == pid) break;
        if (got < 0 && err != EINTR) return -1;
        if (ticks-- == 0) {
            kill(-pid, SIGKILL);
            old = block_signals();
            waitpid(pid, &status, 0);
            running = 0;
            restore_signals(old);
            break;
        }
        nanosleep(&tick, NULL);
    }
    if (WIFEXITED(status)) return WEXITSTATUS(status);
    return 128 + (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
}

/* The child gets a process group of its own, which a signal to parmc stops
 * as a whole (on_signal), and parmc's signal mask from before the spawn. */
static int spawn_attr(posix_spawnattr_t *attr, sigset_t mask) {
    if (posix_spawnattr_init(attr) != 0) return ENOMEM;
    if (posix_spawnattr_setflags(attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK) != 0 ||
        posix_spawnattr_setpgroup(attr, 0) != 0 || posix_spawnattr_setsigmask(attr, &mask) != 0) {
        posix_spawnattr_destroy(attr);
        return EINVAL;
    }
    return 0;
}

int proc_run(char *const argv[], const char *in_path, const char *out_path, const char *err_path,
             int timeout_s) {
    posix_spawn_file_actions_t fa;
    if (posix_spawn_file_actions_init(&fa) != 0) return -1;
    bool ok = redirect(&fa, 0, in_path, O_RDONLY) &&
              redirect(&fa, 1, out_path, O_WRONLY | O_CREAT | O_TRUNC) &&
              redirect(&fa, 2, err_path, O_WRONLY | O_CREAT | O_TRUNC);
    /* blocked from the spawn until `running` names the child, which a signal must not miss */
    sigset_t old = block_signals();
    posix_spawnattr_t attr;
    int err = ok ? spawn_attr(&attr, old) : ENOMEM;
    pid_t pid = 0;
    if (!err) {
        err = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
        posix_spawnattr_destroy(&attr);
    }
    if (!err) running = pid;
    restore_signals(old);
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
    for (char *save = NULL, *w = strtok_r(copy, " \t", &save); w; w = strtok_r(NULL, " \t", &save))
        argv[n++] = w;
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
