/* SPDX-License-Identifier: MIT */
/* The CPUs the run started, as the report shows and checks them. */
#ifndef CLOCKBENCH_ENGINE_CPUS_H
#define CLOCKBENCH_ENGINE_CPUS_H

#include <stdbool.h>
#include <stdint.h>

#include "boot/boot.h"

struct cpus_result {
	unsigned int nr, online; /* started or listed; online */
	char problem[160];	 /* why some were not found or started */
	const char *id_name;	 /* "APIC ID" or "vCPU" */
	const char *note;	 /* ", x2APIC" or "" */
	struct {
		uint32_t id; /* the hardware's id */
		bool online, held;
		/* Asked on_cpu() who it is: whether it answered, and what. */
		bool ran;
		unsigned int said_index;
		uint32_t said_id;
	} cpu[MAX_CPUS];
};

/** After smp_start(): every CPU, and each AP's answer to "who are you?". */
void cpus_collect(struct cpus_result *out);

#endif
