/* SPDX-License-Identifier: MIT */
/*
 * Idle CPUs that sleep instead of spinning, while a measurement on CPU 0
 * wants the host's CPUs to itself.  Natively other CPUs wait for on_cpu()
 * work by spinning (base/smp.c), which under an emulator, or a host with
 * fewer free CPUs than the guest has, takes CPU time from CPU 0; for the
 * tick phase each is parked, halted until a WAKE_VECTOR IPI
 * (platform/hvm64/idle.c).  A Xen PV guest's idle vCPUs block in Xen
 * whenever they have no work, woken by an event-channel IPI
 * (platform/pv64/idle.c, through base/smp.h's smp_idle_ops); parking them
 * only waits until each is blocked.  The platform's.
 */
#ifndef CLOCKBENCH_BASE_IDLE_H
#define CLOCKBENCH_BASE_IDLE_H

/**
 * Park every other online CPU that can be: each takes the request through
 * on_cpu() and halts until idle_unpark_others().  Returns how many were
 * parked.
 */
unsigned int idle_park_others(void);

/**
 * Wake the parked CPUs and wait (bounded) until each is back waiting for
 * on_cpu() work; one that does not come back is named.  Returns how many
 * did not.
 */
unsigned int idle_unpark_others(void);

#endif
