/* batch_inputs.h - the files a batch run codes (`gj2k encode|decode` with
 * several inputs): gathered from -i files, a directory (-ImgDir / -y, with
 * --recursive the tree below it), and --files-from lists, sorted, sharded
 * (--shard K/N) and each given its output path. */
#ifndef GJ2K_APP_BATCH_INPUTS_H
#define GJ2K_APP_BATCH_INPUTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

typedef struct batch_item {
    char *input;    /* the path as found */
    char *output;   /* where its result goes */
    char *relative; /* its path below its root: a directory's tree, a list's relative
                       paths as given, an -i file's name alone */
} batch_item;

typedef struct batch_list {
    batch_item *items;
    size_t count, capacity;
} batch_list;

/* Where the inputs come from and where their outputs go. */
typedef struct batch_sources {
    const char *const *files;   /* -i values */
    size_t num_files;
    const char *directory;      /* -ImgDir / -y: its files with an accepted extension */
    bool recursive;             /* and those of its subdirectories, the tree kept below out_dir */
    const char *files_from;     /* one path a line ("-": standard input) */
    const char *out_dir;        /* NULL: each output beside its input */
    const char *out_extension;  /* the outputs' extension, without the dot */
    /* What a directory's files must end with to be inputs (case-insensitive,
     * NULL-terminated, without the dot). */
    const char *const *accept;
    unsigned shard_index;       /* 1..shard_count; shard_count 0: every input */
    unsigned shard_count;
} batch_sources;

/* Builds the list: every input once, sorted by relative path, those of the
 * shard only. False (with one line in `why`) when a directory or list
 * cannot be read or nothing is left to code. */
bool batch_list_build(const batch_sources *sources, batch_list *list, char *why, size_t why_size);
void batch_list_free(batch_list *list);

/* The shard (1..count) a relative path falls in: a hash of the path, so
 * the same on every node and under a re-run (--shard K/N). */
unsigned batch_shard_of(const char *relative, unsigned count);

/* Parses "K/N" with 1 <= K <= N <= 1000000; false otherwise. */
bool batch_parse_shard(const char *text, unsigned *index, unsigned *count);

/* Creates the directories above `path` that do not exist (mkdir -p of its
 * parent); false with errno set when one cannot be made. */
bool batch_make_parent_directories(const char *path);

#endif
