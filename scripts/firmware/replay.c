/* A replay program around the core built as Embedded Swift (scripts/firmware/Replay.swift): reads
 * what `jolt replay --samples` prints and prints one line per event, "t event [peak²]" (µs; shake
 * events carry the shake's squared peak, mg²), the tamper detector armed at the first sample if
 * asked, as `jolt replay --arm`.
 *   On Linux: the samples on standard input; --arm arms.
 *   On a Cortex-M under QEMU (JOLT_SEMIHOSTING): the samples in the host's file replay.samples,
 *   armed if replay.arm exists, both read through semihosting; the output on its console. */
#include <string.h>
#include "samples.h"

void jolt_replay_setup(int32_t rate_mhz, bool gyro, int32_t range_mg, bool arm, bool may_alias);
uint32_t jolt_replay_sample(int64_t t, int32_t ax, int32_t ay, int32_t az, int32_t gx, int32_t gy, int32_t gz);
int64_t jolt_replay_shake_peak2(void);

int main(int argc, char **argv) {
#ifdef JOLT_SEMIHOSTING
    (void)argc; (void)argv;
    FILE *in = fopen("replay.samples", "r");
    if (!in) { printf("replay: no replay.samples in the host's folder\n"); return 66; }
    FILE *marker = fopen("replay.arm", "r");
    bool arm = marker != NULL;
    if (marker) fclose(marker);
#else
    FILE *in = stdin;
    bool arm = argc > 1 && strcmp(argv[1], "--arm") == 0;
#endif
    int rate, gyro, range, may_alias;
    if (!jolt_samples_setup(in, &rate, &gyro, &range, &may_alias)) {
        fprintf(stderr, "replay: standard input is not what 'jolt replay --samples' prints\n");
        return 65;
    }
    jolt_replay_setup(rate, gyro != 0, range, arm, may_alias != 0);
    static const char *names[] = {"shake began", "shake ended", "shake cancelled", "flip face_down", "flip face_up", "tamper"};
    long long count = 0;
    int64_t t;
    int32_t v[6];
    while (jolt_samples_next(in, &t, v)) {
        uint32_t e = jolt_replay_sample(t, v[0], v[1], v[2], v[3], v[4], v[5]);
        count++;
        for (int i = 0; i < 6; i++) {
            if (!(e & (1u << i))) continue;
            if (i < 3) printf("%lld %s %lld\n", (long long)t, names[i], (long long)jolt_replay_shake_peak2());
            else printf("%lld %s\n", (long long)t, names[i]);
        }
    }
    if (!feof(in)) {
        fprintf(stderr, "replay: a sample line that is not seven whole numbers, after %lld samples\n", count);
        return 65;
    }
    return 0;
}
