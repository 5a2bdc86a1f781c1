// SPDX-License-Identifier: MIT
/* The 8259 PICs, the local APIC's interrupt delivery, the IOAPICs. */
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

struct ioapic {
	volatile uint32_t *regs;
	uint32_t gsi_base;
	unsigned int pins;
};

static struct acpi_madt_interrupts madt_irqs;
static struct ioapic ioapics[ACPI_MAX_IOAPICS];
static unsigned int nr_ioapics;
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
			snprintf(ioapic_problem, sizeof(ioapic_problem),
				 "IOAPIC %u at %#x lies outside the uncached "
				 "device window",
				 a->id, a->address);
			continue;
		}
		io->regs = (volatile uint32_t *)(uintptr_t)a->address;
		io->gsi_base = a->gsi_base;
		version = ioapic_read(io, IOAPIC_REG_VERSION);
		if (version == 0xffffffffu) {
			snprintf(ioapic_problem, sizeof(ioapic_problem),
				 "IOAPIC %u at %#x reads all ones", a->id,
				 a->address);
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

int intc_route_gsi(uint32_t gsi, bool level, bool active_low, uint8_t vector,
		   char *why, size_t whylen)
{
	unsigned int pin;
	const struct ioapic *io = ioapic_for(gsi, &pin);

	if (!io) {
		snprintf(why, whylen, "no IOAPIC has an input for GSI %u", gsi);
		return -1;
	}
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
