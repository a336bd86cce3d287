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
    CHECK(gj2k_decode_file(out, NULL, &decoded, &error) == GJ2K_OK && same_samples(image, decoded));
    gj2k_image_destroy(decoded);
    gj2k_image_destroy(image);
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

/* SIGINT or SIGTERM while the output is being written: the temporary goes,
 * no output appears, and the signal ends the program. */
static void signal_removes_temporary(void)
{
    char source[1024], out[1024], temporary[1100];
    snprintf(source, sizeof source, "%s/noise.ppm", test_temp_dir());
    write_noise_ppm(source, 1800, 1200);
    const int signals[] = {SIGINT, SIGTERM};
    for (size_t s = 0; s < sizeof signals / sizeof signals[0]; s++) {
        snprintf(out, sizeof out, "%s/out%zu.j2k", test_temp_dir(), s);
        snprintf(temporary, sizeof temporary, "%s.tmp-gj2k", out);
        pid_t pid = fork();
        REQUIRE(pid >= 0);
        if (pid == 0) {
            signal(SIGINT, SIG_DFL);
            signal(SIGTERM, SIG_DFL);
            int null = open("/dev/null", O_WRONLY);
            if (null >= 0) {
                dup2(null, 1);
                dup2(null, 2);
            }
            execl(GJ2K_PROGRAM, GJ2K_PROGRAM, "encode", "-i", source, "-o", out, "-threads",
                  "2", (char *)NULL);
            _exit(127);
        }
        /* Wait for the temporary to appear (the encode is done and its bytes
         * are being written), then send the signal. */
        bool seen = false;
        int status = 0;
        for (;;) {
            struct stat st;
            if (stat(temporary, &st) == 0) {
                seen = true;
                break;
            }
            if (waitpid(pid, &status, WNOHANG) == pid)
                break;
            nanosleep(&(struct timespec){0, 50000}, NULL);
        }
        if (seen) {
            kill(pid, signals[s]);
            REQUIRE(waitpid(pid, &status, 0) == pid);
        }
        if (!seen)
            fprintf(stderr, "  the write of %s ended before its temporary was seen\n", out);
        CHECK(seen);
        /* The signal came during the write (the usual case: no output), or
         * just after the rename (a whole output). Never a temporary. */
        CHECK(WIFSIGNALED(status) ? WTERMSIG(status) == signals[s] : WEXITSTATUS(status) == 0);
        CHECK(!file_exists(temporary));
        if (file_exists(out)) {
            gj2k_image *decoded = NULL;
            gj2k_error error = {0};
            CHECK(gj2k_decode_file(out, NULL, &decoded, &error) == GJ2K_OK);
            gj2k_image_destroy(decoded);
        }
    }
}

static const test_case cases[] = {
    {"stale_temporary_removed", stale_temporary_removed},
    {"held_temporary_kept", held_temporary_kept},
    {"signal_removes_temporary", signal_removes_temporary},
};

TEST_MAIN(cases)
