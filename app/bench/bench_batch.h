/* bench_batch.h - `gj2k bench batch`: a batch of jobs (encodes and decodes
 * of one image, memory to memory) run a few at a time on one device, for
 * the throughput a service or an archive sees, with each stage's mean. */
#ifndef GJ2K_APP_BENCH_BATCH_H
#define GJ2K_APP_BENCH_BATCH_H

/* Runs the benchmark (arguments after "batch"); returns the exit status. */
int bench_batch(int argc, char **argv);

#endif
