/* A Linux replay program around the core built as Embedded Swift (scripts/firmware/Replay.swift):
 * reads what `jolt replay --samples` prints on standard input and prints one line per event,
 * "t event [peak²]" (µs; shake events carry the shake's squared peak, mg²). With --arm, the
 * tamper detector is armed at the first sample, as `jolt replay --arm`. */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

void jolt_replay_setup(int32_t rate_mhz, bool gyro, int32_t range_mg, bool arm);
uint32_t jolt_replay_sample(int64_t t, int32_t ax, int32_t ay, int32_t az, int32_t gx, int32_t gy, int32_t gz);
int64_t jolt_replay_shake_peak2(void);

int main(int argc, char **argv) {
    bool arm = argc > 1 && strcmp(argv[1], "--arm") == 0;
    int rate, gyro, range;
    if (scanf(" # jolt samples: rate_mhz=%d gyro=%d range_mg=%d", &rate, &gyro, &range) != 3) {
        fprintf(stderr, "replay: standard input is not what 'jolt replay --samples' prints\n");
        return 65;
    }
    jolt_replay_setup(rate, gyro != 0, range, arm);
    static const char *names[] = {"shake began", "shake ended", "shake cancelled", "flip face_down", "flip face_up", "tamper"};
    long long t, count = 0;
    int ax, ay, az, gx, gy, gz;
    while (scanf(" %lld %d %d %d %d %d %d", &t, &ax, &ay, &az, &gx, &gy, &gz) == 7) {
        uint32_t e = jolt_replay_sample(t, ax, ay, az, gx, gy, gz);
        count++;
        for (int i = 0; i < 6; i++) {
            if (!(e & (1u << i))) continue;
            if (i < 3) printf("%lld %s %lld\n", t, names[i], (long long)jolt_replay_shake_peak2());
            else printf("%lld %s\n", t, names[i]);
        }
    }
    if (!feof(stdin)) {
        fprintf(stderr, "replay: a sample line that is not seven whole numbers, after %lld samples\n", count);
        return 65;
    }
    return 0;
}
