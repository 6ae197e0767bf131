/*
 * bench/floor.c: the least work that grading a class's cases can take, to compare the grader with.
 *
 * Reads a manifest (one case a line, tab-separated: the executable, the case's .stdin, its .stdout,
 * and a file of KEY=VALUE environment lines or "-"), and for every case: spawns the executable with
 * posix_spawn, pipes the .stdin in, reads its whole stdout, waits for it and compares the output
 * with the .stdout byte for byte. No sandbox, no limits beyond a wall-clock guard, stderr to
 * /dev/null, one case at a time. At the end it prints one line:
 *
 *   cases=N exact=M failed_to_run=K self_user=S self_sys=S children_user=S children_sys=S wall=S
 *
 * (seconds; "self" is this process, "children" the programs it ran, from getrusage).
 *
 * Build: gcc -O2 -o floor bench/floor.c        Run: ./floor MANIFEST
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

#define WALL_GUARD_MS 10000 /* the grader's default wall limit for trouble */

struct buf {
    char *data;
    size_t len, cap;
};

static void die(const char *what, const char *detail) {
    fprintf(stderr, "floor: %s%s%s: %s\n", what, detail ? " " : "", detail ? detail : "", strerror(errno));
    exit(2);
}

static void push(struct buf *b, const char *data, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap : 65536;
        while (cap < b->len + n) cap *= 2;
        b->data = realloc(b->data, cap);
        if (!b->data) die("out of memory", NULL);
        b->cap = cap;
    }
    memcpy(b->data + b->len, data, n);
    b->len += n;
}

static void slurp(const char *path, struct buf *b) {
    b->len = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) die("cannot open", path);
    char chunk[65536];
    ssize_t n;
    while ((n = read(fd, chunk, sizeof chunk)) > 0) push(b, chunk, (size_t)n);
    if (n < 0) die("cannot read", path);
    close(fd);
}

static double seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The environment of a case: ours plus the KEY=VALUE lines of `path` ("-" for none). The strings
 * are leaked on purpose: a few per case at most. */
static char **case_env(const char *path) {
    if (strcmp(path, "-") == 0) return environ;
    struct buf text = {0};
    slurp(path, &text);
    push(&text, "", 1);
    size_t count = 0;
    while (environ[count]) count++;
    char **env = calloc(count + 64, sizeof *env);
    size_t n = 0;
    for (char *line = strtok(text.data, "\n"); line && n < 63; line = strtok(NULL, "\n")) {
        if (strchr(line, '=')) env[n++] = strdup(line);
    }
    for (size_t i = 0; i < count; i++) env[n++] = environ[i]; /* the case's values come first and win */
    env[n] = NULL;
    free(text.data);
    return env;
}

/* Runs one case; returns 1 when the output equals `expected` byte for byte, 0 when not, -1 when the
 * program could not be started. */
static int run_case(const char *prog, const struct buf *input, const struct buf *expected, char **env,
                    struct buf *output) {
    int in[2], out[2];
    if (pipe2(in, O_CLOEXEC) || pipe2(out, O_CLOEXEC)) die("pipe", NULL);
    posix_spawn_file_actions_t actions;
    posix_spawn_file_actions_init(&actions);
    posix_spawn_file_actions_adddup2(&actions, in[0], 0);
    posix_spawn_file_actions_adddup2(&actions, out[1], 1);
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0);
    char *argv[] = {(char *)prog, NULL};
    pid_t pid;
    int err = posix_spawn(&pid, prog, &actions, NULL, argv, env);
    posix_spawn_file_actions_destroy(&actions);
    close(in[0]);
    close(out[1]);
    if (err) {
        close(in[1]);
        close(out[0]);
        return -1;
    }
    fcntl(in[1], F_SETFL, O_NONBLOCK);
    size_t written = 0;
    int to_child = in[1];
    if (input->len == 0) {
        close(to_child);
        to_child = -1;
    }
    output->len = 0;
    double deadline = now() + WALL_GUARD_MS / 1000.0;
    char chunk[65536];
    for (;;) {
        struct pollfd fds[2] = {{out[0], POLLIN, 0}, {to_child, POLLOUT, 0}};
        int left = (int)((deadline - now()) * 1000);
        if (left <= 0 || poll(fds, to_child >= 0 ? 2 : 1, left) == 0) {
            kill(pid, SIGKILL);
            break;
        }
        if (to_child >= 0 && (fds[1].revents & (POLLOUT | POLLERR | POLLHUP))) {
            ssize_t n = write(to_child, input->data + written, input->len - written);
            if (n > 0) written += (size_t)n;
            if (n < 0 && errno != EAGAIN) written = input->len; /* EPIPE: it stopped reading */
            if (written == input->len) {
                close(to_child);
                to_child = -1;
            }
        }
        if (fds[0].revents & (POLLIN | POLLHUP | POLLERR)) {
            ssize_t n = read(out[0], chunk, sizeof chunk);
            if (n > 0) push(output, chunk, (size_t)n);
            else if (n == 0 || errno != EINTR) break;
        }
    }
    if (to_child >= 0) close(to_child);
    close(out[0]);
    int status;
    while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
    return output->len == expected->len && memcmp(output->data, expected->data, output->len) == 0;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: %s MANIFEST (lines: executable<TAB>stdin<TAB>stdout<TAB>envfile|-)\n", argv[0]);
        return 2;
    }
    signal(SIGPIPE, SIG_IGN);
    double started = now();
    FILE *manifest = fopen(argv[1], "r");
    if (!manifest) die("cannot open", argv[1]);
    struct buf input = {0}, expected = {0}, output = {0};
    char *line = NULL;
    size_t cap = 0;
    long cases = 0, exact = 0, failed = 0;
    while (getline(&line, &cap, manifest) > 0) {
        line[strcspn(line, "\n")] = 0;
        char *prog = strtok(line, "\t"), *in = strtok(NULL, "\t"), *out = strtok(NULL, "\t"),
             *envfile = strtok(NULL, "\t");
        if (!prog || !in || !out) continue;
        slurp(in, &input);
        slurp(out, &expected);
        char **env = case_env(envfile ? envfile : "-");
        int r = run_case(prog, &input, &expected, env, &output);
        if (env != environ) free(env);
        cases++;
        if (r > 0) exact++;
        if (r < 0) failed++;
    }
    fclose(manifest);
    struct rusage self, children;
    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    printf("cases=%ld exact=%ld failed_to_run=%ld self_user=%.6f self_sys=%.6f children_user=%.6f "
           "children_sys=%.6f wall=%.6f\n",
           cases, exact, failed, seconds(self.ru_utime), seconds(self.ru_stime), seconds(children.ru_utime),
           seconds(children.ru_stime), now() - started);
    return 0;
}
