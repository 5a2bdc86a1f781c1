// SPDX-License-Identifier: MIT
/* The CPUs: their environment lines, and their checks (see report/run.h). */
#include <math.h>
#include <stdio.h>

#include "report/run.h"

void report_cpus_print(const struct run_report *run)
{
	const struct cpus_result *c = &run->cpus;
	unsigned int i;

	printf("  %-16s %u online of %u started or listed%s%s%s\n", "cpus",
	       c->online, c->nr, c->note, c->problem[0] ? "; " : "",
	       c->problem);
	for (i = 0; i < c->nr && i < MAX_CPUS; i++)
		printf("  %-16s CPU %u: %s %u, %s\n", "", i, c->id_name,
		       c->cpu[i].id,
		       c->cpu[i].online ? "online"
		       : c->cpu[i].held ? "held back on purpose (hold_ap)"
					: "did not start");
}

/* The check's name, the same whatever it finds. */
#define ONLINE_CHECK "CPU %u (%s %u) comes online and runs on_cpu() work"

void report_cpus_checks(const struct run_report *run, struct ktap *k)
{
	const struct cpus_result *c = &run->cpus;
	unsigned int i;

	for (i = 1; i < c->nr && i < MAX_CPUS; i++) {
		if (c->cpu[i].held) {
			report_skip(k, ONLINE_CHECK, i, c->id_name,
				    c->cpu[i].id);
			report_info(k, "held back by hold_ap");
			continue;
		}
		report(k,
		       c->cpu[i].online && c->cpu[i].ran &&
			       c->cpu[i].said_index == i &&
			       c->cpu[i].said_id == c->cpu[i].id,
		       ONLINE_CHECK, i, c->id_name, c->cpu[i].id);
		if (!c->cpu[i].online)
			report_info(k, "it did not come online");
		else if (!c->cpu[i].ran)
			report_info(k, "on_cpu(%u) did not finish", i);
		else
			report_info(k,
				    "on_cpu(%u) ran on CPU %u with %s %u "
				    "(expected %u)",
				    i, c->cpu[i].said_index, c->id_name,
				    c->cpu[i].said_id, c->cpu[i].id);
		/* What on_cpu(i)'s work said of where it ran; null when it
		 * did not run. */
		report_figure(k, "online", c->cpu[i].online);
		report_figure(k, "said_index",
			      c->cpu[i].ran ? c->cpu[i].said_index : NAN);
		report_figure(k, "said_id",
			      c->cpu[i].ran ? c->cpu[i].said_id : NAN);
	}
}
