// SPDX-License-Identifier: MIT
/*
 * kernel_boot(): the one C entry every boot head reaches, in ring 3 once
 * boot/start32.S and ring0_init() have set up long mode and the IDT.  The
 * console first, then the boot information, the command line, the banner
 * and environment section, the checks, and the verdict.
 */
#include <stdint.h>
#include <stdio.h>

#include "base/console.h"
#include "base/cpu.h"
#include "base/entry.h"
#include "base/exit.h"
#include "base/libc.h"
#include "base/paging.h"
#include "base/platform.h"
#include "base/smp.h"
#include "clockbench/version.h"
#include "drivers/acpi.h"
#include "drivers/acpi_tables.h"
#include "drivers/tsc.h"
#include "engine/clocks.h"
#include "engine/cpus.h"
#include "engine/crosscpu.h"
#include "engine/measure.h"
#include "engine/selftest.h"
#include "engine/ticks.h"
#include "hypervisor/detect.h"
#include "hypervisor/xen.h"
#include "lib/boot_info.h"
#include "lib/cpuinfo.h"
#include "lib/options.h"
#include "lib/ktap.h"
#include "report/summary.h"

#define MIB (1024 * 1024)

extern char __image_start[], __image_end[], __image_min_ram_mib[];

static struct boot_info boot_info;
static struct cpu_info cpu_info;
static struct hv_info hv_info;

#define ENV_LINE(key, fmt, ...) printf("  %-16s " fmt "\n", key, ##__VA_ARGS__)

__attribute__((noreturn)) static void fail_early(const char *what,
						 const char *why)
{
	printf("clockbench: %s: %s\n", what, why);
	report(false, "%s", what);
	run_exit(report_end());
}

/* The environment as the JSON report repeats it; filled as it is printed. */
static struct report_env report_env;

static void print_cpu(void)
{
	const struct cpu_info *cpu = &cpu_info;

	cpu_info_fill(&cpu_info, cpu_cpuid);
	snprintf(report_env.cpu, sizeof(report_env.cpu),
		 "%s family %u model %u stepping %u%s%s%s", cpu->vendor,
		 cpu->family, cpu->model, cpu->stepping,
		 cpu->brand[0] ? " (" : "", cpu->brand,
		 cpu->brand[0] ? ")" : "");
	ENV_LINE("cpu", "%s", report_env.cpu);
}

/* What Xen's CPUID leaves say about time. */
static void print_xen(const struct hv_leaf *leaf)
{
	struct xen_cpuid_info x;
	char flags[128];

	xen_cpuid_read(leaf, cpu_cpuid, &x);
	if (!x.have_tsc_leaf) {
		ENV_LINE("", "Xen TSC: leaf %#x not listed", leaf->base + 3);
		return;
	}
	ENV_LINE("", "Xen TSC mode %u (%s); %s", x.tsc_mode,
		 xen_tsc_mode_name(x.tsc_mode),
		 xen_tsc_flags_describe(x.tsc_flags, flags, sizeof(flags)));
	ENV_LINE("", "Xen TSC kHz: guest %u, host %u (leaf %#x, 0 = not said)",
		 x.tsc_khz, x.host_tsc_khz, leaf->base + 3);
}

static void print_hypervisor(void)
{
	const struct hv_info *hv = &hv_info;
	unsigned int i;

	hv_scan(cpu_cpuid, &hv_info);
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
		char features[256];

		ENV_LINE(i ? "" : "hypervisor",
			 "%s%s (\"%s\") max leaf 0x%x at 0x%x",
			 i ? "also " : "", hv_kind_name(hv->found[i].kind),
			 hv->found[i].signature, hv->found[i].max_leaf,
			 hv->found[i].base);
		hv_describe_features(&hv->found[i], cpu_cpuid, features,
				     sizeof(features));
		if (features[0])
			ENV_LINE("", "%s", features);
		if (hv->found[i].kind == HV_XEN)
			print_xen(&hv->found[i]);
	}
}

static void print_privilege(void)
{
	char words[160];

	platform_describe_privilege(words, sizeof(words));
	ENV_LINE("privilege", "%s", words);
}

static void print_memory(const struct boot_info *bi,
			 const struct paging_summary *paging, bool verbose)
{
	unsigned int i;

	if (!bi->nr_memmap) {
		ENV_LINE("memory", "unknown (the loader gave no memory map)");
		return;
	}
	ENV_LINE("memory", "%llu MiB usable RAM in %u regions%s",
		 (unsigned long long)(bi->ram_bytes / MIB), bi->nr_memmap,
		 bi->memmap_truncated ? " (map truncated)" : "");
	if (paging->unmapped_ram)
		ENV_LINE("",
			 "%llu MiB of RAM lie beyond what is mapped (unused)",
			 (unsigned long long)(paging->unmapped_ram / MIB));
	if (!verbose)
		return;
	for (i = 0; i < bi->nr_memmap; i++)
		ENV_LINE("", "0x%012llx-0x%012llx %s",
			 (unsigned long long)bi->memmap[i].base,
			 (unsigned long long)(bi->memmap[i].base +
					      bi->memmap[i].size - 1),
			 mem_type_name(bi->memmap[i].type));
}

static void print_acpi(const struct boot_info *bi, bool verbose)
{
	struct acpi *found = acpi_tables_find(bi);
	struct acpi *acpi = acpi_tables();
	const struct acpi_header *madt;
	struct acpi_cpu_count cpus;
	char why[ACPI_WARNING_LEN];
	unsigned int i;
	size_t len;

	if (acpi)
		ENV_LINE("acpi",
			 "RSDP revision %u (%s) from %s, %s with %u entries",
			 acpi->rsdp_revision, acpi->oem_id, acpi->rsdp_from,
			 acpi->root_is_xsdt ? "XSDT" : "RSDT",
			 acpi->nr_entries);
	else
		ENV_LINE("acpi", "none");
	report_env.cpus = -1;
	madt = acpi ? acpi_find(acpi, "APIC", 0, &len) : NULL;
	if (!madt)
		ENV_LINE("cpus (firmware)", "unknown (no ACPI MADT)");
	else if (acpi_madt_count_cpus(madt, len, &cpus, why, sizeof(why)))
		ENV_LINE("cpus (firmware)", "unknown (%s)", why);
	else
		report_env.cpus = (int)cpus.enabled;
	if (report_env.cpus >= 0)
		ENV_LINE("cpus (firmware)", "%u (ACPI MADT%s%.0u%s)",
			 cpus.enabled,
			 cpus.online_capable ? "; online-capable: " : "",
			 cpus.online_capable,
			 cpus.x2apic_entries ? "; x2APIC entries" : "");
	for (i = 0; verbose && acpi && i < acpi->nr_entries; i++) {
		const struct acpi_header *h = acpi_entry(acpi, i, &len);

		if (h)
			ENV_LINE("", "table %.4s rev %u, %zu bytes, OEM %.6s",
				 h->signature, h->revision, len, h->oem_id);
	}
	for (i = 0; i < found->nr_warnings; i++)
		ENV_LINE("", "warning: %s", found->warnings[i]);
}

/* One table as "acpi-dump SIG PADDR OFFSET: HEX" lines, 32 bytes each. */
static void dump_bytes(const char *sig, uint64_t paddr, const uint8_t *p,
		       size_t len)
{
	size_t off, i;

	for (off = 0; off < len; off += 32) {
		printf("acpi-dump %.4s %#llx %#zx:", sig,
		       (unsigned long long)paddr, off);
		for (i = off; i < len && i < off + 32; i++)
			printf(" %02x", p[i]);
		printf("\n");
	}
}

static void dump_acpi(const struct boot_info *bi)
{
	struct acpi *acpi = acpi_tables();
	struct acpi_fadt_power power;
	const struct acpi_header *h;
	unsigned int i;
	size_t len;

	if (!acpi) {
		printf("acpi-dump: no ACPI tables to dump\n");
		return;
	}
	if (bi->rsdp_copy_len)
		dump_bytes("RSDP", 0, bi->rsdp_copy, bi->rsdp_copy_len);
	else
		dump_bytes("RSDP", acpi->rsdp_paddr,
			   phys_map(&phys_mem, acpi->rsdp_paddr, 20),
			   acpi->rsdp_revision >= 2 ? 36 : 20);
	/* acpi_open() checked the root table's length and checksum. */
	h = phys_map(&phys_mem, acpi->root_paddr, ACPI_HEADER_LEN);
	if (h && phys_map(&phys_mem, acpi->root_paddr, h->length))
		dump_bytes(h->signature, acpi->root_paddr, (const uint8_t *)h,
			   h->length);
	for (i = 0; i < acpi->nr_entries; i++) {
		h = acpi_entry(acpi, i, &len);
		if (h)
			dump_bytes(h->signature, (uintptr_t)h,
				   (const uint8_t *)h, len);
	}
	h = acpi_find(acpi, "FACP", 0, &len);
	if (h && acpi_fadt_power(h, len, &power) == 0 &&
	    (h = phys_map(&phys_mem, power.dsdt_paddr, ACPI_HEADER_LEN)) &&
	    phys_map(&phys_mem, power.dsdt_paddr, h->length))
		dump_bytes("DSDT", power.dsdt_paddr, (const uint8_t *)h,
			   h->length);
}

/* The rest of the report's environment (the CPU and the firmware's CPU
 * count are set where they are printed). */
static void fill_report_env(struct report_env *env, const struct options *o)
{
	const struct hv_leaf *hv = hv_primary(&hv_info);

	env->version = CLOCKBENCH_VERSION;
	env->boot = boot_protocol_name(boot_info.protocol);
	env->cmdline = boot_info.cmdline;
	env->hypervisor = hv		    ? hv_kind_name(hv->kind)
			  : hv_info.present ? "unknown hypervisor"
					    : "none";
	env->hypervisor_signature = hv ? hv->signature : NULL;
	env->memory_mib = boot_info.ram_bytes / MIB;
	env->iopl_honoured = !platform_port_io_emulated();
	env->budget_ms = o->budget_ms;
	env->cpus_online = smp_cpus_online();
}

void kernel_boot(uint32_t protocol, uint32_t info_paddr, uint32_t magic)
{
	static struct probe_env clock_env;
	enum verdict verdict;
	struct paging_summary paging;
	struct options opts;
	char err[256];

	console_init();
	printf("\nclockbench %s\n", CLOCKBENCH_VERSION);

	if (boot_info_parse(&boot_info, (int)protocol, magic, info_paddr,
			    &boot_mem, err, sizeof(err)))
		fail_early("the boot information is unusable", err);
	/* boot/start32.S found RAM there; the map must call it RAM too. */
	if (!boot_info_ram_covers(&boot_info, (uintptr_t)__image_start,
				  (uintptr_t)__image_end)) {
		snprintf(err, sizeof(err),
			 "the memory map does not list all of the image "
			 "(0x%lx-0x%lx) as RAM; boot it with at least %lu MiB",
			 (unsigned long)(uintptr_t)__image_start,
			 (unsigned long)(uintptr_t)__image_end - 1,
			 (unsigned long)(uintptr_t)__image_min_ram_mib);
		fail_early("too little RAM", err);
	}
	paging_init(&boot_info, &paging);

	printf("# environment\n");
	ENV_LINE("boot protocol", "%s", boot_protocol_name(boot_info.protocol));
	if (boot_info.loader[0])
		ENV_LINE("boot loader", "%s", boot_info.loader);
	ENV_LINE("command line", "\"%s\"%s", boot_info.cmdline,
		 boot_info.cmdline_truncated ? " (truncated)" : "");
	if (options_parse(boot_info.cmdline, &opts, err, sizeof(err)))
		fail_early("bad command line", err);
	run_set_exit_method(opts.exit_method);
	if (opts.help) {
		printf("# options (key=value on the command line)\n");
		options_describe(stdout);
		report_skip("help=1: options listed, nothing measured");
		run_exit(report_end());
	}

	print_cpu();
	print_hypervisor();
	print_privilege();
	print_memory(&boot_info, &paging, opts.verbose);
	print_acpi(&boot_info, opts.verbose);
	if (opts.acpi_dump)
		dump_acpi(&boot_info);

	selftest_provoke(opts.fault);
	if (opts.fault != FAULT_NONE)
		fail_early("a provoked exception did not happen",
			   options_value_name("fault", &opts));

	clock_env.acpi = acpi_tables();
	clock_env.hv = &hv_info;
	clock_env.cpu = &cpu_info;
	printf("# probing clocks (a TSC calibration takes about 50 ms)\n");
	clocks_probe(&clock_env);
	clocks_report_platform();
	smp_start(acpi_tables(), opts.hold_ap);
	smp_print();

	measure_all(&(struct measure_options){ .budget_ms = opts.budget_ms,
					       .samples = opts.samples,
					       .rate_ms = opts.rate_ms });
	summary_print_table();
	xcpu_measure(&(struct xcpu_options){ .warp_ms = opts.warp_ms,
					     .drift_ms = opts.drift_ms });
	summary_print_xcpu();
	ticks_measure(&opts, &clock_env);
	summary_print_ticks();

	selftest_run();
	clocks_check();
	smp_checks();
	summary_checks();
	summary_xcpu_checks();
	summary_ticks_checks();
	verdict = report_end();
	fill_report_env(&report_env, &opts);
	summary_print_json(&report_env, verdict);
	run_exit(verdict);
}
