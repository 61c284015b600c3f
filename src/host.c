#include "host.h"

#include <sched.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>


/* Opens file `name` of this process's cgroup for a v1 controller (or v2
 * when controller is NULL): under the cgroup's own path first, then at the
 * mount's root (a container often sees its cgroup there). */
static FILE *cgroup_file(const char *controller, const char *name)
{
    FILE *self = fopen("/proc/self/cgroup", "r");
    if (!self) return NULL;
    char line[4096], path[4200];
    FILE *f = NULL;
    while (!f && fgets(line, sizeof line, self)) {
        line[strcspn(line, "\n")] = '\0';
        char *c1 = strchr(line, ':'), *c2 = c1 ? strchr(c1 + 1, ':') : NULL;
        if (!c2) continue;
        *c2 = '\0';
        const char *ctrls = c1 + 1, *cg = c2 + 1;
        char mount[64];
        if (!controller) {
            if (strcmp(line, "0") != 0 || *ctrls) continue;
            snprintf(mount, sizeof mount, "/sys/fs/cgroup");
        } else {
            /* v1: "4:memory:/path" or "1:cpu,cpuacct:/path" */
            char list[256];
            snprintf(list, sizeof list, ",%s,", ctrls);
            char want[64];
            snprintf(want, sizeof want, ",%s,", controller);
            if (!strstr(list, want)) continue;
            snprintf(mount, sizeof mount, "/sys/fs/cgroup/%s", ctrls);
        }
        snprintf(path, sizeof path, "%s%s/%s", mount, cg, name);
        f = fopen(path, "r");
        if (!f) {
            snprintf(path, sizeof path, "%s/%s", mount, name);
            f = fopen(path, "r");
        }
    }
    fclose(self);
    return f;
}

/* The cgroup's CPU quota in CPUs (rounded up), or 0 when there is none. */
static int cgroup_cpus(void)
{
    long long quota = -1, period = -1;
    FILE *f = cgroup_file(NULL, "cpu.max");
    if (f) {
        char q[32];
        if (fscanf(f, "%31s %lld", q, &period) == 2 && strcmp(q, "max") != 0) sscanf(q, "%lld", &quota);
        fclose(f);
    } else {
        FILE *fq = cgroup_file("cpu", "cpu.cfs_quota_us"), *fp = cgroup_file("cpu", "cpu.cfs_period_us");
        if (fq && fscanf(fq, "%lld", &quota) != 1) quota = -1;
        if (fp && fscanf(fp, "%lld", &period) != 1) period = -1;
        if (fq) fclose(fq);
        if (fp) fclose(fp);
    }
    if (quota <= 0 || period <= 0) return 0;
    return (int)((quota + period - 1) / period);
}

int ps_host_cpus(void)
{
    int n = 0;
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) n = CPU_COUNT(&set);
    if (n <= 0) {
        long c = sysconf(_SC_NPROCESSORS_ONLN);
        n = c > 0 ? (int)c : 1;
    }
    int q = cgroup_cpus();
    if (q > 0 && q < n) n = q;
    return n > 0 ? n : 1;
}

uint64_t ps_host_memory(char *what, size_t what_len)
{
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    uint64_t best = pages > 0 && page > 0 ? (uint64_t)pages * (uint64_t)page : UINT64_MAX;
    const char *why = "physical memory";
    long long lim = -1;
    FILE *f = cgroup_file(NULL, "memory.max"); /* cgroup v2, else v1 */
    if (!f) f = cgroup_file("memory", "memory.limit_in_bytes");
    if (f) {
        if (fscanf(f, "%lld", &lim) != 1) lim = -1; /* "max" */
        fclose(f);
    }
    if (lim > 0 && (uint64_t)lim < best) {
        best = (uint64_t)lim;
        why = "cgroup memory limit";
    }
    static const struct {
        int res;
        const char *name;
    } rl[] = {{RLIMIT_AS, "ulimit -v"}, {RLIMIT_DATA, "ulimit -d"}};
    for (size_t i = 0; i < sizeof rl / sizeof rl[0]; i++) {
        struct rlimit r;
        if (getrlimit(rl[i].res, &r) == 0 && r.rlim_cur != RLIM_INFINITY && (uint64_t)r.rlim_cur < best) {
            best = (uint64_t)r.rlim_cur;
            why = rl[i].name;
        }
    }
    if (what && what_len) snprintf(what, what_len, "%s", why);
    return best;
}
