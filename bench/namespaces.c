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
// The difference between the first row and the fourth is a floor for what full containment adds to
// every run, whatever the grader does. The last row keeps one such sandbox for all the runs: its
// PID 1 forks each child, then kills and reaps whatever is left, lists what a run could leave behind
// (the writable folders, the System V IPC objects), sets the hostname again, and answers over a
// pipe. That is what a sandbox kept per student and reset between runs would cost instead; the rows
// after it reset as the grader does, in parts (a new tmpfs, a new IPC namespace) and whole. Needs
// root (it mounts; the child is not mapped in its user namespace, so the mount rows leave the user
// namespace out).
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
    if (mounts == (void *)2) return 0;
    _exit(0);
}

// A sandbox kept for every run: its PID 1 builds the root once, then for each byte on `order` it
// clones a child that exits, and resets what a run could leave (every other process killed and
// reaped, the writable folders and the System V IPC objects looked at, the hostname set again)
// before it answers on `done`.
static int order[2], done[2];
static char run_stack[1 << 16];

static int run_child(void *unused) {
    (void)unused;
    _exit(0);
}

// Lists a folder (or reads a file) to its end, as a reset must before it removes anything.
static void look_at(const char *path) {
    char buffer[4096];
    int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        while (syscall(SYS_getdents64, fd, buffer, sizeof buffer) > 0) {
        }
        close(fd);
        return;
    }
    fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        while (read(fd, buffer, sizeof buffer) > 0) {
        }
        close(fd);
    }
}

// What the kept sandbox's reset does beyond looking (a bit set each): a new tmpfs for the writable
// places, the old one and its three binds detached, as `grader/src/run/sandbox/serve.rs` does; a
// new IPC namespace; both, with the PID counter and the hostname set again, is the grader's reset.
enum { RESET_LOOK = 0, RESET_TMPFS = 1, RESET_IPC = 2 };
static int reset_mode;

static const char *scratch_places[][2] = {{"/scratch/work", "/work"}, {"/scratch/tmp", "/tmp"}, {"/scratch/shm", "/dev/shm"}};

static void new_scratch(int replace) {
    if (replace) {
        for (size_t i = 0; i < 3; i++)
            if (umount2(scratch_places[i][1], MNT_DETACH)) _exit(20);
        if (umount2("/scratch", MNT_DETACH)) _exit(21);
    }
    if (mount("tmpfs", "/scratch", "tmpfs", MS_NOSUID | MS_NODEV, "size=16m,mode=755")) _exit(22);
    for (size_t i = 0; i < 3; i++) {
        if (mkdir(scratch_places[i][0], 01777) || chmod(scratch_places[i][0], 01777)) _exit(23);
        if (mount(scratch_places[i][0], scratch_places[i][1], NULL, MS_BIND, NULL)) _exit(24);
    }
}

static int kept_sandbox(void *unused) {
    (void)unused;
    // The ends the grader side keeps: without closing them, the last read would never see the end.
    close(order[1]);
    close(done[0]);
    if (child((void *)2)) _exit(12);
    if (reset_mode & RESET_TMPFS) {
        if (mkdir("/scratch", 0755)) _exit(25);
        new_scratch(0);
    }
    char byte;
    while (read(order[0], &byte, 1) == 1) {
        pid_t pid = clone(run_child, run_stack + sizeof run_stack, CLONE_VM | CLONE_VFORK | SIGCHLD, NULL);
        if (pid < 0) _exit(13);
        kill(-1, SIGKILL);
        while (waitpid(-1, NULL, __WALL) > 0) {
        }
        const char *writable[] = {"/tmp", "/dev/shm", "/work", "/proc/sysvipc/shm", "/proc/sysvipc/msg",
                                  "/proc/sysvipc/sem"};
        if (reset_mode == RESET_LOOK)
            for (size_t i = 0; i < sizeof writable / sizeof *writable; i++) look_at(writable[i]);
        if (reset_mode & RESET_TMPFS) new_scratch(1);
        if (reset_mode & RESET_IPC) {
            if (unshare(CLONE_NEWIPC)) _exit(26);
            int fd = open("/proc/sys/kernel/ns_last_pid", O_WRONLY | O_CLOEXEC);
            if (fd < 0 || write(fd, "1", 1) != 1) _exit(27);
            close(fd);
        }
        if (sethostname("sandbox", 7)) _exit(14);
        if (write(done[1], &byte, 1) != 1) _exit(15);
    }
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

// The same child, forked RUNS times inside one sandbox made for all of them, reset after each.
static void kept_row(const char *what, int flags, int mode, int runs) {
    reset_mode = mode;
    if (pipe(order) || pipe(done)) {
        perror("pipe");
        exit(1);
    }
    pid_t sandbox = clone(kept_sandbox, stack + sizeof stack, flags | SIGCHLD, NULL);
    if (sandbox < 0) {
        perror("clone");
        exit(1);
    }
    sleep(1);
    double busy = busy_seconds(), start = now();
    for (int i = 0; i < runs; i++) {
        char byte = 'r';
        if (write(order[1], &byte, 1) != 1 || read(done[0], &byte, 1) != 1) {
            fprintf(stderr, "%s: the kept sandbox failed\n", what);
            exit(1);
        }
    }
    double wall = now() - start;
    sleep(1);
    double cpu = busy_seconds() - busy;
    close(order[1]);
    int status;
    waitpid(sandbox, &status, 0);
    close(order[0]);
    close(done[0]);
    close(done[1]);
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
    kept_row("the same sandbox made once, each run forked in it and reset after", six & ~CLONE_NEWUSER, RESET_LOOK, runs);
    kept_row("kept, reset with a new tmpfs for the writable places", six & ~CLONE_NEWUSER, RESET_TMPFS, runs);
    kept_row("kept, reset with a new IPC namespace", six & ~CLONE_NEWUSER, RESET_IPC, runs);
    kept_row("kept, reset with both (the grader's reset)", six & ~CLONE_NEWUSER, RESET_TMPFS | RESET_IPC, runs);
    rmdir(root);
    return 0;
}
