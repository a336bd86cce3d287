/* batch_devices.h - the GPUs of a batch run and the processes it splits
 * into (batch_commands.c): counted, where the run splits, without CUDA
 * started in this process, which forks the run's processes after. */
#ifndef GJ2K_APP_BATCH_DEVICES_H
#define GJ2K_APP_BATCH_DEVICES_H

#include <stdbool.h>

#include "batch_options.h"
#include "gj2k.h"

/* Whether --devices (NULL: not given) names GPUs: not all of them ("all",
 * -1), which CUDA is then not narrowed to. */
bool batch_devices_named(const char *devices);

/* The processes a batch is split over (batch_settings.processes):
 * --processes, else, `by_default`, one a GPU when CUDA would show several
 * (told from the driver's list, or 1 when that cannot tell), unless
 * --devices names GPUs CUDA was not narrowed to. */
unsigned batch_process_count(const batch_request *batch, gj2k_device device, bool by_default);

/* The GPUs the batch's workers share out (--devices, else every visible
 * one) into `settings`; 0, or the exit status after a message. A split run
 * (settings->processes > 1) counts them from the driver's list; where that
 * cannot tell, or --devices names GPUs CUDA was not narrowed to, a process
 * forked for it asks CUDA, so that CUDA never starts in this one. */
int batch_share_devices(const char *command, batch_request *batch, gj2k_device device,
                        batch_settings *settings);

#endif
