/* SPDX-License-Identifier: MIT */
/*
 * Xen as clockbench talks to it, PV and HVM alike: the shared_info page
 * (each vCPU's pvclock record, the wall clock), Xen's CPUID leaves, and
 * the xen_pvclock clock.  The PV-only parts (start, traps, console, vCPU
 * bring-up, memory) are in platform/pv64/xen_pv.h.
 */
#ifndef CLOCKBENCH_HYPERVISOR_XEN_H
#define CLOCKBENCH_HYPERVISOR_XEN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "hypervisor/detect.h"
#include "lib/xen_abi.h"
#include "lib/clock.h"

/* shared_info, once mapped (PV: at start; HVM: by xen_pvclock's probe). */
extern volatile struct shared_info *xen_shared_info;

/* Leaf base + 3, sub-leaf 0, EAX bit 0: Xen emulates rdtsc (the bits are
 * documented in xen/arch-x86/cpuid.h but not named there). */
#define XEN_TSC_EMULATED (1u << 0)

/* Xen's CPUID leaves, as offsets from its base (arch-x86/cpuid.h names
 * them only in comments). */
#define XEN_LEAF_VERSION   1
#define XEN_LEAF_HYPERCALL 2
#define XEN_LEAF_TIME	   3
#define XEN_LEAF_HVM	   4

/* What Xen's CPUID leaves say (base + 1 to base + 4). */
struct xen_cpuid_info {
	uint32_t base; /* 0x40000000 or 0x40000100 */
	uint32_t max_leaf;
	unsigned int major, minor;    /* base + 1 */
	unsigned int hypercall_pages; /* base + 2: EAX */
	uint32_t hypercall_msr;	      /* base + 2: EBX */
	bool have_tsc_leaf;	      /* base + 3 is listed */
	uint32_t tsc_flags;    /* base + 3.0 EAX: emulated, reliable, ... */
	uint32_t tsc_mode;     /* base + 3.0 EBX */
	uint32_t tsc_khz;      /* base + 3.0 ECX */
	uint32_t host_tsc_khz; /* base + 3.2 ECX */
	bool have_hvm_leaf;    /* base + 4 is listed */
	uint32_t hvm_features; /* base + 4 EAX */
	bool vcpu_id_valid;    /* base + 4: EBX holds this vCPU's id */
	uint32_t vcpu_id;
};

/**
 * Fill @out from the leaves at @leaf (the Xen entry of hv_detect()),
 * through @cpuid (the real instruction, or a host test's table).
 */
void xen_cpuid_read(const struct hv_leaf *leaf, cpuid_fn cpuid,
		    struct xen_cpuid_info *out);

/** Xen's TSC mode number (XEN_CPUID_TSC_MODE_*) in words. */
const char *xen_tsc_mode_name(uint32_t mode);

/** The TSC flags of leaf base + 3 in words into @buf. */
char *xen_tsc_flags_describe(uint32_t flags, char *buf, size_t len);

/**
 * Xen's wall clock (shared_info wc_*) under its version protocol, at most
 * @max_tries attempts.  Returns 0 with seconds and ns since the epoch at
 * Xen system time 0, or -1 when the version never settled.
 */
int xen_wallclock_read(const volatile struct shared_info *s,
		       unsigned int max_tries, uint64_t *sec, uint32_t *nsec);

/**
 * The platform's, for a guest of Xen: make hypercalls and shared_info
 * usable, as this environment does it (an HVM or PVH guest fills its
 * hypercall page and maps shared_info now: platform/hvm64/xen_hvm.c; a PV
 * guest has both from its start).  Returns 0 (also when already done), or
 * -1 with the reason in @why.
 */
int xen_guest_setup(const struct xen_cpuid_info *x, char *why, size_t whylen);

/** The platform's: the vCPU id of CPU @cpu, from the CPU itself. */
uint32_t xen_vcpu_id(const struct xen_cpuid_info *x, unsigned int cpu);

/** Which console of Xen an HVM or PVH guest writes. */
enum xen_hvm_console {
	XEN_HVM_CONSOLE_NONE, /* no Xen, or no console of its */
	XEN_HVM_CONSOLE_RING, /* a domU's PV console ring, beside the UART */
	XEN_HVM_CONSOLE_IO,   /* Xen's own (console_io), alone: Xen's
				 hardware domain, whose UART Xen keeps */
};

/**
 * As an HVM or PVH guest of Xen, find Xen's console: as the hardware domain
 * (a PVH dom0) Xen's own through console_io, else the PV console ring (HVM
 * params), written beside the UART: a PVH domU has no UART.  Does nothing
 * where CPUID shows no Xen.
 */
enum xen_hvm_console xen_hvm_console_init(void);

/** As an HVM or PVH guest: whether Xen's hypercalls are set up, so that
 * xen_hvm_shutdown() can end the domain. */
bool xen_hvm_can_shutdown(void);

/** SCHEDOP_shutdown: power the domain off, or crash it (@crash); returns
 * only when Xen refused. */
void xen_hvm_shutdown(bool crash);

struct boot_info;

/** As an HVM or PVH guest of Xen, take @bi's memory map from Xen
 * (XENMEM_memory_map); nothing where there is no Xen. */
void xen_hvm_memory_map(struct boot_info *bi);

/** Whether xen_hvm_console_init() found this guest to be Xen's hardware
 * domain (a PVH dom0), from which Xen keeps the PIT and the PM timer. */
bool xen_hvm_is_hardware_domain(void);
void xen_hvm_console_write(const char *buf, size_t len);
void xen_hvm_console_flush(void);
/** Bytes Xen's PV console ring of an HVM or PVH guest did not take (its
 * ring never drained, or its indexes were inconsistent); 0 without one. */
size_t xen_hvm_console_lost(void);
/** As an HVM or PVH domU: platform_event_poll()'s work, answering xl
 * save's suspend request (hypervisor/xen_suspend.h); 0 where there is no
 * Xen or no store. */
int xen_hvm_event_poll(char *said, size_t len);
/** The next byte of the PV console ring's input, or -1 (none now, or no
 * ring: xencons_read_byte()). */
int xen_hvm_console_read_byte(void);

extern struct clock xen_pvclock;

struct pvclock_sample;

/** Before the domain suspends: note every CPU's time record, which a
 * restored domain's must differ from. */
void xen_pvclock_note_suspend(void);

/** After the domain resumed from a suspend (@restored: as a new domain):
 * point the calling CPU at its time record again, registering its own area
 * anew, and after a restore see that Xen wrote it anew.  0, with what that
 * record says of the suspend in @said ("" when nothing), or -1 with the
 * reason there. */
int xen_pvclock_resume(bool restored, char *said, size_t len);

/** One consistent reading of the calling CPU's Xen time record, its
 * version and flags too (for the event report): 0, or -1 when xen_pvclock
 * is absent, the CPU has no record, or the version never settled. */
int xen_pvclock_sample(struct pvclock_sample *s);

/**
 * xen_pvclock_area() - CPU @cpu's time record, and the attempts a read of
 * it may make (*@max_tries), for the step monitor (hypervisor/pvclock_step.h);
 * NULL when that CPU has none.
 */
const volatile struct vcpu_time_info *xen_pvclock_area(unsigned int cpu,
						       unsigned int *max_tries);

/** Reads of xen_pvclock whose version never settled. */
unsigned long xen_pvclock_failed_reads(void);

#endif
