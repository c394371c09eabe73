/* Instructions per sample of a detector set on a Cortex-M4 (QEMU's mps2-an386 with
 * -icount shift=0: one instruction is one nanosecond of the machine's time, and SysTick counts
 * its 25 MHz clock, so a tick is 40 instructions). Reads the workload from the host's file
 * bench.samples (what `jolt-bench --workload` prints) into memory through semihosting, then runs
 * jolt_bench_run (scripts/firmware/Bench.swift or FloatBench.swift) over it between two readings
 * of SysTick, and prints "samples instructions checksum". */
#include <stdlib.h>
#include "../samples.h"

uint32_t jolt_bench_run(const void *samples, int32_t n, int32_t rate_mhz, int32_t range_mg);

#define SYST_CSR (*(volatile uint32_t *)0xE000E010)
#define SYST_RVR (*(volatile uint32_t *)0xE000E014)
#define SYST_CVR (*(volatile uint32_t *)0xE000E018)
static volatile uint32_t wraps;
void systick_handler(void) { wraps++; }
static uint64_t ticks(void) {
    uint32_t w, v;
    do { w = wraps; v = SYST_CVR; } while (w != wraps);
    return (uint64_t)w * 0x1000000u + (0xFFFFFFu - v);
}

struct packed { int64_t t; int32_t a[3], g[3]; };

int main(int argc, char **argv) {
    (void)argc; (void)argv;
    FILE *in = fopen("bench.samples", "r");
    int rate, gyro, range;
    if (!in || !jolt_samples_header(in, &rate, &gyro, &range)) {
        printf("bench: no workload in bench.samples\n");
        return 66;
    }
    int cap = 100000, n = 0;
    struct packed *s = malloc(sizeof *s * (size_t)cap);
    int64_t t;
    int32_t v[6];
    while (n < cap && jolt_samples_next(in, &t, v)) {
        s[n].t = t;
        for (int i = 0; i < 3; i++) { s[n].a[i] = v[i]; s[n].g[i] = v[3 + i]; }
        n++;
    }
    SYST_RVR = 0xFFFFFF;
    SYST_CVR = 0;
    SYST_CSR = 7;   /* enabled, interrupting on wrap, on the processor clock */
    while (SYST_CVR == 0) {}   /* the first reload */
    uint64_t a = ticks();
    uint32_t sum = jolt_bench_run(s, n, rate, range);
    uint64_t b = ticks();
    printf("%d %llu %lu\n", n, (unsigned long long)(b - a) * 40, (unsigned long)sum);
    return 0;
}
