// SPDX-License-Identifier: MIT
/* The 8259 PICs, the local APIC's interrupt delivery, the IOAPICs. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "boot/boot.h"
#include "drivers/intc.h"
#include "drivers/lapic.h"
#include "base/cpu.h"
#include "base/platform.h"

/* 8259: command and data ports of the master and the slave. */
#define PIC1_CMD		  0x20
#define PIC1_DATA		  0x21
#define PIC2_CMD		  0xa0
#define PIC2_DATA		  0xa1
#define ICW1_INIT		  0x11 /* edge, cascade, ICW4 follows */
#define ICW3_MASTER_SLAVE_ON_IRQ2 0x04
#define ICW3_SLAVE_ID		  0x02
#define ICW4_8086		  0x01
#define PIC_MASK_ALL		  0xff

/* IOAPIC: an index register and a data window, 32-bit each. */
#define IOAPIC_REGSEL	    0x00
#define IOAPIC_WINDOW	    0x10
#define IOAPIC_REG_VERSION  0x01
#define IOAPIC_REG_REDIR(n) (0x10 + 2 * (n))
#define IOAPIC_MAX_REDIR(v) (((v) >> 16) & 0xff)
#define REDIR_ACTIVE_LOW    (1u << 13)
#define REDIR_LEVEL	    (1u << 15)
#define REDIR_MASKED	    (1u << 16)
#define REDIR_DEST_SHIFT    24 /* in the high half */

/* lapic_init() with no MADT address: take it from IA32_APIC_BASE. */
#define LAPIC_BASE_FROM_MSR 0

/* What reads back from an address where nothing answers. */
#define NO_ANSWER_ZEROS 0x00000000u
#define NO_ANSWER_ONES	0xffffffffu

struct ioapic {
	volatile uint32_t *regs;
	uint8_t id;
	uint32_t address;
	uint32_t gsi_base;
	unsigned int pins;
};

/* An IOAPIC the MADT lists that cannot be used: where, and why. */
struct ioapic_unusable {
	uint8_t id;
	uint32_t address;
	uint32_t gsi_base;
	char why[96];
};

static struct acpi_madt_interrupts madt_irqs;
static struct ioapic ioapics[ACPI_MAX_IOAPICS];
static unsigned int nr_ioapics;
static struct ioapic_unusable unusable[ACPI_MAX_IOAPICS];
static unsigned int nr_unusable;
static bool done;
static int lapic_result;
static char lapic_problem[160], ioapic_problem[160];
static uint32_t cpu0_apic_id;

static void pic_disable(void)
{
	/* Re-initialise both (so that their vectors leave the exceptions'
	 * range), then mask every input. */
	platform_ports_allow(PIC1_CMD, 2);
	platform_ports_allow(PIC2_CMD, 2);
	outb(PIC1_CMD, ICW1_INIT);
	outb(PIC2_CMD, ICW1_INIT);
	outb(PIC1_DATA, IRQ_PIC_BASE);
	outb(PIC2_DATA, IRQ_PIC_BASE + 8);
	outb(PIC1_DATA, ICW3_MASTER_SLAVE_ON_IRQ2);
	outb(PIC2_DATA, ICW3_SLAVE_ID);
	outb(PIC1_DATA, ICW4_8086);
	outb(PIC2_DATA, ICW4_8086);
	outb(PIC1_DATA, PIC_MASK_ALL);
	outb(PIC2_DATA, PIC_MASK_ALL);
}

static uint32_t ioapic_read(const struct ioapic *io, uint32_t reg)
{
	io->regs[IOAPIC_REGSEL / 4] = reg;
	return io->regs[IOAPIC_WINDOW / 4];
}

static void ioapic_write(const struct ioapic *io, uint32_t reg, uint32_t val)
{
	io->regs[IOAPIC_REGSEL / 4] = reg;
	io->regs[IOAPIC_WINDOW / 4] = val;
}

/* Note MADT entry @a as unusable, saying why (formatted). */
static void ioapic_refuse(const struct acpi_ioapic *a, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

static void ioapic_refuse(const struct acpi_ioapic *a, const char *fmt, ...)
{
	struct ioapic_unusable *u = &unusable[nr_unusable++];
	va_list ap;

	*u = (struct ioapic_unusable){ .id = a->id,
				       .address = a->address,
				       .gsi_base = a->gsi_base };
	va_start(ap, fmt);
	vsnprintf(u->why, sizeof(u->why), fmt, ap);
	va_end(ap);
	snprintf(ioapic_problem, sizeof(ioapic_problem), "IOAPIC %u at %#x %s",
		 u->id, u->address, u->why);
}

static void ioapics_init(struct acpi *acpi)
{
	const struct acpi_header *madt;
	unsigned int i, pin;
	char why[120];
	size_t len;

	madt = acpi ? acpi_find(acpi, "APIC", 0, &len) : NULL;
	if (!madt) {
		snprintf(ioapic_problem, sizeof(ioapic_problem),
			 "no ACPI MADT lists an IOAPIC");
		return;
	}
	if (acpi_madt_interrupts(madt, len, &madt_irqs, why, sizeof(why))) {
		snprintf(ioapic_problem, sizeof(ioapic_problem), "MADT: %s",
			 why);
		return;
	}
	for (i = 0; i < madt_irqs.nr_ioapics && i < ACPI_MAX_IOAPICS; i++) {
		const struct acpi_ioapic *a = &madt_irqs.ioapics[i];
		struct ioapic *io = &ioapics[nr_ioapics];
		uint32_t version;

		/* Identity-mapped and uncached only in the top 32 MiB. */
		if (a->address < 0xfe000000u) {
			ioapic_refuse(a, "lies outside the uncached device "
					 "window");
			continue;
		}
		io->regs = (volatile uint32_t *)(uintptr_t)a->address;
		io->id = a->id;
		io->address = a->address;
		io->gsi_base = a->gsi_base;
		/* An IOAPIC's version is 0x1X or 0x2X: all zeros or all
		 * ones is what an address with nothing behind it reads. */
		version = ioapic_read(io, IOAPIC_REG_VERSION);
		if (version == NO_ANSWER_ZEROS || version == NO_ANSWER_ONES) {
			ioapic_refuse(a,
				      "did not answer: its version register "
				      "read 0x%08x",
				      version);
			continue;
		}
		io->pins = IOAPIC_MAX_REDIR(version) + 1;
		for (pin = 0; pin < io->pins; pin++)
			ioapic_write(io, IOAPIC_REG_REDIR(pin), REDIR_MASKED);
		nr_ioapics++;
	}
	if (!nr_ioapics && !ioapic_problem[0])
		snprintf(ioapic_problem, sizeof(ioapic_problem),
			 "the MADT lists no IOAPIC");
}

int intc_init(struct acpi *acpi, char *why, size_t whylen)
{
	const char *owner = platform_interrupt_controllers_owner();

	if (owner) {
		snprintf(why, whylen, "%s", owner);
		return -1;
	}
	if (!done) {
		done = true;
		/* The PICs first: with interrupts on, the PIT's IRQ 0 would
		 * otherwise arrive as vector 8, a double fault. */
		pic_disable();
		lapic_result = 0;
		if (!lapic_ready() &&
		    lapic_init(LAPIC_BASE_FROM_MSR, lapic_problem,
			       sizeof(lapic_problem)))
			lapic_result = -1;
		if (!lapic_result) {
			cpu0_apic_id = lapic_id();
			lapic_accept_interrupts(SPURIOUS_VECTOR);
		}
		ioapics_init(acpi);
	}
	if (lapic_result)
		snprintf(why, whylen, "%s", lapic_problem);
	return lapic_result;
}

bool intc_ioapic_ready(char *why, size_t whylen)
{
	if (!done || lapic_result) {
		snprintf(why, whylen, "the local APIC cannot take interrupts");
		return false;
	}
	if (!nr_ioapics)
		snprintf(why, whylen, "%s", ioapic_problem);
	return nr_ioapics > 0;
}

void intc_isa_route(unsigned int irq, struct acpi_isa_route *out)
{
	acpi_isa_irq_route(&madt_irqs, irq, out);
}

static const struct ioapic *ioapic_for(uint32_t gsi, unsigned int *pin)
{
	unsigned int i;

	for (i = 0; i < nr_ioapics; i++)
		if (gsi >= ioapics[i].gsi_base &&
		    gsi - ioapics[i].gsi_base < ioapics[i].pins) {
			*pin = gsi - ioapics[i].gsi_base;
			return &ioapics[i];
		}
	return NULL;
}

/* The unusable IOAPIC whose inputs would hold @gsi, if one would: the
 * nearest below it, unless an IOAPIC in use starts nearer. */
static const struct ioapic_unusable *unusable_for(uint32_t gsi)
{
	const struct ioapic_unusable *best = NULL;
	unsigned int i;

	for (i = 0; i < nr_unusable; i++)
		if (unusable[i].gsi_base <= gsi &&
		    (!best || unusable[i].gsi_base > best->gsi_base))
			best = &unusable[i];
	for (i = 0; best && i < nr_ioapics; i++)
		if (ioapics[i].gsi_base <= gsi &&
		    ioapics[i].gsi_base > best->gsi_base)
			return NULL;
	return best;
}

int intc_gsi_check(uint32_t gsi, char *why, size_t whylen)
{
	const struct ioapic_unusable *u;
	unsigned int pin;

	if (ioapic_for(gsi, &pin))
		return 0;
	u = unusable_for(gsi);
	if (u)
		snprintf(why, whylen,
			 "GSI %u is an input of IOAPIC %u at %#x (GSIs from "
			 "%u), which %s",
			 gsi, u->id, u->address, u->gsi_base, u->why);
	else if (nr_ioapics == 1)
		snprintf(why, whylen,
			 "no IOAPIC has an input for GSI %u (IOAPIC %u at %#x "
			 "has GSIs %u-%u)",
			 gsi, ioapics[0].id, ioapics[0].address,
			 ioapics[0].gsi_base,
			 ioapics[0].gsi_base + ioapics[0].pins - 1);
	else if (nr_ioapics)
		snprintf(
			why, whylen,
			"none of the %u IOAPICs in use has an input for GSI %u",
			nr_ioapics, gsi);
	else
		snprintf(why, whylen, "no IOAPIC has an input for GSI %u", gsi);
	return -1;
}

int intc_route_gsi(uint32_t gsi, bool level, bool active_low, uint8_t vector,
		   char *why, size_t whylen)
{
	unsigned int pin;
	const struct ioapic *io = ioapic_for(gsi, &pin);

	if (!io)
		return intc_gsi_check(gsi, why, whylen);
	ioapic_write(io, IOAPIC_REG_REDIR(pin) + 1,
		     cpu0_apic_id << REDIR_DEST_SHIFT);
	ioapic_write(io, IOAPIC_REG_REDIR(pin),
		     vector | (level ? REDIR_LEVEL : 0) |
			     (active_low ? REDIR_ACTIVE_LOW : 0));
	return 0;
}

void intc_mask_gsi(uint32_t gsi)
{
	unsigned int pin;
	const struct ioapic *io = ioapic_for(gsi, &pin);

	if (io)
		ioapic_write(io, IOAPIC_REG_REDIR(pin), REDIR_MASKED);
}

void intc_eoi_config(struct tick_irq_config *c)
{
	bool is_msr;

	c->eoi_target = lapic_eoi_register(&is_msr);
	c->eoi = is_msr ? TICK_EOI_MSR : TICK_EOI_MMIO32;
}

uint32_t intc_cpu0_apic_id(void)
{
	return cpu0_apic_id;
}
