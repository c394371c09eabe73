/* Reading what `jolt replay --samples` (and `jolt-bench --workload`) print: a set-up line, then
 * "t ax ay az gx gy gz" per sample in whole numbers (µs, mg, m°/s). Shared by replay.c and
 * m4/bench.c. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* The set-up line: rate (mHz), gyroscope (0 or 1), full scale (mg), and whether the readings may
 * fold taps into spikes (" may_alias=1" at its end: a trace another tool recorded at 50 Hz or
 * below; absent, 0). */
static inline bool jolt_samples_setup(FILE *in, int *rate_mhz, int *gyro, int *range_mg, int *may_alias) {
    char line[256];
    if (!fgets(line, sizeof line, in)) return false;
    if (sscanf(line, " # jolt samples: rate_mhz=%d gyro=%d range_mg=%d", rate_mhz, gyro, range_mg) != 3) return false;
    *may_alias = strstr(line, " may_alias=1") != NULL;
    return true;
}

static inline bool jolt_samples_header(FILE *in, int *rate_mhz, int *gyro, int *range_mg) {
    int may_alias;
    return jolt_samples_setup(in, rate_mhz, gyro, range_mg, &may_alias);
}

/* The next sample; false at the end or at a line that is not seven whole numbers. */
static inline bool jolt_samples_next(FILE *in, int64_t *t, int32_t v[6]) {
    long long tt;
    long x[6];   /* long: at least 32 bits everywhere */
    if (fscanf(in, " %lld %ld %ld %ld %ld %ld %ld", &tt, &x[0], &x[1], &x[2], &x[3], &x[4], &x[5]) != 7) return false;
    *t = tt;
    for (int i = 0; i < 6; i++) v[i] = (int32_t)x[i];
    return true;
}
