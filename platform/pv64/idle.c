// SPDX-License-Identifier: MIT
/*
 * Idle vCPUs of a Xen PV guest (see base/idle.h): there is no local APIC
 * to wake a halted one with, so none is parked; they keep spinning, and
 * Xen shares the physical CPUs among them.
 */
#include "base/idle.h"

unsigned int idle_park_others(void)
{
	return 0;
}

unsigned int idle_unpark_others(void)
{
	return 0;
}
