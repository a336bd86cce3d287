/* test_cli_batch_processes.c - a batch run split over processes
 * (--processes, app/batch/batch_run.c) and its GPUs (--devices): what one
 * process writes, written once; the run killed, its processes stop and
 * leave no temporary; one of them killed, the run says so and fails;
 * CUDA never started before the processes are forked; the files shared
 * out among GPUs (where there are some). */
#define _GNU_SOURCE /* PR_SET_CHILD_SUBREAPER */
#include <dirent.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "batch_test_files.h"
#include "cli_test_support.h"
#include "gj2k.h"
#include "test_harness.h"

/* `gj2k ARGS` started, not waited for, its streams into the files `out`
 * and `err` of the test's directory (`ignoring`: with SIGTERM and SIGHUP
 * ignored, as nohup starts it); its process. */
static pid_t start_gj2k(const char *args, const char *out, const char *err, bool ignoring)
{
    char command[8 * PATH_SIZE], out_path[PATH_SIZE], err_path[PATH_SIZE];
    path_in(out_path, out);
    path_in(err_path, err);
    snprintf(command, sizeof command, "%sexec '%s' %s >'%s' 2>'%s'",
             ignoring ? "trap '' TERM HUP; " : "", GJ2K_PROGRAM, args, out_path, err_path);
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    if (pid == 0) {
        execl("/bin/sh", "sh", "-c", command, (char *)NULL);
        _exit(127);
    }
    if (pid < 0) { /* nothing below can go on without it */
        fprintf(stderr, "FAIL: gj2k could not be started\n");
        exit(1);
    }
    return pid;
}

/* The processes whose parent is `parent` (at most `max`), read from /proc. */
static size_t children_of(pid_t parent, pid_t *children, size_t max)
{
    DIR *proc = opendir("/proc");
    size_t count = 0;
    for (struct dirent *e; proc != NULL && count < max && (e = readdir(proc)) != NULL;) {
        char *end;
        long pid = strtol(e->d_name, &end, 10);
        if (*end != '\0' || pid <= 0)
            continue;
        char path[64], line[512];
        snprintf(path, sizeof path, "/proc/%ld/stat", pid);
        FILE *f = fopen(path, "r");
        size_t n = f != NULL ? fread(line, 1, sizeof line - 1, f) : 0;
        if (f != NULL)
            fclose(f);
        line[n] = '\0';
        const char *after = strrchr(line, ')'); /* the command may hold spaces */
        char state;
        int ppid;
        if (after != NULL && sscanf(after + 1, " %c %d", &state, &ppid) == 2 &&
            ppid == parent && state != 'Z')
            children[count++] = (pid_t)pid;
    }
    if (proc != NULL)
        closedir(proc);
    return count;
}

static void sleep_seconds(double seconds)
{
    struct timespec t = {(time_t)seconds, (long)((seconds - (double)(time_t)seconds) * 1e9)};
    nanosleep(&t, NULL);
}

/* Waits (up to a minute) until `parent` has `want` processes of its own,
 * which go into `children`; false when it ended or never had them. */
static bool wait_for_children(pid_t parent, size_t want, pid_t *children)
{
    for (int i = 0; i < 6000; i++) {
        if (children_of(parent, children, want) == want)
            return true;
        int status;
        if (waitpid(parent, &status, WNOHANG) == parent)
            return false;
        sleep_seconds(0.01);
    }
    return false;
}

/* Waits (up to a minute) until process `pid` catches SIGTERM (SigCgt in
 * /proc: it has passed its handler's install and PR_SET_PDEATHSIG). */
static bool catches_sigterm(pid_t pid)
{
    char path[64], line[256];
    snprintf(path, sizeof path, "/proc/%d/status", (int)pid);
    for (int i = 0; i < 6000; i++) {
        FILE *f = fopen(path, "r");
        unsigned long long caught = 0;
        while (f != NULL && fgets(line, sizeof line, f) != NULL)
            if (strncmp(line, "SigCgt:", 7) == 0)
                caught = strtoull(line + 7, NULL, 16);
        if (f != NULL)
            fclose(f);
        if (caught & (1ull << (SIGTERM - 1)))
            return true;
        sleep_seconds(0.01);
    }
    return false;
}

/* Files large enough that a run on the CPU, a thread a file, outlasts a
 * kill sent once its processes have started; written to `directory`. */
enum { BIG_FILES = 10 };
static void big_files(const char *directory, gj2k_image *images[BIG_FILES])
{
    char name[64];
    make_directory(directory);
    for (int i = 0; i < BIG_FILES; i++) {
        snprintf(name, sizeof name, "%s/b%d.ppm", directory, i);
        images[i] = image_at(name, 960 + 16 * (unsigned)i, 720, 3);
    }
}

/* Every output of `big_files` in `directory` whole (`all`: there). */
static void outputs_whole(const char *directory, gj2k_image *images[BIG_FILES], bool all)
{
    char name[64];
    for (int i = 0; i < BIG_FILES; i++) {
        snprintf(name, sizeof name, "%s/b%d.j2k", directory, i);
        if (all || exists(name))
            CHECK(encoded_as(name, images[i]) || (fprintf(stderr, "%s\n", name), 0));
    }
}

/* An encode of `big_files` in `source` to `output` over two processes, a
 * thread a file on the CPU, with --verify, started (`ignoring`: as
 * start_gj2k): its process in *run once it has forked both, which go
 * into `children`. */
static void start_split_encode(const char *source, const char *output, bool ignoring,
                               pid_t *run, pid_t children[2])
{
    const char *t = test_temp_dir();
    char args[4 * PATH_SIZE], out[64], err[64];
    snprintf(args, sizeof args, "encode -ImgDir '%s/%s' -o '%s/%s' --processes 2 --jobs 2 "
             "-threads 1 --device cpu --verify -quiet", t, source, t, output);
    snprintf(out, sizeof out, "%s.out", output);
    snprintf(err, sizeof err, "%s.err", output);
    *run = start_gj2k(args, out, err, ignoring);
    REQUIRE(wait_for_children(*run, 2, children));
}

/* The run resumed with --skip-existing finishes: every output whole, no
 * temporary left; the images freed. */
static void resume_finishes(const char *source, const char *output,
                            gj2k_image *images[BIG_FILES])
{
    const char *t = test_temp_dir();
    char args[4 * PATH_SIZE];
    run_result r;
    snprintf(args, sizeof args, "encode -ImgDir '%s/%s' -o '%s/%s' --processes 2 "
             "--skip-existing -quiet", t, source, t, output);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(!temporaries_in(output));
    outputs_whole(output, images, true);
    for (int i = 0; i < BIG_FILES; i++)
        gj2k_image_destroy(images[i]);
}

/* A run split over processes (--processes) writes what one process writes,
 * byte for byte, each file once: a report line a file, one summary over
 * them all, a corrupt input named while the rest are coded; a split decode
 * (with writer threads, shared out) gives the sources back. */
static void test_processes_share_one_run(void)
{
    make_directory("psrc");
    enum { FILES = 9 };
    gj2k_image *images[FILES];
    char name[64], a[64], b[64], path[PATH_SIZE];
    for (int i = 0; i < FILES; i++) {
        snprintf(name, sizeof name, "psrc/p%02d.ppm", i);
        images[i] = image_at(name, 31 + 9 * (unsigned)i, 17 + 4 * (unsigned)i, 3);
    }
    write_text("psrc/zz_broken.ppm", "P6\n40 30\n255\nshort");
    const char *t = test_temp_dir();
    char args[4 * PATH_SIZE];
    run_result r;
    for (int n = 1; n <= 3; n += 2) {
        snprintf(args, sizeof args, "encode -ImgDir '%s/psrc' -o '%s/p%d' --processes %d "
                 "--jobs 3 -threads 1 --verify --report '%s/p%d.jsonl'", t, t, n, n, t, n);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 1);
        CHECK(strstr(r.err, "zz_broken.ppm") != NULL);
        CHECK(strstr(r.out, "9 files coded, 1 failed") != NULL ||
              (fprintf(stderr, "%s", r.out), 0));
        CHECK((strstr(r.out, "in 3 processes") != NULL) == (n == 3));
        snprintf(name, sizeof name, "p%d.jsonl", n);
        char *text = text_of(name);
        REQUIRE(text != NULL);
        CHECK_EQ(count_lines(text), FILES + 1);
        CHECK_EQ(occurrences(text, "\"identical\":true"), FILES);
        for (int i = 0; i < FILES; i++) {
            snprintf(name, sizeof name, "psrc/p%02d.ppm\"", i);
            CHECK_EQ(occurrences(text, name), 1);
        }
        free(text);
    }
    for (int i = 0; i < FILES; i++) {
        snprintf(a, sizeof a, "p1/p%02d.j2k", i);
        snprintf(b, sizeof b, "p3/p%02d.j2k", i);
        CHECK(same_bytes(a, b));
    }
    snprintf(args, sizeof args, "decode -ImgDir '%s/p3' -o '%s/pdec' -OutFor ppm --processes 2 "
             "--writers 3 --verify", t, t);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "9 files coded, 0 failed") != NULL && strstr(r.out, "in 2 processes"));
    /* on a machine with GPUs (a CPU worker beside them writes its own) */
    CHECK(strstr(r.out, "3 writer threads wrote ") != NULL || (fprintf(stderr, "%s", r.out), 0));
    for (int i = 0; i < FILES; i++) {
        snprintf(name, sizeof name, "pdec/p%02d.ppm", i);
        path_in(path, name);
        gj2k_image *back = read_image(path);
        CHECK(back != NULL && test_same_samples(images[i], back));
        gj2k_image_destroy(back);
    }
    for (int i = 0; i < FILES; i++)
        gj2k_image_destroy(images[i]);
}

/* The run's own process killed (SIGKILL) once its processes have started:
 * they stop too (SIGTERM, as the parent's end, even where the run was
 * started ignoring it), leaving no temporary and no half-written output;
 * --skip-existing finishes the run. Orphans come to this test (a
 * subreaper) to be waited for. */
static void test_killed_run_stops_its_processes(void)
{
    gj2k_image *images[BIG_FILES];
    big_files("kbig", images);
    REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 1) == 0);
    pid_t run, children[2];
    start_split_encode("kbig", "kout", true, &run, children);
    REQUIRE(catches_sigterm(children[0]) && catches_sigterm(children[1]));
    sleep_seconds(0.1);
    REQUIRE(kill(run, SIGKILL) == 0);
    int status = 0;
    REQUIRE(waitpid(run, &status, 0) == run);
    CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
    for (int k = 0; k < 2; k++) { /* each ended by the SIGTERM its parent's end sent */
        pid_t ended = 0;
        for (int i = 0; i < 3000 && ended == 0; i++) {
            ended = waitpid(children[k], &status, WNOHANG);
            if (ended == 0)
                sleep_seconds(0.01);
        }
        CHECK(ended == children[k] || (fprintf(stderr, "process %d still runs\n",
                                                (int)children[k]), 0));
        CHECK(ended != children[k] || (WIFSIGNALED(status) && WTERMSIG(status) == SIGTERM));
        if (ended != children[k])
            kill(children[k], SIGKILL);
    }
    REQUIRE(prctl(PR_SET_CHILD_SUBREAPER, 0) == 0);
    CHECK(!temporaries_in("kout"));
    outputs_whole("kout", images, false);
    resume_finishes("kbig", "kout", images);
}

/* One of a run's processes killed: the run goes on with the other, says
 * which ended and how many files were not coded, and fails; what was
 * written is whole, and --skip-existing finishes the run (the killed
 * process's temporary removed by the next write of its output). */
static void test_killed_process_fails_the_run(void)
{
    gj2k_image *images[BIG_FILES];
    big_files("cbig", images);
    pid_t run, children[2];
    start_split_encode("cbig", "cout", false, &run, children);
    sleep_seconds(0.5); /* each amid a file (they take 0.3 s and more on the CPU) */
    REQUIRE(kill(children[0], SIGKILL) == 0);
    int status = 0;
    REQUIRE(waitpid(run, &status, 0) == run);
    CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 1);
    char *err = text_of("cout.err");
    REQUIRE(err != NULL);
    CHECK(strstr(err, "was ended by signal 9") != NULL || (fprintf(stderr, "%s", err), 0));
    CHECK(strstr(err, "of the files were not coded") != NULL || (fprintf(stderr, "%s", err), 0));
    free(err);
    outputs_whole("cout", images, false);
    resume_finishes("cbig", "cout", images);
}

/* The GPUs the NVIDIA driver lists (0: none, or no driver). */
static size_t driver_gpus(void)
{
    DIR *list = opendir("/proc/driver/nvidia/gpus");
    size_t count = 0;
    for (struct dirent *e; list != NULL && (e = readdir(list)) != NULL;)
        count += e->d_name[0] != '.';
    if (list != NULL)
        closedir(list);
    return count;
}

/* Whether `gj2k ARGS` traced (its own process only, not the ones it forks)
 * loaded CUDA's driver library; -1 when strace cannot trace here. */
static int loads_cuda(const char *args, const char *trace)
{
    char command[6 * PATH_SIZE], path[PATH_SIZE];
    path_in(path, trace);
    snprintf(command, sizeof command, "strace -o '%s' -e trace=open,openat '%s' %s "
             ">/dev/null 2>&1", path, GJ2K_PROGRAM, args);
    int status = system(command);
    char *text = text_of(trace);
    int loads = text != NULL && strstr(text, "openat(") != NULL
                    ? strstr(text, "libcuda") != NULL : -1;
    free(text);
    return status == -1 ? -1 : loads;
}

/* A split run never starts CUDA in its own process, which forks the others
 * after (a CUDA context does not survive a fork): the GPUs counted from the
 * driver's list, or, where that cannot tell (as here without one), or
 * --devices names GPUs CUDA was not narrowed to, by a process forked to ask
 * CUDA. One process (the check that this can fail) starts it to choose the
 * device. Where strace cannot trace, or the build has no CUDA, it skips. */
static void test_split_run_never_starts_cuda(void)
{
    if (!program_available("strace"))
        test_skip("no strace");
    make_directory("nsrc");
    char name[64];
    for (int i = 0; i < 4; i++) {
        snprintf(name, sizeof name, "nsrc/n%d.ppm", i);
        gj2k_image_destroy(image_at(name, 50 + 3 * (unsigned)i, 20, 3));
    }
    const char *t = test_temp_dir();
    char args[4 * PATH_SIZE];
    snprintf(args, sizeof args, "encode -ImgDir '%s/nsrc' -o '%s/n1' --processes 1", t, t);
    int control = loads_cuda(args, "n1.trace");
    if (control != 1)
        test_skip(control < 0 ? "strace cannot trace here" : "one process does not load CUDA "
                                                             "here (a build without it)");
    const char *split[] = {"encode -ImgDir '%s/nsrc' -o '%s/n2' --processes 2",
                           "encode -ImgDir '%s/nsrc' -o '%s/n3' --processes 2 --devices 0",
                           "decode -ImgDir '%s/n1' -o '%s/n4' -OutFor ppm --processes 2",
                           "decode -ImgDir '%s/n1' -o '%s/n5' -OutFor ppm --processes 2 -G 0,1",
                           "decode -ImgDir '%s/n1' -o '%s/n6' -OutFor ppm"};
    /* the last: two GPUs shown, a decode splits by default (where the driver
     * lists none, as here without a GPU, or two or more) */
    size_t gpus = driver_gpus();
    const char *shown = getenv("CUDA_VISIBLE_DEVICES");
    char before[256];
    snprintf(before, sizeof before, "%s", shown != NULL ? shown : "");
    for (int i = 0; i < (gpus == 0 || gpus >= 2 ? 5 : 4); i++) {
        if (i == 4)
            REQUIRE(setenv("CUDA_VISIBLE_DEVICES", "0,1", 1) == 0);
        snprintf(args, sizeof args, split[i], t, t);
        snprintf(name, sizeof name, "n%d.trace", i + 2);
        CHECK(loads_cuda(args, name) == 0 || (fprintf(stderr, "CUDA loaded: %s\n", args), 0));
        run_result r;
        run_gj2k(&r, args);
        bool named_missing = i == 3; /* GPU 1 is not there where there are fewer */
        CHECK(r.exit_code == 0 || (named_missing && strstr(r.err, "--devices") != NULL) ||
              (fprintf(stderr, "%s: %s%s", args, r.out, r.err), 0));
        CHECK(r.exit_code != 0 || strstr(r.out, "in 2 processes") != NULL ||
              (fprintf(stderr, "%s: %s", args, r.out), 0));
    }
    if (shown != NULL)
        setenv("CUDA_VISIBLE_DEVICES", before, 1);
    else
        unsetenv("CUDA_VISIBLE_DEVICES");
}

/* --devices (and Grok's -G): malformed lists refused; with GPUs, the files
 * shared out among every one (the report names each file's) and coded to
 * the CPU's bytes; a GPU not there refused by number; one GPU of several
 * named (CUDA narrowed to it) still called by its number. Without a GPU, the
 * option with --device cpu changes nothing. */
static void test_devices_shared_out(void)
{
    const char *t = test_temp_dir();
    make_directory("many");
    char name[64];
    for (int i = 0; i < 8; i++) {
        snprintf(name, sizeof name, "many/m%d.ppm", i);
        gj2k_image_destroy(image_at(name, 40 + 7 * (unsigned)i, 23 + (unsigned)i, 3));
    }
    char args[4 * PATH_SIZE];
    run_result r;
    const char *malformed[] = {"--devices 0,0", "--devices x", "-G 1,", "-device_id ,1"};
    for (int i = 0; i < 4; i++) {
        snprintf(args, sizeof args, "encode -ImgDir '%s/many' -o '%s/bad' %s", t, t,
                 malformed[i]);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 2);
        CHECK(strstr(r.err, "--devices") != NULL || (fprintf(stderr, "%s", r.err), 0));
    }
    CHECK(!exists("bad"));
    snprintf(args, sizeof args, "encode -ImgDir '%s/many' -o '%s/bad' --cpu-workers x", t, t);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    CHECK(strstr(r.err, "--cpu-workers") != NULL || (fprintf(stderr, "%s", r.err), 0));
    CHECK(!exists("bad"));
    /* one worker: the files in the report as taken, the largest first */
    snprintf(args, sizeof args, "encode -ImgDir '%s/many' -o '%s/cpu' --device cpu --devices 0 "
             "--jobs 1 --cpu-workers 2 -quiet --report '%s/order.jsonl'", t, t, t);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    char *order = text_of("order.jsonl");
    REQUIRE(order != NULL);
    const char *at = order;
    for (int i = 7; i >= 0 && at != NULL; i--) {
        snprintf(name, sizeof name, "m%d.ppm\"", i);
        const char *found = strstr(at, name);
        CHECK(found != NULL ||
              (fprintf(stderr, "%s not after the larger ones: %s", name, order), 0));
        at = found;
    }
    free(order);
    gj2k_device_info info = GJ2K_DEVICE_INFO_INIT;
    gj2k_device_probe(&info);
    if (info.device_count <= 0) {
        test_skip("no GPU: the files cannot be shared out among GPUs here");
        return;
    }
    unsigned count = (unsigned)info.device_count;
    snprintf(args, sizeof args, "encode -ImgDir '%s/many' -o '%s/gpus' -G -1 --jobs %u "
             "--device gpu --report '%s/gpus.jsonl'", t, t, 2 * count, t);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "8 of 8 files on a GPU") != NULL || (fprintf(stderr, "%s", r.out), 0));
    CHECK(strstr(r.out, " processes") == NULL); /* an encode splits when asked */
    char *text = text_of("gpus.jsonl");
    REQUIRE(text != NULL);
    char field[32];
    for (unsigned g = 0; g < count && g < 2; g++) { /* 2 jobs a GPU: each takes files */
        snprintf(field, sizeof field, "\"gpu\":%u", g);
        CHECK(strstr(text, field) != NULL || (fprintf(stderr, "no %s in %s", field, text), 0));
    }
    free(text);
    char a[64], b[64];
    for (int i = 0; i < 8; i++) {
        snprintf(a, sizeof a, "cpu/m%d.j2k", i);
        snprintf(b, sizeof b, "gpus/m%d.j2k", i);
        CHECK(same_bytes(a, b));
    }
    /* CPU workers beside one GPU worker: they take the smallest files, and
     * code the CPU's bytes */
    snprintf(args, sizeof args, "encode -ImgDir '%s/many' -o '%s/mixed' -G 0 --jobs 1 "
             "--cpu-workers 2 --device gpu --report '%s/mixed.jsonl'", t, t, t);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "by the CPU workers") != NULL || (fprintf(stderr, "%s", r.out), 0));
    CHECK(strstr(r.out, "the workers: 1 file at once on 1 GPU and 2 on the CPU beside them") !=
              NULL || (fprintf(stderr, "%s", r.out), 0));
    text = text_of("mixed.jsonl");
    REQUIRE(text != NULL);
    size_t lines = 0, on_gpu = 0;
    for (const char *line = text; *line != '\0'; line = strchr(line, '\n') + 1) {
        lines++;
        const char *end = strchr(line, '\n');
        REQUIRE(end != NULL);
        const char *g = strstr(line, "\"gpu\":0");
        on_gpu += g != NULL && g < end;
    }
    CHECK_EQ(lines, 8);
    CHECK(on_gpu >= 1 && on_gpu < 8);
    free(text);
    for (int i = 0; i < 8; i++) {
        snprintf(a, sizeof a, "cpu/m%d.j2k", i);
        snprintf(b, sizeof b, "mixed/m%d.j2k", i);
        CHECK(same_bytes(a, b));
    }
    if (count >= 2) { /* CUDA narrowed to GPU 1 alone: the report still calls it 1 */
        snprintf(args, sizeof args, "encode -ImgDir '%s/many' -o '%s/one' --devices 1 "
                 "--device gpu --cpu-workers 0 --report '%s/one.jsonl'", t, t, t);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        text = text_of("one.jsonl");
        REQUIRE(text != NULL);
        CHECK((strstr(text, "\"gpu\":1") != NULL && strstr(text, "\"gpu\":0") == NULL) ||
              (fprintf(stderr, "%s", text), 0));
        free(text);
        for (int i = 0; i < 8; i++) {
            snprintf(a, sizeof a, "cpu/m%d.j2k", i);
            snprintf(b, sizeof b, "one/m%d.j2k", i);
            CHECK(same_bytes(a, b));
        }
    }
    snprintf(args, sizeof args, "encode -ImgDir '%s/many' -o '%s/none' --devices %u", t, t,
             count);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 2);
    snprintf(field, sizeof field, "no GPU %u", count);
    CHECK(strstr(r.err, field) != NULL || (fprintf(stderr, "%s", r.err), 0));
    snprintf(args, sizeof args, "decode -ImgDir '%s/gpus' -o '%s/back' -OutFor ppm --devices all "
             "--device gpu --verify", t, t);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    /* several GPUs: a decode splits into a process a GPU by default, an
     * encode when asked (every GPU named as Grok does, -G -1), and each
     * GPU's process codes as the CPU does */
    snprintf(field, sizeof field, "in %u processes", count);
    CHECK(count < 2 || strstr(r.out, field) != NULL || (fprintf(stderr, "%s", r.out), 0));
    /* a split asked of one file: one process, which resolves --device auto itself */
    make_directory("single");
    gj2k_image_destroy(image_at("single/s.ppm", 40, 23, 3));
    snprintf(args, sizeof args, "encode -ImgDir '%s/single' -o '%s/single_out' --processes 2 "
             "--cpu-workers 0", t, t);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "1 of 1 files on a GPU") != NULL || (fprintf(stderr, "%s", r.out), 0));
    snprintf(args, sizeof args, "encode -ImgDir '%s/many' -o '%s/split' -G -1 --device gpu "
             "--processes %u --cpu-workers 0 --report '%s/split.jsonl'", t, t, count, t);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(strstr(r.out, "8 of 8 files on a GPU") != NULL || (fprintf(stderr, "%s", r.out), 0));
    text = text_of("split.jsonl");
    REQUIRE(text != NULL);
    for (unsigned g = 0; g < count && g < 2; g++) {
        snprintf(field, sizeof field, "\"gpu\":%u", g);
        CHECK(strstr(text, field) != NULL || (fprintf(stderr, "no %s in %s", field, text), 0));
    }
    free(text);
    for (int i = 0; i < 8; i++) {
        snprintf(a, sizeof a, "cpu/m%d.j2k", i);
        snprintf(b, sizeof b, "split/m%d.j2k", i);
        CHECK(same_bytes(a, b));
    }
}

static const test_case cases[] = {
    {"processes_share_one_run", test_processes_share_one_run},
    {"killed_run_stops_its_processes", test_killed_run_stops_its_processes},
    {"killed_process_fails_the_run", test_killed_process_fails_the_run},
    {"split_run_never_starts_cuda", test_split_run_never_starts_cuda},
    {"devices_shared_out", test_devices_shared_out},
};

TEST_MAIN(cases)
