/* test_cli_output.c - what an interrupted or killed gj2k leaves behind:
 * nothing. A signal during the write removes the temporary file; one left by
 * a killed run (no process holds its lock) is removed by the next write of
 * the same output; one that a live process holds is left alone. */
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli_test_support.h"
#include "gj2k.h"
#include "test_harness.h"

/* A PPM of random bytes (incompressible: the output is as large as the
 * input, so writing it takes a while). */
static void write_noise_ppm(const char *path, unsigned width, unsigned height)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    fprintf(f, "P6\n%u %u\n255\n", width, height);
    size_t count = (size_t)width * height * 3;
    uint8_t *bytes = malloc(count);
    REQUIRE(bytes != NULL);
    for (size_t i = 0; i < count; i += 8) {
        uint64_t r = test_random();
        for (size_t k = 0; k < 8 && i + k < count; k++)
            bytes[i + k] = (uint8_t)(r >> (8 * k));
    }
    REQUIRE(fwrite(bytes, 1, count, f) == count);
    REQUIRE(fclose(f) == 0);
    free(bytes);
}

static void write_text(const char *path, const char *text)
{
    FILE *f = fopen(path, "wb");
    REQUIRE(f != NULL);
    fputs(text, f);
    REQUIRE(fclose(f) == 0);
}

/* A small source image, the output path `name` and its temporary, in the
 * test's directory; `text` written to the temporary. */
typedef struct output_case {
    char source[1024], out[1024], temporary[1100];
} output_case;

static gj2k_image *prepare(output_case *c, const char *name, const char *text)
{
    snprintf(c->source, sizeof c->source, "%s/source.ppm", test_temp_dir());
    snprintf(c->out, sizeof c->out, "%s/%s", test_temp_dir(), name);
    snprintf(c->temporary, sizeof c->temporary, "%s.tmp-gj2k", c->out);
    write_text(c->temporary, text);
    return write_test_image(c->source, 40, 30, 3, 8);
}

/* A temporary left by a killed run is removed when the same output is written. */
static void stale_temporary_removed(void)
{
    output_case c;
    gj2k_image *image = prepare(&c, "out.j2k", "half a file");
    REQUIRE(image != NULL);
    const char *source = c.source, *out = c.out, *stale = c.temporary;
    char args[4096];
    run_result r;
    snprintf(args, sizeof args, "encode -i '%s' -o '%s'", source, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(!file_exists(stale));
    CHECK_EQ(temp_entries(), 2); /* source and out */
    gj2k_image *decoded = NULL;
    gj2k_error error = {0};
    CHECK(gj2k_decode_file(out, NULL, &decoded, &error) == GJ2K_OK && test_same_samples(image, decoded));
    gj2k_image_destroy(decoded);
    gj2k_image_destroy(image);
}

/* The other names a writer may have taken (PATH.tmp-gj2k-1 .. -16), left
 * by runs killed while they held them, are removed by the next write of
 * PATH; one that a live process holds stays. */
static void stale_fallbacks_removed(void)
{
    output_case c;
    gj2k_image *image = prepare(&c, "out.j2k", "left by a killed run");
    REQUIRE(image != NULL);
    gj2k_image_destroy(image);
    char stale[2][1200], held[1200], args[4096];
    snprintf(stale[0], sizeof stale[0], "%s-1", c.temporary);
    snprintf(stale[1], sizeof stale[1], "%s-16", c.temporary);
    snprintf(held, sizeof held, "%s-7", c.temporary);
    write_text(stale[0], "stale");
    write_text(stale[1], "stale");
    write_text(held, "held");
    int fd = open(held, O_RDONLY);
    REQUIRE(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
    run_result r;
    snprintf(args, sizeof args, "encode -i '%s' -o '%s'", c.source, c.out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    CHECK(!file_exists(c.temporary) && !file_exists(stale[0]) && !file_exists(stale[1]));
    CHECK(file_exists(held));
    CHECK_EQ(temp_entries(), 3); /* source, out and the held one */
    close(fd);
}

/* A temporary that a live process holds (its lock) is not touched: the
 * write goes through another name, and leaves nothing of its own. */
static void held_temporary_kept(void)
{
    output_case c;
    gj2k_image *image = prepare(&c, "out.ppm", "being written");
    REQUIRE(image != NULL);
    gj2k_image_destroy(image);
    const char *source = c.source, *out = c.out, *held = c.temporary;
    char args[4096];
    int fd = open(held, O_RDONLY);
    REQUIRE(fd >= 0 && flock(fd, LOCK_EX | LOCK_NB) == 0);
    run_result r;
    snprintf(args, sizeof args, "convert -i '%s' -o '%s'", source, out);
    run_gj2k(&r, args);
    CHECK_EQ(r.exit_code, 0);
    size_t size = 0;
    uint8_t *kept = test_read_file(held, &size);
    CHECK(kept != NULL && size == 13 && memcmp(kept, "being written", 13) == 0);
    free(kept);
    CHECK(file_exists(out));
    CHECK_EQ(temp_entries(), 3); /* source, out and the held one */
    close(fd);
}

/* Runs gj2k with `args` (NULL-ended) in a child, its output silenced. */
static pid_t start_gj2k(char *const *args)
{
    pid_t pid = fork();
    if (pid == 0) {
        signal(SIGINT, SIG_DFL);
        signal(SIGTERM, SIG_DFL);
        int null = open("/dev/null", O_WRONLY);
        if (null >= 0) {
            dup2(null, 1);
            dup2(null, 2);
        }
        execv(GJ2K_PROGRAM, args);
        _exit(127);
    }
    return pid;
}

/* Waits until `path` exists (true) or the child ends first (false, its
 * status in *status). */
static bool wait_for_file(const char *path, pid_t pid, int *status)
{
    for (;;) {
        struct stat st;
        if (stat(path, &st) == 0)
            return true;
        if (waitpid(pid, status, WNOHANG) == pid)
            return false;
        nanosleep(&(struct timespec){0, 50000}, NULL);
    }
}

/* Runs gj2k with `args` writing `out` and sends `sig` once its temporary
 * appears: the temporary goes, and the signal ends the program, or (when
 * it came just after the rename) the output is whole. A run that ends
 * before the temporary is seen (a busy machine) is tried again. */
static void interrupt_write(char *const *args, const char *out, int sig)
{
    char temporary[1100];
    snprintf(temporary, sizeof temporary, "%s.tmp-gj2k", out);
    bool seen = false;
    int status = 0;
    for (int attempt = 0; attempt < 5 && !seen; attempt++) {
        remove(out);
        pid_t pid = start_gj2k(args);
        REQUIRE(pid >= 0);
        seen = wait_for_file(temporary, pid, &status);
        if (seen) {
            kill(pid, sig);
            REQUIRE(waitpid(pid, &status, 0) == pid);
        }
    }
    if (!seen)
        fprintf(stderr, "  the write of %s ended before its temporary was seen\n", out);
    CHECK(seen);
    CHECK(WIFSIGNALED(status) ? WTERMSIG(status) == sig : WEXITSTATUS(status) == 0);
    CHECK(!file_exists(temporary));
    if (file_exists(out)) {
        gj2k_image *decoded = NULL;
        gj2k_error error = {0};
        const char *dot = strrchr(out, '.');
        gj2k_status read = dot != NULL && strcmp(dot, ".j2k") == 0
                               ? gj2k_decode_file(out, NULL, &decoded, &error)
                               : gj2k_image_read_file(out, NULL, &decoded, &error);
        CHECK(read == GJ2K_OK);
        gj2k_image_destroy(decoded);
    }
}

/* SIGINT or SIGTERM while the output is being written: the temporary goes,
 * no output appears, and the signal ends the program. */
static void signal_removes_temporary(void)
{
    char source[1024], out[1024];
    snprintf(source, sizeof source, "%s/noise.ppm", test_temp_dir());
    write_noise_ppm(source, 1800, 1200);
    const int signals[] = {SIGINT, SIGTERM};
    for (size_t s = 0; s < sizeof signals / sizeof signals[0]; s++) {
        snprintf(out, sizeof out, "%s/out%zu.j2k", test_temp_dir(), s);
        char *args[] = {GJ2K_PROGRAM, "encode", "-i", source, "-o", out, "-threads", "2", NULL};
        interrupt_write(args, out, signals[s]);
    }
}

/* The same for a decode written strip by strip (--strip-rows): its
 * temporary lives for the whole decode. */
static void signal_removes_streamed_temporary(void)
{
    char source[1024], coded[1024], out[1024];
    snprintf(source, sizeof source, "%s/noise.ppm", test_temp_dir());
    snprintf(coded, sizeof coded, "%s/noise.j2k", test_temp_dir());
    snprintf(out, sizeof out, "%s/decoded.ppm", test_temp_dir());
    write_noise_ppm(source, 1800, 1200);
    char args[4096];
    run_result r;
    snprintf(args, sizeof args, "encode -i '%s' -o '%s'", source, coded);
    run_gj2k(&r, args);
    REQUIRE(r.exit_code == 0);
    char *decode[] = {GJ2K_PROGRAM, "decode", "-i", coded, "-o", out, "--strip-rows", "4",
                      "-threads", "1", NULL};
    interrupt_write(decode, out, SIGTERM);
}

/* Two live writers of one output: a streamed decode holds the temporary
 * (and its lock) while a second gj2k writes the same name. The second
 * leaves the first's temporary alone (another name), both finish, and the
 * output is one of theirs, whole; nothing else is left behind. */
static void live_writers_share_an_output(void)
{
    char source[1024], coded[1024], other[1024], out[1024], temporary[1100];
    snprintf(source, sizeof source, "%s/noise.ppm", test_temp_dir());
    snprintf(coded, sizeof coded, "%s/noise.j2k", test_temp_dir());
    snprintf(other, sizeof other, "%s/other.ppm", test_temp_dir());
    snprintf(out, sizeof out, "%s/shared.ppm", test_temp_dir());
    snprintf(temporary, sizeof temporary, "%s.tmp-gj2k", out);
    write_noise_ppm(source, 1800, 1200);
    write_noise_ppm(other, 50, 40);
    char args[4096];
    run_result r;
    snprintf(args, sizeof args, "encode -i '%s' -o '%s'", source, coded);
    run_gj2k(&r, args);
    REQUIRE(r.exit_code == 0);
    char *decode[] = {GJ2K_PROGRAM, "decode", "-i", coded, "-o", out, "--strip-rows", "2",
                      "-threads", "1", NULL};
    bool overlapped = false;
    for (int attempt = 0; attempt < 5 && !overlapped; attempt++) {
        remove(out);
        int status = 0;
        pid_t pid = start_gj2k(decode);
        REQUIRE(pid >= 0);
        if (!wait_for_file(temporary, pid, &status))
            continue;
        snprintf(args, sizeof args, "convert -i '%s' -o '%s'", other, out);
        run_gj2k(&r, args);
        CHECK_EQ(r.exit_code, 0);
        /* the first still writes: its temporary is still there */
        overlapped = waitpid(pid, &status, WNOHANG) == 0 && file_exists(temporary);
        REQUIRE(waitpid(pid, &status, 0) == pid);
        CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    }
    CHECK(overlapped);
    CHECK(!file_exists(temporary));
    gj2k_image *written = NULL, *expected = NULL;
    gj2k_error error = {0};
    REQUIRE(gj2k_image_read_file(out, NULL, &written, &error) == GJ2K_OK);
    /* the decode renamed last: its image (1800x1200) */
    CHECK(written->x1 - written->x0 == 1800 && written->y1 - written->y0 == 1200);
    REQUIRE(gj2k_image_read_file(source, NULL, &expected, &error) == GJ2K_OK);
    CHECK(test_same_samples(expected, written));
    gj2k_image_destroy(written);
    gj2k_image_destroy(expected);
    CHECK_EQ(temp_entries(), 4); /* noise.ppm, noise.j2k, other.ppm and shared.ppm */
}

static const test_case cases[] = {
    {"stale_temporary_removed", stale_temporary_removed},
    {"held_temporary_kept", held_temporary_kept},
    {"stale_fallbacks_removed", stale_fallbacks_removed},
    {"signal_removes_temporary", signal_removes_temporary},
    {"signal_removes_streamed_temporary", signal_removes_streamed_temporary},
    {"live_writers_share_an_output", live_writers_share_an_output},
};

TEST_MAIN(cases)
