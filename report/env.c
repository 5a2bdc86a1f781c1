// SPDX-License-Identifier: MIT
/* The environment section and the JSON "env" (see report/run.h). */
#include <stdio.h>

#include "report/run.h"

#define MIB (1024 * 1024)

#define ENV_LINE(key, fmt, ...) printf("  %-16s " fmt "\n", key, ##__VA_ARGS__)

/* What Xen's CPUID leaves say about time. */
static void print_xen(const struct env_result *e, const struct hv_leaf *leaf,
		      const struct xen_cpuid_info *x)
{
	char flags[128];

	if (e->xen_guest)
		ENV_LINE("", "Xen guest: %s %s", e->xen_guest, e->xen_domain);
	if (!x->have_tsc_leaf) {
		ENV_LINE("", "Xen TSC: leaf %#x not listed",
			 leaf->base + XEN_LEAF_TIME);
		return;
	}
	ENV_LINE("", "Xen TSC mode %u (%s); %s", x->tsc_mode,
		 xen_tsc_mode_name(x->tsc_mode),
		 xen_tsc_flags_describe(x->tsc_flags, flags, sizeof(flags)));
	ENV_LINE("", "Xen TSC kHz: guest %u, host %u (leaf %#x, 0 = not said)",
		 x->tsc_khz, x->host_tsc_khz, leaf->base + XEN_LEAF_TIME);
}

static void print_hypervisor(const struct env_result *e)
{
	const struct hv_info *hv = &e->hv;
	unsigned int i;

	if (!hv->present) {
		ENV_LINE("hypervisor", "none (CPUID.1:ECX[31] clear)");
		return;
	}
	if (!hv->nr) {
		ENV_LINE("hypervisor",
			 "present (CPUID.1:ECX[31] set) but no signature at "
			 "0x%x-0x%x",
			 HV_LEAF_FIRST, HV_LEAF_LAST);
		return;
	}
	for (i = 0; i < hv->nr; i++) {
		ENV_LINE(i ? "" : "hypervisor",
			 "%s%s (\"%s\") max leaf 0x%x at 0x%x",
			 i ? "also " : "", hv_kind_name(hv->found[i].kind),
			 hv->found[i].signature, hv->found[i].max_leaf,
			 hv->found[i].base);
		if (e->hv_features[i][0])
			ENV_LINE("", "%s", e->hv_features[i]);
		if (hv->found[i].kind == HV_XEN)
			print_xen(e, &hv->found[i], &e->xen[i]);
	}
}

static void print_memory(const struct env_result *e)
{
	const struct boot_info *bi = e->boot;
	unsigned int i;

	if (!bi->nr_memmap) {
		ENV_LINE("memory", "unknown (the loader gave no memory map)");
		return;
	}
	ENV_LINE("memory", "%llu MiB usable RAM in %u regions%s%s%s",
		 (unsigned long long)(bi->ram_bytes / MIB), bi->nr_memmap,
		 bi->memmap_truncated ? " (map truncated)" : "",
		 bi->memmap_source ? ", from " : "",
		 bi->memmap_source ? bi->memmap_source : "");
	if (e->unmapped_ram)
		ENV_LINE("",
			 "%llu MiB of RAM lie beyond what is mapped (unused)",
			 (unsigned long long)(e->unmapped_ram / MIB));
	if (!e->verbose)
		return;
	for (i = 0; i < bi->nr_memmap; i++)
		ENV_LINE("", "0x%012llx-0x%012llx %s",
			 (unsigned long long)bi->memmap[i].base,
			 (unsigned long long)(bi->memmap[i].base +
					      bi->memmap[i].size - 1),
			 mem_type_name(bi->memmap[i].type));
}

static void print_acpi(const struct env_result *e)
{
	unsigned int i;

	if (e->acpi.present)
		ENV_LINE("acpi",
			 "RSDP revision %u (%s) from %s, %s with %u entries",
			 e->acpi.revision, e->acpi.oem_id, e->acpi.from,
			 e->acpi.xsdt ? "XSDT" : "RSDT", e->acpi.nr_entries);
	else
		ENV_LINE("acpi", "none");
	if (e->firmware_cpus < 0)
		ENV_LINE("cpus (firmware)", "unknown (%s)",
			 e->firmware_cpus_unknown);
	else if (e->firmware_cpus == 0)
		ENV_LINE("cpus (firmware)",
			 "0: the ACPI MADT lists no enabled CPU, although the "
			 "boot CPU runs%s%.0u%s",
			 e->online_capable ? "; online-capable: " : "",
			 e->online_capable,
			 e->x2apic_entries ? "; x2APIC entries" : "");
	else
		ENV_LINE("cpus (firmware)", "%d (ACPI MADT%s%.0u%s)",
			 e->firmware_cpus,
			 e->online_capable ? "; online-capable: " : "",
			 e->online_capable,
			 e->x2apic_entries ? "; x2APIC entries" : "");
	for (i = 0; e->verbose && i < e->acpi.nr_tables; i++)
		ENV_LINE("", "table %s rev %u, %zu bytes, OEM %s",
			 e->acpi.tables[i].signature,
			 e->acpi.tables[i].revision, e->acpi.tables[i].length,
			 e->acpi.tables[i].oem_id);
	if (e->verbose && e->acpi.tables_dropped)
		ENV_LINE("", "%u more tables, not listed",
			 e->acpi.tables_dropped);
	for (i = 0; i < e->acpi.nr_warnings; i++)
		ENV_LINE("", "warning: %s", e->acpi.warnings[i]);
}

/* Whether the hypervisor runs guest ring 0 by emulation, in words. */
static void print_ring0(const struct env_result *e)
{
	const struct hv_leaf *hv = hv_primary(&e->hv);
	uint64_t trip = e->ring0_round_trip_cycles;

	if (!trip)
		return;
	if (trip > RING0_EMULATED_CYCLES && hv && hv->kind == HV_KVM)
		ENV_LINE("",
			 "ring 0 emulated by the hypervisor: a request to ring "
			 "0 and back takes %llu TSC cycles (median, less the "
			 "empty TSC bracket), over the "
			 "%u a CPU needs even at a few GHz, as under kvm-pvm; "
			 "ring 3, where everything is measured, runs natively",
			 (unsigned long long)trip, RING0_EMULATED_CYCLES);
	else if (trip > RING0_EMULATED_CYCLES && e->hv.present)
		ENV_LINE("",
			 "a request to ring 0 and back takes %llu TSC cycles "
			 "(median, less the empty TSC bracket), over the %u a "
			 "CPU needs even at a few GHz: the hypervisor "
			 "intercepts or emulates the switch",
			 (unsigned long long)trip, RING0_EMULATED_CYCLES);
	else
		ENV_LINE("",
			 "a request to ring 0 and back takes %llu TSC "
			 "cycles (median, less the empty TSC bracket)",
			 (unsigned long long)trip);
}

void report_env_print(const struct run_report *run)
{
	const struct env_result *e = &run->env;

	printf("# environment\n");
	if (e->boot->entry_esp_known)
		ENV_LINE("boot protocol", "%s (the loader left ESP = %#x%s)",
			 boot_protocol_name(e->boot->protocol),
			 e->boot->entry_esp,
			 e->boot->entry_esp ? "" : ": no stack");
	else
		ENV_LINE("boot protocol", "%s",
			 boot_protocol_name(e->boot->protocol));
	if (e->boot->loader[0])
		ENV_LINE("boot loader", "%s", e->boot->loader);
	ENV_LINE("command line", "\"%s\"%s", e->boot->cmdline,
		 e->boot->cmdline_truncated ? " (truncated)" : "");
	ENV_LINE("cpu", "%s", e->cpu_text);
	print_hypervisor(e);
	ENV_LINE("privilege", "%s", e->privilege);
	print_ring0(e);
	ENV_LINE("port I/O", "%s", e->port_io_words);
	if (e->console_words)
		ENV_LINE("console", "%s", e->console_words);
	print_memory(e);
	print_acpi(e);
}

/* "xen": what kind of Xen guest this is and how Xen keeps its TSC. */
static void xen_json(const struct env_result *e, struct json_writer *w)
{
	const struct xen_cpuid_info *x = NULL;
	char version[24];
	unsigned int i;

	for (i = 0; i < e->hv.nr; i++)
		if (e->hv.found[i].kind == HV_XEN)
			x = &e->xen[i];
	if (!x || !e->xen_guest) {
		json_null(w, "xen");
		return;
	}
	json_object_begin(w, "xen");
	json_string(w, "guest", e->xen_guest);
	json_string(w, "domain", e->xen_domain);
	snprintf(version, sizeof(version), "%u.%u", x->major, x->minor);
	json_string(w, "version", x->major ? version : NULL);
	if (x->have_tsc_leaf) {
		json_uint(w, "tsc_mode", x->tsc_mode);
		json_bool(w, "tsc_emulated", x->tsc_flags & XEN_TSC_EMULATED);
	} else {
		json_null(w, "tsc_mode");
		json_null(w, "tsc_emulated");
	}
	json_object_end(w);
}

/* What the environment section says of ACPI, the loader's stack and the
 * console, as values: "acpi" (null without tables), "entry_esp" (null when
 * the head could not tell) and "console". */
static void env_facts_json(const struct env_result *e, struct json_writer *w)
{
	if (e->acpi.present) {
		json_object_begin(w, "acpi");
		json_uint(w, "revision", e->acpi.revision);
		json_string(w, "oem_id", e->acpi.oem_id);
		json_string(w, "from", e->acpi.from);
		json_string(w, "root_table", e->acpi.xsdt ? "XSDT" : "RSDT");
		json_uint(w, "entries", e->acpi.nr_entries);
		json_object_end(w);
	} else {
		json_null(w, "acpi");
	}
	json_uint_if(w, "entry_esp", e->boot->entry_esp_known,
		     e->boot->entry_esp);
	json_string(w, "console", e->console_words);
}

/* What CPUID says of the TSC, as the clocks section prints it: "tsc_features"
 * (cpuid_frequency null when leaves 0x15 and 0x16 said nothing). */
static void tsc_features_json(const struct tsc_features *f,
			      struct json_writer *w)
{
	json_object_begin(w, "tsc_features");
	json_bool(w, "invariant", f->invariant);
	json_bool(w, "rdtscp", f->rdtscp);
	json_bool(w, "deadline", f->deadline);
	json_bool(w, "tsc_adjust", f->tsc_adjust);
	if (f->tsc_adjust && f->tsc_adjust_read)
		json_int(w, "tsc_adjust_value", f->tsc_adjust_value);
	else
		json_null(w, "tsc_adjust_value");
	json_string(w, "cpuid_frequency",
		    f->cpuid_frequency[0] ? f->cpuid_frequency : NULL);
	json_object_end(w);
}

void report_env_json(const struct run_report *run, struct json_writer *w)
{
	const struct env_result *e = &run->env;
	const struct hv_leaf *hv = hv_primary(&e->hv);

	json_string(w, "version", e->version);
	json_object_begin(w, "env");
	json_string(w, "boot", boot_protocol_name(e->boot->protocol));
	json_string(w, "cmdline", e->boot->cmdline);
	json_string(w, "cpu", e->cpu_text);
	json_string(w, "hypervisor",
		    hv		    ? hv_kind_name(hv->kind)
		    : e->hv.present ? "unknown hypervisor"
				    : "none");
	json_string(w, "hypervisor_signature", hv ? hv->signature : NULL);
	xen_json(e, w);
	/* "cpus" is at least 1 or null, as the first release had it; a MADT
	 * that lists none is a firmware's mistake, shown by firmware_cpus. */
	if (e->firmware_cpus > 0)
		json_uint(w, "cpus", (uint64_t)e->firmware_cpus);
	else
		json_null(w, "cpus");
	if (e->firmware_cpus >= 0)
		json_uint(w, "firmware_cpus", (uint64_t)e->firmware_cpus);
	else
		json_null(w, "firmware_cpus");
	json_uint(w, "cpus_online", run->cpus.online);
	json_uint(w, "memory_mib", e->boot->ram_bytes / MIB);
	json_bool(w, "iopl_honoured", e->iopl_honoured);
	if (e->io_bitmap_honoured >= 0)
		json_bool(w, "io_bitmap_honoured", e->io_bitmap_honoured);
	else
		json_null(w, "io_bitmap_honoured");
	json_uint_if(w, "ring0_round_trip_cycles",
		     e->ring0_round_trip_cycles != 0,
		     e->ring0_round_trip_cycles);
	json_bool(w, "ring0_emulated",
		  e->ring0_round_trip_cycles > RING0_EMULATED_CYCLES &&
			  e->hv.present);
	if (run->measure.timed)
		json_double(w, "tsc_hz", run->measure.tsc_hz);
	else
		json_null(w, "tsc_hz");
	env_facts_json(e, w);
	tsc_features_json(&run->clocks.tsc, w);
	json_object_end(w);
}
