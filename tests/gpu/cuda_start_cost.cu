/* cuda_start_cost.cu - where a process's fixed CUDA cost goes (issue 18: a
 * batch run carries ~0.8 s whatever its length). Times, on the visible
 * GPUs: the driver's start (cudaGetDeviceCount), device 0's properties,
 * each GPU's context (one after the other, or all at once from a thread a
 * GPU), a batch worker's first work on it (streams, a memory pool, a
 * kernel), and the end: the contexts reset, or none, with the process left
 * by exit() (the runtime's own teardown) or by _exit() (none). The shell
 * around it times the process whole; tests/gpu/start_cost.sh runs it.
 * Usage: cuda_start_cost serial|parallel reset|exit|quick */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <thread>
#include <vector>

#include <cuda_runtime.h>
#include <unistd.h>

static double now_ms()
{
    timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec * 1e3 + (double)t.tv_nsec * 1e-6;
}

/* Milliseconds since the process started (/proc/self/stat, in clock ticks). */
static double since_process_start_ms()
{
    FILE *f = std::fopen("/proc/self/stat", "r");
    if (f == nullptr)
        return -1.0;
    char buffer[1024];
    size_t n = std::fread(buffer, 1, sizeof buffer - 1, f);
    std::fclose(f);
    buffer[n] = '\0';
    const char *p = std::strrchr(buffer, ')');
    unsigned long long start = 0;
    for (int field = 2; p != nullptr && field < 22; field++)
        p = std::strchr(p + 1, ' ');
    if (p == nullptr || std::sscanf(p + 1, "%llu", &start) != 1)
        return -1.0;
    timespec boot;
    clock_gettime(CLOCK_BOOTTIME, &boot);
    double ticks = (double)sysconf(_SC_CLK_TCK);
    return ((double)boot.tv_sec + (double)boot.tv_nsec * 1e-9 - (double)start / ticks) * 1e3;
}

static void check(cudaError_t status, const char *what)
{
    if (status != cudaSuccess) {
        std::fprintf(stderr, "cuda_start_cost: %s: %s\n", what, cudaGetErrorString(status));
        std::exit(1);
    }
}

__global__ void touch(int *data) { data[threadIdx.x] = (int)threadIdx.x; }

/* A batch worker's first work on `device`: 8 streams, a pool, a kernel. */
static void first_work(int device)
{
    check(cudaSetDevice(device), "cudaSetDevice");
    cudaMemPoolProps props = {};
    props.allocType = cudaMemAllocationTypePinned;
    props.location.type = cudaMemLocationTypeDevice;
    props.location.id = device;
    cudaMemPool_t pool;
    check(cudaMemPoolCreate(&pool, &props), "cudaMemPoolCreate");
    for (int k = 0; k < 8; k++) {
        cudaStream_t stream;
        check(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
        void *memory = nullptr;
        check(cudaMallocFromPoolAsync(&memory, 64u << 20, pool, stream), "cudaMallocFromPoolAsync");
        touch<<<1, 32, 0, stream>>>((int *)memory);
        check(cudaGetLastError(), "touch");
        check(cudaFreeAsync(memory, stream), "cudaFreeAsync");
        check(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
        check(cudaStreamDestroy(stream), "cudaStreamDestroy");
    }
    check(cudaMemPoolDestroy(pool), "cudaMemPoolDestroy");
}

int main(int argc, char **argv)
{
    bool parallel = argc > 1 && std::strcmp(argv[1], "parallel") == 0;
    const char *end = argc > 2 ? argv[2] : "exit";
    std::printf("main entered %.1f ms after the process started\n", since_process_start_ms());
    double t = now_ms();
    int count = 0;
    check(cudaGetDeviceCount(&count), "cudaGetDeviceCount");
    std::printf("cudaGetDeviceCount (the driver's start): %.1f ms, %d GPUs\n", now_ms() - t, count);
    t = now_ms();
    cudaDeviceProp properties;
    check(cudaGetDeviceProperties(&properties, 0), "cudaGetDeviceProperties");
    std::printf("cudaGetDeviceProperties(0): %.1f ms\n", now_ms() - t);
    std::vector<double> took(count);
    t = now_ms();
    auto open = [&took](int d) {
        double s = now_ms();
        check(cudaSetDevice(d), "cudaSetDevice");
        check(cudaFree(nullptr), "cudaFree(0)");
        took[d] = now_ms() - s;
    };
    if (parallel) {
        std::vector<std::thread> threads;
        for (int d = 0; d < count; d++)
            threads.emplace_back(open, d);
        for (auto &thread : threads)
            thread.join();
    } else {
        for (int d = 0; d < count; d++)
            open(d);
    }
    std::printf("contexts (%s): %.1f ms in all;", parallel ? "at once" : "one after the other",
                now_ms() - t);
    for (int d = 0; d < count; d++)
        std::printf(" GPU %d %.1f", d, took[d]);
    std::printf("\n");
    t = now_ms();
    for (int d = 0; d < count; d++) {
        double s = now_ms();
        first_work(d);
        took[d] = now_ms() - s;
    }
    std::printf("first work (8 streams, a pool, a kernel): %.1f ms;", now_ms() - t);
    for (int d = 0; d < count; d++)
        std::printf(" GPU %d %.1f", d, took[d]);
    std::printf("\n");
    if (std::strcmp(end, "reset") == 0) {
        t = now_ms();
        for (int d = 0; d < count; d++) {
            check(cudaSetDevice(d), "cudaSetDevice");
            check(cudaDeviceReset(), "cudaDeviceReset");
        }
        std::printf("cudaDeviceReset, every GPU: %.1f ms\n", now_ms() - t);
    }
    timespec wall;
    clock_gettime(CLOCK_REALTIME, &wall);
    std::printf("leaving at %lld%09ld ns (%s)\n", (long long)wall.tv_sec, wall.tv_nsec, end);
    std::fflush(stdout);
    if (std::strcmp(end, "quick") == 0)
        _exit(0);
    return 0;
}
