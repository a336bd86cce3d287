/* test_options.c - the program's option helpers (app/options.c, built into
 * the test): --devices narrowing CUDA_VISIBLE_DEVICES to the GPUs named,
 * through a list already there and without one, and for one file to the
 * one GPU it codes on. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "options.h"
#include "test_harness.h"

/* Whether CUDA_VISIBLE_DEVICES is `expected` (printing it when not). */
static bool visible_is(const char *expected)
{
    const char *value = getenv("CUDA_VISIBLE_DEVICES");
    if (value != NULL && strcmp(value, expected) == 0)
        return true;
    fprintf(stderr, "CUDA_VISIBLE_DEVICES is %s, expected %s\n", value ? value : "unset", expected);
    return false;
}

/* Whether the NVIDIA driver lists GPUs here: a GPU's number in
 * CUDA_VISIBLE_DEVICES then counts only below its count. */
static bool driver_lists_gpus(void)
{
    return access("/proc/driver/nvidia/gpus", F_OK) == 0;
}

/* Through a list already there: its entries in the order named; nothing
 * changed for "all", a malformed list, or an entry past the list. UUIDs,
 * which count on any machine; numbers where the driver lists no GPU (CI),
 * and on a machine with GPUs a number past them. */
static void test_narrow_through_visible_list(void)
{
    unsigned names[OPTIONS_MAX_GPUS];
    size_t count = 0;
    const char *list = driver_lists_gpus() ? "GPU-a5,GPU-1a2b,MIG-7" : "5,GPU-1a2b,7";
    const char *first = driver_lists_gpus() ? "GPU-a5" : "5", *last = driver_lists_gpus() ? "MIG-7" : "7";
    char expected[64];
    REQUIRE(setenv("CUDA_VISIBLE_DEVICES", list, 1) == 0);
    CHECK(options_narrow_gpus("2,0", names, &count));
    CHECK_EQ(count, 2);
    CHECK_EQ(names[0], 2);
    CHECK_EQ(names[1], 0);
    snprintf(expected, sizeof expected, "%s,%s", last, first);
    CHECK(visible_is(expected));
    REQUIRE(setenv("CUDA_VISIBLE_DEVICES", list, 1) == 0);
    CHECK(options_narrow_gpus("1", names, &count));
    CHECK(visible_is("GPU-1a2b"));
    const char *refused[] = {"3", "0,3", "all", "-1", "0,0", "x", ""};
    for (size_t i = 0; i < sizeof refused / sizeof *refused; i++) {
        REQUIRE(setenv("CUDA_VISIBLE_DEVICES", list, 1) == 0);
        CHECK(!options_narrow_gpus(refused[i], names, &count));
        CHECK(visible_is(list));
    }
    /* CUDA shows the entries before the first it does not take (-1, an
     * empty one, text): those after it are hidden, never named */
    const char *cut[] = {"GPU-a0,GPU-a2,-1,GPU-a1", "GPU-a0,GPU-a2,,GPU-a1",
                         "GPU-a0,GPU-a2,x,GPU-a1", "GPU-a0,GPU-a2"};
    for (size_t i = 0; i < sizeof cut / sizeof *cut; i++) {
        REQUIRE(setenv("CUDA_VISIBLE_DEVICES", cut[i], 1) == 0);
        CHECK(!options_narrow_gpus("2", names, &count));
        CHECK(!options_narrow_gpus("3", names, &count));
        CHECK(visible_is(cut[i]));
        CHECK(options_narrow_gpus("1,0", names, &count));
        CHECK(visible_is("GPU-a2,GPU-a0"));
    }
    if (driver_lists_gpus()) { /* a number past the driver's GPUs ends the list */
        REQUIRE(setenv("CUDA_VISIBLE_DEVICES", "0,1023", 1) == 0);
        CHECK(!options_narrow_gpus("1", names, &count));
        CHECK(visible_is("0,1023"));
    }
    REQUIRE(setenv("CUDA_VISIBLE_DEVICES", "MIG-4f2a,GPU-,GPU-77", 1) == 0); /* "GPU-" alone is no UUID */
    CHECK(options_narrow_gpus("0", names, &count));
    CHECK(visible_is("MIG-4f2a"));
    REQUIRE(setenv("CUDA_VISIBLE_DEVICES", "MIG-4f2a,GPU-,GPU-77", 1) == 0);
    CHECK(!options_narrow_gpus("2", names, &count));
    REQUIRE(setenv("CUDA_VISIBLE_DEVICES", "", 1) == 0); /* no GPU visible: none to name */
    CHECK(!options_narrow_gpus("0", names, &count));
    CHECK(visible_is(""));
}

/* Without a list: the numbers themselves, when the driver has that many
 * GPUs; nothing set where it has none (CI) or cannot tell. */
static void test_narrow_without_list(void)
{
    unsigned names[OPTIONS_MAX_GPUS];
    size_t count = 0;
    REQUIRE(unsetenv("CUDA_VISIBLE_DEVICES") == 0);
    if (options_narrow_gpus("0", names, &count)) {
        CHECK(visible_is("0"));
        REQUIRE(unsetenv("CUDA_VISIBLE_DEVICES") == 0);
    } else {
        CHECK(getenv("CUDA_VISIBLE_DEVICES") == NULL);
    }
    CHECK(!options_narrow_gpus("1023", names, &count)); /* no machine has that many */
    CHECK(getenv("CUDA_VISIBLE_DEVICES") == NULL);
}

/* The arguments parsed with --device and --devices, then
 * options_narrow_to_one_gpu; its --devices afterwards in *devices. */
static bool narrow_one(int argc, char **argv, const char **devices, parsed_options *parsed)
{
    static const option_spec specs[] = {{"--device", "D", ""}, {"--devices", "LIST", ""}};
    if (!options_parse("encode", argc, argv, specs, 2, 0, parsed))
        return false;
    options_narrow_to_one_gpu(parsed);
    *devices = options_get(parsed, "--devices");
    return true;
}

#define ARGS(...) (int)(sizeof((char *[]){__VA_ARGS__}) / sizeof(char *)), (char *[]){__VA_ARGS__}

/* One file: the first GPU named (GPU 0 when none is), its --devices now
 * CUDA's 0; nothing changed for --device cpu or a GPU not there. */
static void test_narrow_to_one_gpu(void)
{
    parsed_options parsed;
    const char *devices = NULL;
    REQUIRE(setenv("CUDA_VISIBLE_DEVICES", "GPU-5,GPU-7,GPU-9", 1) == 0);
    REQUIRE(narrow_one(ARGS("--devices", "2,0"), &devices, &parsed));
    CHECK(devices != NULL && strcmp(devices, "0") == 0);
    CHECK(visible_is("GPU-9"));
    options_free(&parsed);
    REQUIRE(setenv("CUDA_VISIBLE_DEVICES", "GPU-5,GPU-7,GPU-9", 1) == 0);
    REQUIRE(narrow_one(ARGS("--device", "gpu"), &devices, &parsed));
    CHECK(devices == NULL);
    CHECK(visible_is("GPU-5"));
    options_free(&parsed);
    /* a GPU not there, even after the first: the usual check names it */
    char *unchanged[][4] = {{"--device", "cpu", "--devices", "1"}, {"--devices", "3"},
                            {"--devices", "x"}, {"--devices", "0,3"}};
    for (size_t i = 0; i < sizeof unchanged / sizeof *unchanged; i++) {
        REQUIRE(setenv("CUDA_VISIBLE_DEVICES", "GPU-5,GPU-7,GPU-9", 1) == 0);
        REQUIRE(narrow_one(i == 0 ? 4 : 2, unchanged[i], &devices, &parsed));
        CHECK(visible_is("GPU-5,GPU-7,GPU-9"));
        CHECK(devices != NULL && strcmp(devices, "0") != 0);
        options_free(&parsed);
    }
}

static const test_case cases[] = {
    {"narrow_through_visible_list", test_narrow_through_visible_list},
    {"narrow_without_list", test_narrow_without_list},
    {"narrow_to_one_gpu", test_narrow_to_one_gpu},
};

TEST_MAIN(cases)
