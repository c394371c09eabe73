/* Bare-metal start for the replay program on a Cortex-M4 (QEMU's mps2-an386): the vector table,
 * a reset handler that sets up .data and .bss and semihosting, and the two things newlib lacks
 * that the Embedded Swift runtime calls. Linked with scripts/firmware/m4/link.ld. */
#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

extern uint32_t _etext, _sdata, _edata, _sbss, _ebss, __stack_top;
extern void initialise_monitor_handles(void);
extern void *memalign(size_t, size_t);
extern int main(int, char **);
/* A program that counts time (m4/bench.c) defines this; otherwise SysTick is never started. */
__attribute__((weak)) void systick_handler(void) {}

void reset(void) {
    /* The M4's single-precision FPU (Swift's armv7em code uses it for Float, softfp), on. */
    *(volatile uint32_t *)0xE000ED88 |= 0xFu << 20;
    __asm__ volatile("dsb\n isb");
    memcpy(&_sdata, &_etext, (size_t)((char *)&_edata - (char *)&_sdata));
    memset(&_sbss, 0, (size_t)((char *)&_ebss - (char *)&_sbss));
    initialise_monitor_handles();
    exit(main(0, NULL));
}

/* A fault stops the program where a debugger would find it; the script's timeout ends QEMU. */
void fault(void) { for (;;) {} }

__attribute__((section(".vectors"), used))
const void *vectors[16] = { &__stack_top, reset, fault, fault, fault, fault, fault, 0, 0, 0, 0, fault, fault, 0, fault, systick_handler };

int posix_memalign(void **p, size_t align, size_t size) {
    void *m = memalign(align < sizeof(void *) ? sizeof(void *) : align, size);
    if (!m) return ENOMEM;
    *p = m;
    return 0;
}

void _init(void) {}
void _fini(void) {}
