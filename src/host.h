/* host.h - what this machine lets the process use: CPUs and memory.
 *
 * CPUs: those the process may run on (its affinity mask: `taskset`,
 * cpusets), further bounded by a cgroup CPU quota where one is set (cgroup
 * v2 cpu.max, v1 cpu.cfs_quota_us), rounded up; at least 1.
 * Memory: physical memory, bounded by a cgroup memory limit (v2 memory.max,
 * v1 memory.limit_in_bytes) and by the address-space and data limits
 * (`ulimit -v`, `ulimit -d`) where set. */
#ifndef PS_HOST_H
#define PS_HOST_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

int ps_host_cpus(void);

/* Bytes the process may use; what (if not NULL) names the bound that
 * decided it: "physical memory", "cgroup memory limit", "ulimit -v", ... */
uint64_t ps_host_memory(char *what, size_t what_len);

#ifdef __cplusplus
}
#endif

#endif
