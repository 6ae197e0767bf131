// bench/namespaces.c: what the kernel alone charges for a fresh sandbox per run, without the grader.
//
//   gcc -std=c17 -O2 -o namespaces bench/namespaces.c && sudo ./namespaces [RUNS]
//
// Each row clones a child that exits at once, RUNS times, one after the other, and prints the wall
// time and the busy CPU time of the whole machine (from /proc/stat, so kernel threads that tear
// namespaces down count too) per run. The rows add, in turn: the six namespaces a grader sandbox
// gets (user, mount, PID, IPC, UTS, cgroup; a root grader lends the network one), then the mounts
// of its root as `grader/src/run/sandbox.rs` makes them (a tmpfs, the system folders and five
// devices bound read-only, the folders and links of /dev, /proc, pivot_root, the old root detached).
// The difference between the first and the last row is a floor for what full containment adds to
// every run, whatever the grader does. Needs root (it mounts; the child is not mapped in its user
// namespace, so the mount row leaves the user namespace out).
#define _GNU_SOURCE
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static char stack[1 << 16];
static const char *root;

// The child: with `mounts`, it builds a sandbox root the way the grader's PID 1 does.
static int child(void *mounts) {
    if (!mounts) _exit(0);
    if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL)) _exit(2);
    if (mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=755")) _exit(3);
    char path[4096], source[4096];
    const char *systems[] = {"usr", "etc"};
    for (size_t i = 0; i < sizeof systems / sizeof *systems; i++) {
        snprintf(path, sizeof path, "%s/%s", root, systems[i]);
        snprintf(source, sizeof source, "/%s", systems[i]);
        mkdir(path, 0755);
        if (mount(source, path, NULL, MS_BIND | MS_REC, NULL)) _exit(4);
        if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV, NULL)) _exit(5);
    }
    const char *dirs[] = {"dev", "dev/shm", "tmp", "work", "proc"};
    for (size_t i = 0; i < sizeof dirs / sizeof *dirs; i++) {
        snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
        if (mkdir(path, 0755) || chmod(path, 0755)) _exit(6);
    }
    const char *links[][2] = {{"bin", "usr/bin"}, {"lib", "usr/lib"}, {"lib64", "usr/lib64"}, {"sbin", "usr/sbin"},
                              {"dev/fd", "/proc/self/fd"}, {"dev/stdin", "/proc/self/fd/0"},
                              {"dev/stdout", "/proc/self/fd/1"}, {"dev/stderr", "/proc/self/fd/2"}};
    for (size_t i = 0; i < sizeof links / sizeof *links; i++) {
        snprintf(path, sizeof path, "%s/%s", root, links[i][0]);
        if (symlink(links[i][1], path)) _exit(7);
    }
    const char *devices[] = {"null", "zero", "full", "random", "urandom"};
    for (size_t i = 0; i < sizeof devices / sizeof *devices; i++) {
        snprintf(path, sizeof path, "%s/dev/%s", root, devices[i]);
        snprintf(source, sizeof source, "/dev/%s", devices[i]);
        close(open(path, O_CREAT | O_WRONLY | O_CLOEXEC, 0644));
        if (mount(source, path, NULL, MS_BIND | MS_REC, NULL)) _exit(8);
        if (mount(NULL, path, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NOEXEC, NULL)) _exit(9);
    }
    snprintf(path, sizeof path, "%s/proc", root);
    if (mount("proc", path, "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, NULL)) _exit(10);
    if (chdir(root) || syscall(SYS_pivot_root, ".", ".") || umount2(".", MNT_DETACH) || chdir("/")) _exit(11);
    _exit(0);
}

static double busy_seconds(void) {
    unsigned long long v[8] = {0};
    FILE *stat = fopen("/proc/stat", "r");
    if (!stat || fscanf(stat, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4],
                        &v[5], &v[6], &v[7]) != 8) {
        perror("/proc/stat");
        exit(1);
    }
    fclose(stat);
    return (double)(v[0] + v[1] + v[2] + v[5] + v[6] + v[7]) / (double)sysconf(_SC_CLK_TCK);
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void row(const char *what, int flags, int mounts, int runs) {
    // Kernel threads finish the previous row's teardown first.
    sleep(1);
    double busy = busy_seconds(), start = now();
    for (int i = 0; i < runs; i++) {
        pid_t pid = clone(child, stack + sizeof stack, flags | CLONE_VM | SIGCHLD, mounts ? (void *)1 : NULL);
        int status;
        if (pid < 0 || waitpid(pid, &status, 0) != pid) {
            perror("clone");
            exit(1);
        }
        if (status != 0) {
            fprintf(stderr, "%s: the child failed at step %d\n", what, WEXITSTATUS(status));
            exit(1);
        }
    }
    double wall = now() - start;
    // The teardown that kernel threads do after the last exit is billed to this row too.
    sleep(1);
    double cpu = busy_seconds() - busy;
    printf("| %s | %.0f µs | %.0f µs |\n", what, wall / runs * 1e6, cpu / runs * 1e6);
}

int main(int argc, char **argv) {
    int runs = argc > 1 ? atoi(argv[1]) : 2000;
    if (runs < 100) {
        fprintf(stderr, "usage: namespaces [RUNS >= 100]\n");
        return 2;
    }
    char dir[] = "/tmp/namespaces-bench-XXXXXX";
    root = mkdtemp(dir);
    if (!root) {
        perror("mkdtemp");
        return 1;
    }
    const int six = CLONE_NEWUSER | CLONE_NEWNS | CLONE_NEWPID | CLONE_NEWIPC | CLONE_NEWUTS | CLONE_NEWCGROUP;
    printf("%d runs each; per run: wall, and busy CPU of the whole machine (+- 1 s of noise / runs)\n\n", runs);
    printf("| clone of a child that exits | wall | machine CPU |\n|---|---:|---:|\n");
    row("plain (as posix_spawn)", 0, 0, runs);
    row("+ user namespace", CLONE_NEWUSER, 0, runs);
    row("+ the six namespaces of a sandbox", six, 0, runs);
    row("+ its root's mounts (namespaces but the user one)", six & ~CLONE_NEWUSER, 1, runs);
    rmdir(root);
    return 0;
}
