/* memory_budget.c - see memory_budget.h. */
#include "memory_budget.h"

#include <stdio.h>
#include <unistd.h>

#include "error.h"

/* The memory limit of the process's control group (cgroup v2 memory.max
 * of its own group, as a container sees it), or UINT64_MAX. */
static uint64_t cgroup_limit(void)
{
    FILE *f = fopen("/sys/fs/cgroup/memory.max", "r");
    if (f == NULL)
        return UINT64_MAX;
    unsigned long long value = 0;
    int read = fscanf(f, "%llu", &value);
    fclose(f);
    return read == 1 && value > 0 ? (uint64_t)value : UINT64_MAX; /* "max": none */
}

uint64_t memory_default_limit(void)
{
    long pages = sysconf(_SC_PHYS_PAGES), page_size = sysconf(_SC_PAGESIZE);
    uint64_t physical = pages > 0 && page_size > 0 ? (uint64_t)pages * (uint64_t)page_size
                                                  : (uint64_t)2 << 30;
    uint64_t group = cgroup_limit();
    return (physical < group ? physical : group) / 2;
}

void memory_budget_init(memory_budget *budget, uint64_t limit)
{
    budget->limit = limit != 0 ? limit : memory_default_limit();
    atomic_init(&budget->used, 0);
    atomic_init(&budget->refused, false);
}

/* "1.5 GiB", "300 MiB", "512 bytes". */
static const char *human(uint64_t bytes, char *text, size_t size)
{
    static const char *const units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    if (bytes < 1024) {
        snprintf(text, size, "%llu bytes", (unsigned long long)bytes);
        return text;
    }
    double value = (double)bytes / 1024.0;
    unsigned unit = 0;
    while (value >= 1024.0 && unit + 1 < sizeof units / sizeof units[0]) {
        value /= 1024.0;
        unit++;
    }
    snprintf(text, size, "%.1f %s", value, units[unit]);
    return text;
}

gj2k_status memory_budget_take(memory_budget *budget, uint64_t bytes, const char *what,
                               gj2k_error *error)
{
    if (budget == NULL)
        return GJ2K_OK;
    uint64_t used = atomic_load(&budget->used);
    for (;;) {
        if (bytes > budget->limit || used > budget->limit - bytes) {
            atomic_store(&budget->refused, true);
            char need[32], limit[32], held[32];
            return gj2k_fail(error, GJ2K_ERROR_LIMIT,
                             "%s needs %s, over the memory limit of %s (%s held already; "
                             "max_memory sets the limit)", what, human(bytes, need, sizeof need),
                             human(budget->limit, limit, sizeof limit),
                             human(used, held, sizeof held));
        }
        if (atomic_compare_exchange_weak(&budget->used, &used, used + bytes))
            return GJ2K_OK;
    }
}

void memory_budget_give(memory_budget *budget, uint64_t bytes)
{
    if (budget != NULL)
        atomic_fetch_sub(&budget->used, bytes);
}

void memory_budget_add(memory_budget *budget, uint64_t bytes)
{
    if (budget != NULL)
        atomic_fetch_add(&budget->used, bytes);
}
