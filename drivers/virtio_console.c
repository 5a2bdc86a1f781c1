// SPDX-License-Identifier: MIT
/*
 * A virtio console (legacy virtio over PCI, port 0 without multiport): a
 * console that takes a whole buffer per notification.  Each byte to a UART
 * is one port access, which a hypervisor traps: under this project's
 * kvm-pvm that is tens of microseconds a byte, and the report's ~40 KiB
 * then cost more than a second.  Here a write is a copy into one buffer,
 * one descriptor, one notification, and a bounded wait for the used ring.
 * Found on PCI bus 0 through configuration mechanism 1; absent (the UART
 * serves alone) when the machine has none.
 */
#include <stdio.h>
#include <string.h>

#include "base/cpu.h"
#include "base/platform.h"
#include "base/stopwatch.h"
#include "drivers/virtio_console.h"
#include "lib/vring.h"

#define PCI_CONFIG_ADDRESS 0xcf8
#define PCI_CONFIG_DATA	   0xcfc
#define PCI_ENABLE	   0x80000000u
#define PCI_SLOTS	   32
#define PCI_VENDOR_ID	   0x00 /* and device ID at 0x02 */
#define PCI_COMMAND	   0x04
#define PCI_BAR0	   0x10
#define PCI_COMMAND_IO	   0x1
#define PCI_COMMAND_MASTER 0x4
#define PCI_BAR_IO	   0x1
#define PCI_BAR_IO_MASK	   0xfffffffcu
/* Where an I/O BAR the firmware left unassigned (qboot assigns none) is
 * put: the start of the range PC firmware gives PCI I/O (SeaBIOS starts at
 * 0xc000), above every legacy ISA port. */
#define PCI_IO_ASSIGN_BASE 0xc000u

#define VIRTIO_VENDOR		0x1af4
#define VIRTIO_CONSOLE_LEGACY	0x1003 /* a transitional device's ID */
#define VIRTIO_LEGACY_IO_PORTS	0x14   /* the header, without MSI-X */
#define VIRTIO_GUEST_FEATURES	0x04
#define VIRTIO_QUEUE_PFN	0x08
#define VIRTIO_QUEUE_SIZE	0x0c
#define VIRTIO_QUEUE_SELECT	0x0e
#define VIRTIO_QUEUE_NOTIFY	0x10
#define VIRTIO_STATUS		0x12
#define VIRTIO_STATUS_ACK	0x01
#define VIRTIO_STATUS_DRIVER	0x02
#define VIRTIO_STATUS_DRIVER_OK 0x04
#define VIRTIO_STATUS_FAILED	0x80
#define CONSOLE_RECEIVEQ	0 /* port 0's: receiveq 0, transmitq 1 */
#define CONSOLE_TRANSMITQ	1
#define VRING_DESC_F_WRITE	2 /* the device writes the buffer */

#define QUEUE_MAX_ENTRIES 256
#define RING_BYTES	  (3 * VRING_LEGACY_ALIGN) /* 256 entries' layout */
#define BUFFER_BYTES	  4096
/*
 * How long a buffer may wait for the device to take it.  A device that
 * works answers within the notification, or its I/O thread within
 * microseconds, unless the host reads the console slowly: QEMU's stdio is
 * non-blocking, so a full pipe holds the buffer until the host reads.  A
 * busy host can leave the pipe full for seconds; giving up then loses the
 * buffer or sends it late, out of order.  So the bound is long, by the
 * stopwatch once it runs; before that (the first lines, far less than a
 * pipe holds) by polls.
 */
#define SEND_WAIT_NS	20e9
#define MAX_POLLS	50000000ul
#define POLLS_PER_CHECK 1024 /* polls between two reads of the stopwatch */

static uint8_t ring[RING_BYTES] __attribute__((aligned(VRING_LEGACY_ALIGN)));
static char buffer[BUFFER_BYTES] __attribute__((aligned(64)));

/* The receive queue: one buffer the device fills with what came on the
 * console's input (the host's line at an event point), handed back to it
 * once read. */
#define RX_BUFFER_BYTES 512
static uint8_t rx_ring[RING_BYTES] __attribute__((aligned(VRING_LEGACY_ALIGN)));
static char rx_buffer[RX_BUFFER_BYTES] __attribute__((aligned(64)));

static struct {
	bool ready;
	unsigned int entries;
	struct vring_layout layout;
	uint16_t avail_idx, used_seen;
	uint32_t have, next; /* bytes in rx_buffer, and the next to read */
} rx;

static struct {
	bool ready, stopped;
	bool assigned;	      /* clockbench gave BAR0 its address */
	uint16_t io;	      /* BAR0: the legacy header's ports */
	unsigned int entries; /* the transmit queue's size */
	struct vring_layout layout;
	uint16_t avail_idx; /* ours: descriptors made available so far */
	unsigned int slot;  /* bus 0 slot, for the environment line */
	unsigned long bytes_lost;
} vc;

/* Configuration mechanism 1: the dword of bus 0, @slot, function 0 that
 * holds register @reg goes to PCI_CONFIG_DATA. */
static void pci_select(unsigned int slot, unsigned int reg)
{
	outl(PCI_CONFIG_ADDRESS, PCI_ENABLE | slot << 11 | (reg & 0xfc));
}

static uint32_t pci_read32(unsigned int slot, unsigned int reg)
{
	pci_select(slot, reg);
	return inl(PCI_CONFIG_DATA);
}

static void pci_write32(unsigned int slot, unsigned int reg, uint32_t val)
{
	pci_select(slot, reg);
	outl(PCI_CONFIG_DATA, val);
}

static void pci_write16(unsigned int slot, unsigned int reg, uint16_t val)
{
	pci_select(slot, reg);
	outw(PCI_CONFIG_DATA + (reg & 2), val);
}

static volatile uint16_t *avail_idx_field(void)
{
	return (volatile uint16_t *)(ring + vc.layout.avail_offset + 2);
}

static volatile uint16_t *avail_ring(void)
{
	return (volatile uint16_t *)(ring + vc.layout.avail_offset + 4);
}

static volatile uint16_t *used_idx_field(void)
{
	return (volatile uint16_t *)(ring + vc.layout.used_offset + 2);
}

/* Hand the receive buffer (back) to the device. */
static void rx_post(void)
{
	struct vring_desc *desc = (struct vring_desc *)rx_ring;
	volatile uint16_t *avail =
		(volatile uint16_t *)(rx_ring + rx.layout.avail_offset);

	desc[0] = (struct vring_desc){ .addr = (uintptr_t)rx_buffer,
				       .len = RX_BUFFER_BYTES,
				       .flags = VRING_DESC_F_WRITE };
	avail[2 + rx.avail_idx % rx.entries] = 0;
	barrier();
	avail[1] = ++rx.avail_idx;
	barrier();
	outw(vc.io + VIRTIO_QUEUE_NOTIFY, CONSOLE_RECEIVEQ);
}

/* The receive queue, set up before DRIVER_OK; without it the console only
 * writes (rx.ready false). */
static void rx_init(void)
{
	unsigned int n;

	outw(vc.io + VIRTIO_QUEUE_SELECT, CONSOLE_RECEIVEQ);
	n = inw(vc.io + VIRTIO_QUEUE_SIZE);
	if (n == 0 || n > QUEUE_MAX_ENTRIES ||
	    !vring_layout(n, VRING_LEGACY_ALIGN, &rx.layout) ||
	    rx.layout.total_bytes > sizeof(rx_ring))
		return;
	rx.entries = n;
	memset(rx_ring, 0, sizeof(rx_ring));
	outl(vc.io + VIRTIO_QUEUE_PFN,
	     (uint32_t)((uintptr_t)rx_ring / VRING_LEGACY_ALIGN));
	rx.ready = true;
}

bool virtcons_can_read(void)
{
	return virtcons_ready() && rx.ready;
}

int virtcons_read_byte(void)
{
	volatile uint16_t *used =
		(volatile uint16_t *)(rx_ring + rx.layout.used_offset);
	uint32_t len;

	if (!virtcons_can_read())
		return -1;
	if (rx.next < rx.have)
		return (unsigned char)rx_buffer[rx.next++];
	if (used[1] == rx.used_seen)
		return -1;
	barrier();
	/* used ring entry {id u32, len u32} at +4 + 8 * index */
	len = *(volatile uint32_t *)(rx_ring + rx.layout.used_offset + 4 +
				     8 * (rx.used_seen % rx.entries) + 4);
	rx.used_seen++;
	rx.have = len <= RX_BUFFER_BYTES ? len : RX_BUFFER_BYTES;
	rx.next = 0;
	if (rx.have == 0) {
		rx_post();
		return -1;
	}
	/* Copy out before the buffer goes back: the device may refill it. */
	{
		static char copy[RX_BUFFER_BYTES];

		memcpy(copy, rx_buffer, rx.have);
		rx_post();
		memcpy(rx_buffer, copy, rx.have);
	}
	return (unsigned char)rx_buffer[rx.next++];
}

/* The first slot of bus 0 with a legacy virtio console, or -1. */
static int find_device(void)
{
	unsigned int slot;

	for (slot = 0; slot < PCI_SLOTS; slot++) {
		uint32_t id = pci_read32(slot, PCI_VENDOR_ID);

		if ((id & 0xffff) == VIRTIO_VENDOR &&
		    id >> 16 == VIRTIO_CONSOLE_LEGACY)
			return (int)slot;
	}
	return -1;
}

int virtcons_init(char *why, size_t whylen)
{
	int slot;
	uint32_t bar;
	unsigned int n;

	platform_ports_allow(PCI_CONFIG_ADDRESS, 8);
	slot = find_device();
	if (slot < 0) {
		snprintf(why, whylen,
			 "no legacy virtio console (PCI %04x:%04x) on bus 0",
			 VIRTIO_VENDOR, VIRTIO_CONSOLE_LEGACY);
		return -1;
	}
	vc.slot = (unsigned int)slot;
	bar = pci_read32(vc.slot, PCI_BAR0);
	if ((bar & PCI_BAR_IO) && !(bar & PCI_BAR_IO_MASK)) {
		/* Unassigned: size it (the bits that stay 0 when all are
		 * written as 1) and give it a place of its own. */
		uint32_t size;

		pci_write32(vc.slot, PCI_BAR0, 0xffffffffu);
		size = ~(pci_read32(vc.slot, PCI_BAR0) & PCI_BAR_IO_MASK) + 1;
		size &= 0xffff;
		if (size >= VIRTIO_LEGACY_IO_PORTS && size <= 0x1000) {
			pci_write32(vc.slot, PCI_BAR0, PCI_IO_ASSIGN_BASE);
			vc.assigned = true;
		} else {
			pci_write32(vc.slot, PCI_BAR0, bar);
		}
		bar = pci_read32(vc.slot, PCI_BAR0);
	}
	if (!(bar & PCI_BAR_IO) || !(bar & PCI_BAR_IO_MASK) ||
	    (bar & PCI_BAR_IO_MASK) > 0xffff - VIRTIO_LEGACY_IO_PORTS) {
		snprintf(why, whylen,
			 "the virtio console at 00:%02x.0 has BAR0 %#x, not "
			 "an I/O range of its legacy registers",
			 vc.slot, bar);
		return -1;
	}
	vc.io = (uint16_t)(bar & PCI_BAR_IO_MASK);
	platform_ports_allow(vc.io, VIRTIO_LEGACY_IO_PORTS);
	pci_write16(vc.slot, PCI_COMMAND,
		    (uint16_t)(pci_read32(vc.slot, PCI_COMMAND) |
			       PCI_COMMAND_IO | PCI_COMMAND_MASTER));

	outb(vc.io + VIRTIO_STATUS, 0); /* reset */
	outb(vc.io + VIRTIO_STATUS, VIRTIO_STATUS_ACK);
	outb(vc.io + VIRTIO_STATUS, VIRTIO_STATUS_ACK | VIRTIO_STATUS_DRIVER);
	outl(vc.io + VIRTIO_GUEST_FEATURES, 0); /* port 0 only, no extras */
	rx_init();
	outw(vc.io + VIRTIO_QUEUE_SELECT, CONSOLE_TRANSMITQ);
	n = inw(vc.io + VIRTIO_QUEUE_SIZE);
	if (n > QUEUE_MAX_ENTRIES ||
	    !vring_layout(n, VRING_LEGACY_ALIGN, &vc.layout) ||
	    vc.layout.total_bytes > sizeof(ring)) {
		outb(vc.io + VIRTIO_STATUS, VIRTIO_STATUS_FAILED);
		snprintf(why, whylen,
			 "the virtio console's transmit queue has %u entries, "
			 "not a power of 2 up to %u",
			 n, QUEUE_MAX_ENTRIES);
		return -1;
	}
	vc.entries = n;
	memset(ring, 0, sizeof(ring));
	/* The device finds the queue by page frame (the image is mapped 1:1
	 * where this runs). */
	outl(vc.io + VIRTIO_QUEUE_PFN,
	     (uint32_t)((uintptr_t)ring / VRING_LEGACY_ALIGN));
	outb(vc.io + VIRTIO_STATUS, VIRTIO_STATUS_ACK | VIRTIO_STATUS_DRIVER |
					    VIRTIO_STATUS_DRIVER_OK);
	vc.ready = true;
	if (rx.ready)
		rx_post();
	return 0;
}

bool virtcons_ready(void)
{
	return vc.ready && !vc.stopped;
}

unsigned int virtcons_slot(void)
{
	return vc.slot;
}

int virtcons_assigned_io(void)
{
	return vc.assigned ? vc.io : -1;
}

unsigned long virtcons_bytes_lost(void)
{
	return vc.bytes_lost;
}

/* One buffer's worth: a descriptor, made available, notified, and waited
 * for (the buffer is reused, so the device must be done with it): false
 * when the device did not take it within SEND_WAIT_NS. */
static bool send(size_t len)
{
	struct vring_desc *desc = (struct vring_desc *)ring;
	unsigned long polls;
	uint64_t start, bound;

	desc[0] = (struct vring_desc){ .addr = (uintptr_t)buffer,
				       .len = (uint32_t)len };
	avail_ring()[vc.avail_idx % vc.entries] = 0;
	barrier(); /* x86 keeps stores in order; the compiler must too */
	*avail_idx_field() = ++vc.avail_idx;
	barrier();
	outw(vc.io + VIRTIO_QUEUE_NOTIFY, CONSOLE_TRANSMITQ);
	bound = stopwatch_cycles(SEND_WAIT_NS);
	start = stopwatch_read();
	for (polls = 0;; polls++) {
		if (*used_idx_field() == vc.avail_idx)
			return true;
		if (bound ? polls % POLLS_PER_CHECK == 0 &&
				    stopwatch_read() - start > bound
			  : polls >= MAX_POLLS)
			return false;
		cpu_relax();
	}
}

size_t virtcons_write(const char *buf, size_t len)
{
	size_t done = 0;

	while (virtcons_ready() && done < len) {
		size_t n =
			len - done < BUFFER_BYTES ? len - done : BUFFER_BYTES;

		memcpy(buffer, buf + done, n);
		if (!send(n)) {
			/* Whether the device took this buffer is unknown. */
			vc.stopped = true;
			vc.bytes_lost = n;
			break;
		}
		done += n;
	}
	return done;
}

unsigned int virtcons_wait_s(void)
{
	return stopwatch_hz() ? (unsigned int)(SEND_WAIT_NS / 1e9) : 0;
}

unsigned int virtcons_burst_bytes(void)
{
	return BUFFER_BYTES;
}
