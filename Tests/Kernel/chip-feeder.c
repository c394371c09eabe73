/*
 * The kernel test's chip, with its INT pin: i2c-stub keeps the registers, and this plays the
 * chip's side through i2c-dev, a reading every period on the monotonic clock, and drives the
 * chip's INT pin on jolt_gpio_sim as the chip would for what Jolt set it up to raise:
 *
 *   mpu6050 (0x68)  ACCEL_XOUT_H … at the range ACCEL_CONFIG says; answers DEVICE_RESET. INT_STATUS
 *                   gets DATA_RDY_INT each reading, and MOT_INT when the reading, high-passed by
 *                   ACCEL_HPF (first order), passes MOT_THR (2 mg a count) on an axis; INT pulses
 *                   when one of them is enabled in INT_ENABLE.
 *   adxl345 (0x53)  DATAX0 … at full resolution. INT_SOURCE gets DATA_READY each reading, and
 *                   Activity when the reading passes THRESH_ACT (62.5 mg a count) from the
 *                   ac-coupled reference; linked (POWER_CTL's Link), activity then waits for
 *                   TIME_INACT within THRESH_INACT, which takes a new reference. INT1 pulses for an
 *                   enabled one mapped to it.
 *
 * It plays LIFTS lifts (the first after 2 s more at rest, while Jolt starts): 1.5 s at rest, then the lift (pushed up at 0.3 g for 150 ms, carried,
 * braked), then at rest until the buzzer's line (GPIO17) is active or 3 s pass; then it has the
 * alarm disarmed and armed again (jolt disarm and jolt arm on the control socket SOCKET, in a child, while it goes on feeding).
 * Just before the first moving reading it writes "jolt-lift K" to the kernel's trace_marker, so
 * that the kernel's trace holds that instant and the buzzer line's edges (gpio_value) on one
 * clock. The first lift's readings are written to TRACE as a jolt-trace, for `jolt replay --arm`
 * to give the detector's own latency.
 *
 *   chip-feeder CHIP RATE_HZ LIFTS SOCKET INT_LINE TRACE
 */
#include <fcntl.h>
#include "smbus.h"
#include <linux/i2c-dev.h>
#include <linux/i2c.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static int mpu;
static long period_ns;

/* A register's byte, 0 when the transfer fails. */
static int rd(unsigned char reg) {
    int v = read_byte(reg);
    return v < 0 ? 0 : v;
}

static void wr(unsigned char reg, unsigned char value) { write_byte(reg, value); }

static void put(const char *path, const char *text) {
    int f = open(path, O_WRONLY);
    if (f >= 0) { (void)!write(f, text, strlen(text)); close(f); }
}

static int buzzer_on(void) {
    char levels[40] = "";
    int f = open("/sys/module/jolt_gpio_sim/parameters/levels", O_RDONLY);
    if (f < 0) return 0;
    int n = (int)read(f, levels, sizeof levels - 1);
    close(f);
    return n > 17 && levels[17] == '1';
}

/* The chip's motion detector: the reading's high-passed value (mg × 1024), or its reference. */
static long base[3];
static int have_base, awaiting_inactivity, quiet;
static char int_line[8];

/* One reading, mg: the data registers, the interrupt status, and the INT pin. */
static void reading(const int *mg, int row) {
    unsigned char b[14];
    int status = 0, enabled, pulse = 0;
    if (mpu) {
        int pm = rd(0x6B);
        if (pm & 0x80) wr(0x6B, 0x40);   /* DEVICE_RESET done */
        int cfg = rd(0x1C), cpg = 16384 >> ((cfg >> 3) & 3), hpf = cfg & 7;
        for (int i = 0; i < 3; i++) {
            int c = mg[i] * cpg / 1000 + (i == 0 ? (row % 2) * 16 : 0);   /* x moves 2 mg: a chip's noise */
            b[2 * i] = (unsigned char)((c >> 8) & 0xFF);
            b[2 * i + 1] = (unsigned char)(c & 0xFF);
        }
        memset(b + 6, 0, 8);   /* temperature, gyroscope */
        write_block(0x3B, b, 14);
        status = 0x01;   /* DATA_RDY_INT */
        static const long cutoff_mhz[8] = {0, 5000, 2500, 1250, 630, 0, 0, 0};
        if (hpf != 0) {
            long limit = (long)rd(0x1F) * 2 * 1024, k = 0;
            if (cutoff_mhz[hpf]) { long tau = 159155000L / cutoff_mhz[hpf], p = period_ns / 1000; k = (p << 16) / (tau + p); }
            int moved = 0;
            for (int i = 0; i < 3; i++) {
                long x = (long)mg[i] * 1024;
                if (!have_base) base[i] = x;
                if (labs(x - base[i]) > limit) moved = 1;
                base[i] += ((x - base[i]) * k) >> 16;
            }
            have_base = 1;
            if (moved) status |= 0x40;   /* MOT_INT */
        } else {
            have_base = 0;
        }
        wr(0x3A, (unsigned char)status);
        enabled = rd(0x38);
        pulse = (status & enabled) != 0;
    } else {
        for (int i = 0; i < 3; i++) {
            int c = mg[i] * 256 / 1000 + (i == 0 ? row % 2 : 0);
            b[2 * i] = (unsigned char)(c & 0xFF);
            b[2 * i + 1] = (unsigned char)((c >> 8) & 0xFF);
        }
        write_block(0x32, b, 6);
        status = 0x80;   /* DATA_READY */
        int ctl = rd(0x27), linked = rd(0x2D) & 0x20;
        if (ctl & 0x70) {
            long act = (long)rd(0x24) * 625 / 10, inact = (long)rd(0x25) * 625 / 10;
            int past = 0;
            if (!have_base) { for (int i = 0; i < 3; i++) base[i] = mg[i]; have_base = 1; }
            for (int i = 0; i < 3; i++) if (labs(mg[i] - base[i]) > (awaiting_inactivity ? inact : act)) past = 1;
            if (awaiting_inactivity && linked) {
                if (past) { for (int i = 0; i < 3; i++) base[i] = mg[i]; quiet = 0; } else quiet++;
                if (quiet >= rd(0x26) * (int)(1000000000L / period_ns)) {
                    awaiting_inactivity = 0;
                    for (int i = 0; i < 3; i++) base[i] = mg[i];
                }
            } else if (past) {
                status |= 0x10;   /* Activity */
                if (linked) { awaiting_inactivity = 1; quiet = 0; for (int i = 0; i < 3; i++) base[i] = mg[i]; }
            }
        }
        wr(0x30, (unsigned char)status);
        enabled = rd(0x2E) & ~rd(0x2F);
        pulse = (status & enabled) != 0;
    }
    if (pulse && int_line[0]) put("/sys/module/jolt_gpio_sim/parameters/pulse", int_line);
}

static struct timespec next;

static void tick(void) {
    next.tv_nsec += period_ns;
    while (next.tv_nsec >= 1000000000L) { next.tv_nsec -= 1000000000L; next.tv_sec++; }
    clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
}

/* The lift's vertical acceleration at reading r of it, mg: pushed up, carried, braked, held. */
static int lift_z(int r, int rate) {
    int ms = r * 1000 / rate;
    if (ms < 150) return 1300;
    if (ms < 450) return 1000 + (ms % 40 < 20 ? 40 : -40);   /* carried: a hand's tremor */
    if (ms < 600) return 700;
    return 1000;
}

int main(int argc, char **argv) {
    if (argc != 7) { fprintf(stderr, "usage: chip-feeder CHIP RATE_HZ LIFTS SOCKET INT_LINE TRACE\n"); return 64; }
    mpu = strcmp(argv[1], "mpu6050") == 0;
    int rate = atoi(argv[2]), lifts = atoi(argv[3]);
    const char *socket = argv[4];
    if (atoi(argv[5]) >= 0) snprintf(int_line, sizeof int_line, "%d", atoi(argv[5]));
    FILE *trace = fopen(argv[6], "w");
    period_ns = 1000000000L / rate;
    bus = open("/dev/i2c-0", O_RDWR);
    if (bus < 0 || ioctl(bus, I2C_SLAVE, mpu ? 0x68 : 0x53) < 0) { perror("chip-feeder: /dev/i2c-0"); return 1; }
    const char *gyro = mpu ? ",0,0,0" : "";
    if (trace) fprintf(trace, "# jolt-trace v1\n# rate_hz: %d\nt,ax,ay,az%s\n", rate, mpu ? ",gx,gy,gz" : "");
    clock_gettime(CLOCK_MONOTONIC, &next);
    int row = 0, rest[3] = {0, 0, 1000};
    for (int k = 1; k <= lifts; k++) {
        /* At rest: 1.5 s before each lift, and 2 s more before the first (Jolt starting). */
        int before = rate * 3 / 2, settle = k == 1 ? rate * 2 : 0;
        for (int r = -settle; r < before; r++, row++) {
            reading(rest, row);
            if (k == 1 && trace && r >= 0) fprintf(trace, "%.4f,0.000,0.000,1.000%s\n", (double)r / rate, gyro);
            tick();
        }
        char mark[32];
        snprintf(mark, sizeof mark, "jolt-lift %d\n", k);
        put("/sys/kernel/tracing/trace_marker", mark);
        for (int r = 0; r < rate; r++, row++) {
            int a[3] = {0, 0, lift_z(r, rate)};
            reading(a, row);
            if (k == 1 && trace) fprintf(trace, "%.4f,0.000,0.000,%.3f%s\n", 1.5 + (double)r / rate, a[2] / 1000.0, gyro);
            tick();
        }
        if (k == 1 && trace) { fclose(trace); trace = NULL; }
        for (int r = 0; r < rate * 3 && !buzzer_on(); r++, row++) { reading(rest, row); tick(); }
        /* Disarm and arm again from a child, feeding on meanwhile (a silent chip is a fault). */
        char cmd[512];
        snprintf(cmd, sizeof cmd, "jolt disarm --socket %s >>/tmp/feeder-arm.log 2>&1; jolt arm --socket %s >>/tmp/feeder-arm.log 2>&1", socket, socket);
        pid_t child = fork();
        if (child == 0) { execl("/bin/sh", "sh", "-c", cmd, (char *)NULL); _exit(127); }
        while (waitpid(child, NULL, WNOHANG) == 0) { reading(rest, row++); tick(); }
    }
    for (int r = 0; r < rate / 2; r++, row++) { reading(rest, row); tick(); }
    return 0;
}
