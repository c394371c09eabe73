/*
 * The system test's MPU6050 (jolt-feeder.service): i2c-stub keeps the registers; this plays the
 * chip's side, through i2c-dev's SMBus ioctl. Every 10 ms it answers DEVICE_RESET (clears the
 * bit, as the reset finishing does, where a real chip takes 100 ms); every 100 ms it writes the
 * data registers from the pose asked in /run/jolt-feeder/pose:
 *   rest   face up, still (the lowest bit of x changes on every row, as a real chip's noise does)
 *   theft  lifted 0.1 g for three rows, then turned about x at 60 °/s to 30°, and held there
 * Its accelerometer self-test is a chip's too: SELF_TEST_X … _A hold a factory trim of A_TEST 16
 * (559 mg), and while ACCEL_CONFIG's XA/YA/ZA_ST bits are set the data read that much more on
 * their axes; the data follow ACCEL_CONFIG's range, rewritten within a tick of it changing.
 * /run/jolt-feeder/at says where it is: the angle step, 0 (flat) to 5 (30°); /run/jolt-feeder/rows
 * counts the rows written. The bus is /dev/i2c-0, or the first argument (the image test's stub is
 * on a Pi's fourth bus or later). Built static for the guest's architecture by Tests/System/run: a shell
 * loop starting i2cget and i2cset for every row answered the reset only between its rows, which
 * an emulated CPU under load slowed past the driver's one-second wait.
 */
#include <fcntl.h>
#include "smbus.h"
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>

static void put(const char *path, int value) {
    FILE *f = fopen(path, "w");
    if (f) { fprintf(f, "%d\n", value); fclose(f); }
}

static int theft(void) {
    char pose[16] = "";
    FILE *f = fopen("/run/jolt-feeder/pose", "r");
    if (f) { if (!fgets(pose, sizeof pose, f)) pose[0] = 0; fclose(f); }
    return strncmp(pose, "theft", 5) == 0;
}

/* The row `v` (accelerometer counts at ±4 g, then the gyroscope's) as the registers hold it for
 * ACCEL_CONFIG `cfg`: its range, and the self-test's pull on the axes whose bits are set. */
static void write_row(const int *v, int cfg) {
    int cpg = 16384 >> ((cfg >> 3) & 3), out[7];
    unsigned char bytes[14];
    for (int i = 0; i < 7; i++) out[i] = i < 3 ? v[i] * cpg / 8192 : v[i];
    for (int i = 0; i < 3; i++) if (cfg & (0x80 >> i)) out[i] += 559 * cpg / 1000;
    /* ACCEL_XOUT_H … GYRO_ZOUT_L, big-endian (the temperature reads 0) */
    for (int i = 0; i < 7; i++) {
        bytes[2 * i] = (unsigned char)((out[i] >> 8) & 0xFF);
        bytes[2 * i + 1] = (unsigned char)(out[i] & 0xFF);
    }
    write_block(0x3B, bytes, 14);
}

int main(int argc, char **argv) {
    /* At ±4 g (8192 counts per g), 0° to 30° about x in 6° steps: y = 8192 sin, z = 8192 cos. */
    static const int ys[] = {0, 856, 1703, 2531, 3332, 4096}, zs[] = {8192, 8147, 8013, 7791, 7484, 7094};
    int at = 0, lift = 0, row = 0, v[7] = {0, 0, 8192, 0, 0, 0, 0}, written_cfg = -1;
    const char *path = argc > 1 ? argv[1] : "/dev/i2c-0";
    bus = open(path, O_RDWR);
    if (bus < 0 || ioctl(bus, I2C_SLAVE, 0x68) < 0) { fprintf(stderr, "feeder: %s, 0x68: ", path); perror(""); return 1; }
    write_byte(0x75, 0x68);   /* WHO_AM_I */
    write_byte(0x6B, 0x40);   /* PWR_MGMT_1 after power-on: asleep */
    for (unsigned char r = 0x0D; r <= 0x0F; r++) write_byte(r, 0x80);   /* XA/YA/ZA_TEST [4:2] = 100 */
    write_byte(0x10, 0x00);   /* … [1:0] = 00: A_TEST 16 */
    put("/run/jolt-feeder/at", 0);
    FILE *p = fopen("/run/jolt-feeder/pose", "w");
    if (p) { fputs("rest\n", p); fclose(p); }
    for (int tick = 0;; tick++) {
        int pm = read_byte(0x6B);
        if (pm >= 0 && (pm & 0x80)) write_byte(0x6B, 0x40);   /* the reset is over: asleep again */
        int cfg = read_byte(0x1C);
        if (tick % 10 == 0) {
            int gx = 0, z, stolen = theft();
            if (stolen) {
                if (at == 0 && lift < 3) lift++;
                else if (at < 5) { at++; gx = 3930; }
            } else {
                lift = 0;
                if (at > 0) { at--; gx = -3930; }
            }
            z = (lift > 0 && at == 0 && stolen) ? 9011 : zs[at];
            row++;
            v[0] = (row % 2) * 8; v[1] = ys[at]; v[2] = z; v[3] = 0; v[4] = gx; v[5] = 0; v[6] = 0;
            write_row(v, cfg < 0 ? 0x08 : cfg);
            written_cfg = cfg;
            put("/run/jolt-feeder/at", at);
            put("/run/jolt-feeder/rows", row);
        } else if (cfg >= 0 && cfg != written_cfg) {
            write_row(v, cfg);   /* a new range, or the self-test's force on or off */
            written_cfg = cfg;
        }
        struct timespec ten = {0, 10 * 1000 * 1000};
        nanosleep(&ten, NULL);
    }
}
