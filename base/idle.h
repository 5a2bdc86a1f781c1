/* SPDX-License-Identifier: MIT */
/*
 * Idle CPUs that sleep instead of spinning, while a measurement on CPU 0
 * wants the host's CPUs to itself.  Other CPUs wait for on_cpu() work by
 * spinning (kernel/smp.c), which under an emulator, or a host with fewer
 * free CPUs than the guest has, takes CPU time from CPU 0: parked, each
 * halts (PRIV_IDLE) until a WAKE_VECTOR IPI.
 */
#ifndef CLOCKBENCH_BASE_IDLE_H
#define CLOCKBENCH_BASE_IDLE_H

/**
 * Park every other online CPU: each takes the request through on_cpu()
 * and halts until idle_unpark_others().  Needs the local APIC (for the
 * wake-up IPI).  Returns how many were parked.
 */
unsigned int idle_park_others(void);

/**
 * Wake the parked CPUs and wait (bounded) until each is back waiting for
 * on_cpu() work; one that does not come back is named.  Returns how many
 * did not.
 */
unsigned int idle_unpark_others(void);

#endif
