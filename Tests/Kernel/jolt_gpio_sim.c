// SPDX-License-Identifier: GPL-2.0
/*
 * A simulated GPIO chip for Jolt's kernel-in-the-loop test: 28 lines named GPIO0..GPIO27 as on a
 * Raspberry Pi's header, registered with gpiolib, so that the real GPIO character device
 * (/dev/gpiochipN, uAPI v2) serves them. Debian's kernels enable neither gpio-sim nor
 * gpio-mockup; this is the least that stands in for them.
 *
 * /sys/module/jolt_gpio_sim/parameters/levels reads each line's level as a string of 0 and 1
 * (line 0 first): what a program drives on an output, or what was written there for an input.
 * Writing the same kind of string sets the levels inputs read.
 *
 * The lines are interrupt sources too (gpiolib's irqchip), so that the character device's edge
 * events work: an input's change written to `levels` raises its interrupt on the edges asked for,
 * and writing a line's number to /sys/module/jolt_gpio_sim/parameters/pulse gives that input a
 * short high pulse (a rise, then a fall), as a chip's INT pin does (the MPU6050's 50 µs pulse).
 */
#include <linux/bitmap.h>
#include <linux/gpio/driver.h>
#include <linux/interrupt.h>
#include <linux/irq.h>
#include <linux/module.h>
#include <linux/moduleparam.h>

#define JOLT_LINES 28

static const char *const jolt_names[JOLT_LINES] = {
	"GPIO0", "GPIO1", "GPIO2", "GPIO3", "GPIO4", "GPIO5", "GPIO6", "GPIO7",
	"GPIO8", "GPIO9", "GPIO10", "GPIO11", "GPIO12", "GPIO13", "GPIO14", "GPIO15",
	"GPIO16", "GPIO17", "GPIO18", "GPIO19", "GPIO20", "GPIO21", "GPIO22", "GPIO23",
	"GPIO24", "GPIO25", "GPIO26", "GPIO27",
};

static DECLARE_BITMAP(jolt_levels, JOLT_LINES);
static DECLARE_BITMAP(jolt_outputs, JOLT_LINES);
/* Per line: whether its interrupt is unmasked, and the edges it is to be raised on. */
static DECLARE_BITMAP(jolt_unmasked, JOLT_LINES);
static unsigned int jolt_trigger[JOLT_LINES];

static int jolt_get(struct gpio_chip *gc, unsigned int offset)
{
	return test_bit(offset, jolt_levels);
}

static void jolt_set(struct gpio_chip *gc, unsigned int offset, int value)
{
	assign_bit(offset, jolt_levels, value);
}

static int jolt_direction_input(struct gpio_chip *gc, unsigned int offset)
{
	clear_bit(offset, jolt_outputs);
	return 0;
}

static int jolt_direction_output(struct gpio_chip *gc, unsigned int offset, int value)
{
	assign_bit(offset, jolt_levels, value);
	set_bit(offset, jolt_outputs);
	return 0;
}

static int jolt_get_direction(struct gpio_chip *gc, unsigned int offset)
{
	return test_bit(offset, jolt_outputs) ? GPIO_LINE_DIRECTION_OUT : GPIO_LINE_DIRECTION_IN;
}

/* Pull-ups and the like: accepted, as on a Pi. */
static int jolt_set_config(struct gpio_chip *gc, unsigned int offset, unsigned long config)
{
	return 0;
}

static struct gpio_chip jolt_chip;

static void jolt_irq_mask(struct irq_data *d)
{
	irq_hw_number_t hwirq = irqd_to_hwirq(d);

	clear_bit(hwirq, jolt_unmasked);
	gpiochip_disable_irq(&jolt_chip, hwirq);
}

static void jolt_irq_unmask(struct irq_data *d)
{
	irq_hw_number_t hwirq = irqd_to_hwirq(d);

	gpiochip_enable_irq(&jolt_chip, hwirq);
	set_bit(hwirq, jolt_unmasked);
}

static int jolt_irq_set_type(struct irq_data *d, unsigned int type)
{
	if (type & ~IRQ_TYPE_EDGE_BOTH)
		return -EINVAL;
	jolt_trigger[irqd_to_hwirq(d)] = type;
	return 0;
}

static const struct irq_chip jolt_irq_chip = {
	.name = "jolt-gpio-sim",
	.irq_mask = jolt_irq_mask,
	.irq_unmask = jolt_irq_unmask,
	.irq_set_type = jolt_irq_set_type,
	.flags = IRQCHIP_IMMUTABLE,
	GPIOCHIP_IRQ_RESOURCE_HELPERS,
};

/* An input's level changes: its interrupt, when unmasked and the edge is one asked for. */
static void jolt_input_to(unsigned int i, bool high)
{
	bool was = test_bit(i, jolt_levels);

	if (test_bit(i, jolt_outputs) || was == high)
		return;
	assign_bit(i, jolt_levels, high);
	if (test_bit(i, jolt_unmasked) && (jolt_trigger[i] & (high ? IRQ_TYPE_EDGE_RISING : IRQ_TYPE_EDGE_FALLING)))
		generic_handle_domain_irq_safe(jolt_chip.irq.domain, i);
}

static struct gpio_chip jolt_chip = {
	.label = "jolt-gpio-sim",
	.owner = THIS_MODULE,
	.base = -1,
	.ngpio = JOLT_LINES,
	.names = jolt_names,
	.get = jolt_get,
	.set = jolt_set,
	.direction_input = jolt_direction_input,
	.direction_output = jolt_direction_output,
	.get_direction = jolt_get_direction,
	.set_config = jolt_set_config,
	.can_sleep = false,
};

static int jolt_levels_get(char *buf, const struct kernel_param *kp)
{
	int i;

	for (i = 0; i < JOLT_LINES; i++)
		buf[i] = test_bit(i, jolt_levels) ? '1' : '0';
	buf[JOLT_LINES] = '\n';
	return JOLT_LINES + 1;
}

static int jolt_levels_set(const char *val, const struct kernel_param *kp)
{
	int i;

	for (i = 0; i < JOLT_LINES && val[i] && val[i] != '\n'; i++) {
		if (val[i] != '0' && val[i] != '1')
			return -EINVAL;
	}
	/* Outputs belong to whoever drives them. */
	for (i = 0; i < JOLT_LINES && val[i] && val[i] != '\n'; i++)
		jolt_input_to(i, val[i] == '1');
	return 0;
}

static const struct kernel_param_ops jolt_levels_ops = {
	.get = jolt_levels_get,
	.set = jolt_levels_set,
};
module_param_cb(levels, &jolt_levels_ops, NULL, 0644);
MODULE_PARM_DESC(levels, "each line's level, line 0 first: read outputs, write inputs");

static int jolt_pulse_set(const char *val, const struct kernel_param *kp)
{
	unsigned int i;
	int err = kstrtouint(val, 10, &i);

	if (err)
		return err;
	if (i >= JOLT_LINES || test_bit(i, jolt_outputs))
		return -EINVAL;
	jolt_input_to(i, true);
	jolt_input_to(i, false);
	return 0;
}

static const struct kernel_param_ops jolt_pulse_ops = {
	.set = jolt_pulse_set,
};
module_param_cb(pulse, &jolt_pulse_ops, NULL, 0200);
MODULE_PARM_DESC(pulse, "write an input's number: a high pulse on it (a rise, then a fall)");

static int __init jolt_gpio_sim_init(void)
{
	struct gpio_irq_chip *girq = &jolt_chip.irq;

	gpio_irq_chip_set_chip(girq, &jolt_irq_chip);
	girq->handler = handle_simple_irq;
	girq->default_type = IRQ_TYPE_NONE;
	return gpiochip_add_data(&jolt_chip, NULL);
}

static void __exit jolt_gpio_sim_exit(void)
{
	gpiochip_remove(&jolt_chip);
}

module_init(jolt_gpio_sim_init);
module_exit(jolt_gpio_sim_exit);
MODULE_DESCRIPTION("A simulated 28-line GPIO chip named like a Raspberry Pi's header, for Jolt's tests");
MODULE_LICENSE("GPL");
