/* batch_devices.c - see batch_devices.h. */
#define _GNU_SOURCE /* pipe2 */
#include "batch_devices.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "options.h"

bool batch_devices_named(const char *devices)
{
    unsigned gpus[OPTIONS_MAX_GPUS];
    size_t count = 0;
    return devices != NULL && (!options_parse_devices(devices, gpus, &count) || count > 0);
}

/* Measured on 4 H200 and 64 cores, 200 photos to 4K, three rounds
 * (docs/gpu-notes.md, fourteenth session): decoding on 2 GPUs a process a
 * GPU took 2.40-2.51 s against one process's 2.61-2.81 (on 4, 2.50-2.55
 * against 2.56-2.63), the processes' own address spaces shortening the
 * files' span; encoding took 3.18-3.25 against 3.04-3.13 s (on 4,
 * 3.15-3.19 against 3.00-3.04), the processes' CUDA starts, which the
 * driver takes one after the other, costing more than the span gained. So
 * the decoder splits by default, the encoder does not. */
unsigned batch_process_count(const batch_request *batch, gj2k_device device, bool by_default)
{
    if (batch->processes > 0 || !by_default)
        return batch->processes > 0 ? batch->processes : 1;
#if defined(GJ2K_APP_CUDA)
    bool named = batch_devices_named(batch->devices);
    size_t gpus = device == GJ2K_DEVICE_CPU || named ? 0 : options_visible_gpu_count();
    return gpus > 1 ? (unsigned)(gpus < OPTIONS_MAX_GPUS ? gpus : OPTIONS_MAX_GPUS) : 1;
#else
    (void)device;
    return 1;
#endif
}

/* What the process forked to read the devices sends back. */
typedef struct devices_answer {
    int status;
    size_t count;
    unsigned gpus[OPTIONS_MAX_GPUS];
} devices_answer;

/* options_read_devices in a process forked for it (its messages on the
 * shared stderr); 1 after a message when that process cannot run. */
static int read_devices_apart(const char *command, const char *devices, gj2k_device device,
                              unsigned gpus[OPTIONS_MAX_GPUS], size_t *count)
{
    int ends[2];
    if (pipe2(ends, O_CLOEXEC) != 0) {
        report_error("%s: the GPUs could not be counted: %s", command, strerror(errno));
        return 1;
    }
    fflush(stdout);
    fflush(stderr);
    pid_t pid = fork();
    int fork_error = pid < 0 ? errno : 0;
    if (pid == 0) {
        close(ends[0]);
        devices_answer answer = {0};
        answer.status = options_read_devices(command, devices, device, answer.gpus,
                                             &answer.count);
        const char *at = (const char *)&answer;
        for (size_t left = sizeof answer; left > 0;) {
            ssize_t n = write(ends[1], at, left);
            if (n < 0 && errno == EINTR)
                continue;
            if (n <= 0)
                _exit(1);
            at += n;
            left -= (size_t)n;
        }
        _exit(0);
    }
    close(ends[1]);
    devices_answer answer = {.status = -1};
    size_t got = 0;
    while (pid > 0 && got < sizeof answer) {
        ssize_t n = read(ends[0], (char *)&answer + got, sizeof answer - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(ends[0]);
    int status = 0;
    while (pid > 0 && waitpid(pid, &status, 0) < 0 && errno == EINTR)
        continue;
    if (got != sizeof answer || answer.count > OPTIONS_MAX_GPUS) {
        report_error("%s: the GPUs could not be counted (the process asking CUDA %s)", command,
                     pid < 0 ? strerror(fork_error) : "ended without an answer");
        return 1;
    }
    memcpy(gpus, answer.gpus, sizeof answer.gpus);
    *count = answer.count;
    return answer.status;
}

int batch_share_devices(const char *command, batch_request *batch, gj2k_device device,
                        batch_settings *settings)
{
    size_t count = 0;
    bool split = settings->processes > 1 && device != GJ2K_DEVICE_CPU;
    bool named = batch_devices_named(batch->devices);
    size_t visible = split && !named ? options_visible_gpu_count() : 0;
    settings->gpus = batch->gpus;
    if (visible > 0) {
        count = visible < OPTIONS_MAX_GPUS ? visible : OPTIONS_MAX_GPUS;
        for (size_t i = 0; i < count; i++)
            batch->gpus[i] = (unsigned)i;
        settings->num_gpus = count;
        return 0;
    }
    int status = split ? read_devices_apart(command, batch->devices, device, batch->gpus, &count)
                       : options_read_devices(command, batch->devices, device, batch->gpus,
                                              &count);
    settings->num_gpus = status == 0 ? count : 0;
    return status;
}
