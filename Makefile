# SPDX-License-Identifier: MIT
#
# clockbench: a bare-metal x86-64 image that reads and times every clock.
#
#   make            build the images (and newlib, once)
#   make run        boot the default image: KVM when usable, else TCG
#                   (ARGS="key=value ..." are guest options, RUN_FLAGS
#                   options of tools/clockbench run)
#   make user       build/clockbench-user, Linux's clock reads measured from
#                   user space (user/; docs/os-layer.md)
#   make iso        GRUB image for BIOS and UEFI machines (ISO_ARGS bakes
#                   default guest options into it)
#   make check      format, layering and lint checks, unit tests, a fuzz
#                   smoke run, boot tests, the verdict from their records, a
#                   small matrix compared
#   make fuzz       every fuzz target for FUZZ_SECONDS each (docs/fuzzing.md)
#   make docs       the check rules in docs/report-format.md, from the C sources
#   make deps       install the Debian packages this needs (as root)
#   make install    the runner, the images, clockbench-user, the docs, a man page
#                   and bash completion under PREFIX (/usr/local; DESTDIR
#                   honoured); make uninstall takes exactly that away again
#   make fresh-check  the README's two commands in a fresh Debian 12 tree
#   make lava-lab-check  a LAVA lab on this machine runs the image (docs/lava.md)
#
# Everything built goes under build/; kernel objects under build/<env>/:
# hvm64 (multiboot 1/2 and PVH images, with their own ring 0) and pv64 (the
# Xen PV image), each with its own platform/<env>/.

# The version lives in VERSION alone: the runner reads the same file
# (tools/clockbench --version).
VERSION := $(strip $(file < VERSION))
GIT_REV := $(shell git describe --always --dirty 2>/dev/null)
VERSION_STRING := $(VERSION)$(if $(GIT_REV), ($(GIT_REV)))

BUILD := build
ENVS := hvm64 pv64
OBJDIR := $(BUILD)/hvm64

CC := gcc
OBJCOPY := objcopy
PYTHON := /usr/bin/python3

# --- Debian packages -------------------------------------------------------
DEBIAN_PACKAGES := gcc libc6-dev make binutils git python3 clang-format xz-utils \
	clang libclang-rt-14-dev \
	qemu-system-x86 grub-pc-bin grub-efi-amd64-bin grub-common xorriso \
	mtools ovmf newlib-source libxen-dev libcmocka-dev python3-jsonschema qemu-utils \
	python3-matplotlib python3-pyflakes xen-hypervisor-4.17-amd64 help2man \
	python3-argcomplete python3-yaml lava-dispatcher tftpd-hpa linux-libc-dev

# --- newlib, built once from Debian's newlib-source --------------------------
NEWLIB_TARBALL := $(firstword $(wildcard /usr/src/newlib/newlib-*.tar.*))
NEWLIB := $(BUILD)/newlib
NEWLIB_PREFIX := $(abspath $(NEWLIB)/install)
NEWLIB_TARGET := x86_64-elf
# No -g: newlib's own debug information cost a quarter of its compile time (63 s
# against 48 s at -j2 here), on the critical path of every fresh build, and a fault
# report names the kernel's code, which keeps its -g.
NEWLIB_CFLAGS := -ffreestanding -fno-pic -fno-pie -fno-stack-protector \
	-mno-red-zone -fno-asynchronous-unwind-tables -O2
NEWLIB_CONFIG := --host=$(NEWLIB_TARGET) --build=x86_64-linux-gnu \
	--disable-multilib --disable-newlib-supplied-syscalls \
	--enable-newlib-io-c99-formats --enable-newlib-io-long-long
NEWLIB_INCLUDE := $(NEWLIB_PREFIX)/$(NEWLIB_TARGET)/include
NEWLIB_LIBS := $(NEWLIB_PREFIX)/$(NEWLIB_TARGET)/lib/libc.a \
	$(NEWLIB_PREFIX)/$(NEWLIB_TARGET)/lib/libm.a
NEWLIB_STAMP := $(NEWLIB)/installed

# --- kernel ----------------------------------------------------------------
# Asked of gcc when first used, not when the Makefile is read: on a fresh
# machine gcc comes with `make deps`.
GCC_INCLUDE = $(eval GCC_INCLUDE := $(shell $(CC) -print-file-name=include))$(GCC_INCLUDE)
LIBGCC = $(eval LIBGCC := $(shell $(CC) -print-libgcc-file-name))$(LIBGCC)

# The Xen interface version every file sees, whatever it includes first
# (lib/xen_abi.h).
XEN_INTERFACE := -D__XEN_INTERFACE_VERSION__=0x00040700
KERNEL_CPPFLAGS = -nostdinc -isystem $(NEWLIB_INCLUDE) -isystem $(GCC_INCLUDE) \
	-isystem $(BUILD)/include -I. -MMD -MP $(XEN_INTERFACE)
KERNEL_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -ffreestanding \
	-fno-pic -fno-pie -fno-stack-protector -mno-red-zone \
	-fno-asynchronous-unwind-tables -fno-omit-frame-pointer
KERNEL_LDFLAGS := -nostdlib -static -no-pie -Wl,--build-id=none \
	-Wl,-z,max-page-size=0x1000 -Wl,--no-warn-rwx-segments -Wl,-z,noexecstack

# The layers every environment builds (bottom to top; tools/layers checks
# that includes only point down), and each environment's own platform
# implementation in platform/<env>/.  Sources are taken by folder.
LAYERS := lib base drivers hypervisor engine report kernel
layer_srcs = $(wildcard $(addsuffix /*.c,$(1)) $(addsuffix /*.S,$(1)))
COMMON_SRCS := $(call layer_srcs,$(LAYERS))
env_srcs = $(COMMON_SRCS) $(call layer_srcs,platform/$(1))
env_objs = $(patsubst %,$(BUILD)/$(1)/%.o,$(basename $(2)))
KERNEL_OBJS := $(call env_objs,hvm64,$(call env_srcs,hvm64))
PV64_OBJS := $(call env_objs,pv64,$(call env_srcs,pv64))
HEAD_OBJ = $(OBJDIR)/boot/head-$(1).o
LDS := $(OBJDIR)/link.lds
GENERATED := $(BUILD)/include/clockbench/version.h $(BUILD)/include/xen \
	$(BUILD)/include/asm $(BUILD)/include/linux $(BUILD)/include/asm-generic

IMAGES := $(BUILD)/clockbench.elf $(BUILD)/clockbench-mb1.elf \
	$(BUILD)/clockbench-xenpv.elf

# The image's option table as JSON, written by a host program built from
# lib/options.c itself: the runner checks guest options against it before a
# boot and lists them in `run --help`.
GUEST_OPTIONS_PROGRAM := $(BUILD)/host/guest-options
GUEST_OPTIONS := $(BUILD)/guest-options.json
GUEST_OPTIONS_SRCS := tools/guest-options.c lib/options.c lib/json.c lib/error.c

# --- host unit tests (the list is tests/tests.cfg, shared with the runner) ---
HOST_CFLAGS := -std=gnu11 -g -O1 -Wall -Wextra -Werror -I. $(XEN_INTERFACE) \
	-fsanitize=address,undefined -fno-sanitize-recover=all
# A [unit NAME] section's `source = FILE...` lines name what its test links.
UNIT_TESTS := $(shell awk '$$1 == "[unit" { sub(/\]$$/, "", $$2); print $$2 }' tests/tests.cfg)
unit_sources = $(shell awk '/^\[/ { chosen = ($$0 == "[unit $(1)]"); next } \
	chosen && $$1 == "source" && $$2 == "=" { for (i = 3; i <= NF; i++) print $$i }' \
	tests/tests.cfg)
UNIT_BINS := $(patsubst %,$(BUILD)/host/test_%,$(UNIT_TESTS))

FORMAT_SRCS := $(wildcard boot/boot.h $(addsuffix /*.[ch],$(LAYERS) \
	$(addprefix platform/,$(ENVS)) tests/unit tests/fuzz user tools))

# --- clockbench-user: a static Linux program, built with the host's compiler
# and the host's C library, from user/ and the image's own statistics, JSON and
# KTAP code (lib/) ------------------------------------------------------------
USER_PROGRAM := $(BUILD)/clockbench-user
USER_SRCS := $(wildcard user/*.c) lib/stats.c lib/json.c lib/ktap.c lib/batch.c \
	lib/verdict.c lib/error.c lib/figure.c lib/hostline.c
USER_CFLAGS := -std=gnu11 -O2 -g -Wall -Wextra -Werror -I. -isystem $(BUILD)/include \
	-static -pthread

.PHONY: all images guest-options user iso xen-iso run check test unit-tests tool-tests tool-tests-early tool-tests-late boot-tests boot-and-tool-tests \
	layers lint format-check format docs deps clean fuzz fuzz-smoke fuzz-targets FORCE
.DELETE_ON_ERROR:

all: images user iso
images: $(IMAGES) $(GUEST_OPTIONS)
guest-options: $(GUEST_OPTIONS)
user: $(USER_PROGRAM)

$(GUEST_OPTIONS_PROGRAM): $(GUEST_OPTIONS_SRCS) $(wildcard lib/*.h)
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@"
	@$(CC) -std=gnu11 -O1 -g -Wall -Wextra -Werror -I. -o $@ $(GUEST_OPTIONS_SRCS) -lm

$(GUEST_OPTIONS): $(GUEST_OPTIONS_PROGRAM)
	@echo "  GEN     $@"
	@$< > $@

$(USER_PROGRAM): $(USER_SRCS) $(wildcard user/*.h lib/*.h) \
		$(BUILD)/include/clockbench/version.h
	@mkdir -p $(@D)
	@echo "  HOSTCC  $@ (static)"
	@$(CC) $(USER_CFLAGS) -o $@ $(USER_SRCS)

# --- newlib ----------------------------------------------------------------
# Rebuilt only when its flags or its source change.
$(NEWLIB)/flags: FORCE
	@mkdir -p $(@D)
	@if [ -z "$(NEWLIB_TARBALL)" ]; then \
		echo "newlib source missing: install newlib-source (make deps)"; \
		exit 1; fi
	@echo '$(NEWLIB_TARBALL) $(NEWLIB_CONFIG) $(NEWLIB_CFLAGS)' | \
		cmp -s - $@ || echo '$(NEWLIB_TARBALL) $(NEWLIB_CONFIG) $(NEWLIB_CFLAGS)' > $@

# newlib's configure runs nine configure scripts one after another (libc, libm, their
# machine folders, ...), each on the critical path of a fresh build: -C lets them share
# one cache of answers (56 s -> 44 s here; the same libc.a and libm.a symbols).
# newlib's own install goes to NEWLIB_PREFIX in the build tree: `make install
# DESTDIR=...` (packaging) reaches this rule through MAKEFLAGS, and must not move it.
$(NEWLIB_STAMP): $(NEWLIB)/flags
	@echo "  NEWLIB  building newlib from $(NEWLIB_TARBALL) (once, about a minute)"
	@rm -rf $(NEWLIB)/src $(NEWLIB)/obj $(NEWLIB_PREFIX)
	@mkdir -p $(NEWLIB)/src $(NEWLIB)/obj
	@tar -xf $(NEWLIB_TARBALL) -C $(NEWLIB)/src --strip-components=1
	@cd $(NEWLIB)/obj && ( ../src/newlib/configure -C $(NEWLIB_CONFIG) \
		--prefix=$(NEWLIB_PREFIX) CC="$(CC) $(NEWLIB_CFLAGS)" \
		AR=ar RANLIB=ranlib && $(MAKE) && $(MAKE) install DESTDIR= ) \
		> ../build.log 2>&1 || { tail -30 ../build.log; \
		echo "newlib build failed; full log in $(NEWLIB)/build.log"; exit 1; }
	@touch $@

# --- generated headers -----------------------------------------------------
$(BUILD)/include/clockbench/version.h: FORCE
	@mkdir -p $(@D)
	@printf '#define CLOCKBENCH_VERSION "%s"\n' '$(VERSION_STRING)' > $@.tmp
	@cmp -s $@.tmp $@ && rm $@.tmp || mv $@.tmp $@

# The Xen public headers are used in place, without exposing /usr/include.
$(BUILD)/include/xen:
	@if [ ! -d /usr/include/xen ]; then \
		echo "Xen public headers missing: install libxen-dev (make deps)"; \
		exit 1; fi
	@mkdir -p $(@D)
	@ln -sfn /usr/include/xen $@

# KVM's paravirtual ABI (asm/kvm_para.h: the steal-time record and its MSR) from
# Debian's linux-libc-dev, in place, with the uapi headers it includes, and nothing
# else of /usr/include.
$(BUILD)/include/asm:
	@mkdir -p $(@D)
	@ln -sfn /usr/include/x86_64-linux-gnu/asm $@
$(BUILD)/include/linux $(BUILD)/include/asm-generic:
	@mkdir -p $(@D)
	@ln -sfn /usr/include/$(@F) $@

# --- kernel objects and images --------------------------------------------
define env_rules
$(BUILD)/$(1)/%.o: %.c $(NEWLIB_STAMP) | $(GENERATED)
	@mkdir -p $$(@D)
	@echo "  CC      $$< ($(1))"
	@$(CC) $$(KERNEL_CPPFLAGS) $$(KERNEL_CFLAGS) -c $$< -o $$@

$(BUILD)/$(1)/%.o: %.S $(NEWLIB_STAMP) | $(GENERATED)
	@mkdir -p $$(@D)
	@echo "  AS      $$< ($(1))"
	@$(CC) $$(KERNEL_CPPFLAGS) $$(KERNEL_CFLAGS) -c $$< -o $$@
endef
$(foreach e,$(ENVS),$(eval $(call env_rules,$(e))))

# Exception and interrupt handlers that return to the interrupted code must
# not touch its SSE registers, and ring 0 runs under hypervisors that may
# emulate guest ring 0 without SSE (platform/hvm64/ring0.h): general
# registers only, and no library idioms.  Such a source says so itself, with
# CLOCKBENCH_GPR_ONLY in a comment.
GPR_ONLY_SRCS := $(shell grep -l CLOCKBENCH_GPR_ONLY $(COMMON_SRCS) \
	$(foreach e,$(ENVS),$(call layer_srcs,platform/$(e))))
GPR_ONLY_OBJS := $(foreach e,$(ENVS),$(call env_objs,$(e),$(filter \
	$(call env_srcs,$(e)),$(GPR_ONLY_SRCS))))
$(GPR_ONLY_OBJS): KERNEL_CFLAGS += -mgeneral-regs-only -fno-builtin \
	-fno-tree-loop-distribute-patterns

# -MMD leaves out -isystem headers, so name the generated one.
$(OBJDIR)/kernel/main.o $(BUILD)/pv64/kernel/main.o: \
	$(BUILD)/include/clockbench/version.h

$(LDS): boot/link.lds.S boot/boot.h
	@mkdir -p $(@D)
	@$(CC) -E -P -x c -I. $< -o $@

define link_kernel
	@echo "  LD      $@"
	@$(CC) $(KERNEL_LDFLAGS) -Wl,-e,$(1) -T $(LDS) -o $@ $(filter %.o,$^) \
		-Wl,--start-group $(NEWLIB_LIBS) $(LIBGCC) -Wl,--end-group
endef

# Multiboot 2 for GRUB, and PVH for QEMU -kernel and Xen: one ELF64.
$(BUILD)/clockbench.elf: $(KERNEL_OBJS) $(call HEAD_OBJ,multiboot2) \
		$(call HEAD_OBJ,pvh) $(LDS)
	$(call link_kernel,multiboot2_entry)

# Multiboot 1 for QEMU -kernel, whose loader takes only 32-bit ELF files.
$(OBJDIR)/clockbench-mb1.elf64: $(KERNEL_OBJS) $(call HEAD_OBJ,multiboot1) \
		$(LDS)
	$(call link_kernel,multiboot1_entry)

$(BUILD)/clockbench-mb1.elf: $(OBJDIR)/clockbench-mb1.elf64
	@echo "  OBJCOPY $@"
	@$(OBJCOPY) -O elf32-i386 $< $@

# The Xen PV image: its own environment's objects and head.
$(BUILD)/clockbench-xenpv.elf: $(PV64_OBJS) $(BUILD)/pv64/boot/head-xenpv.o \
		$(LDS)
	$(call link_kernel,xenpv_entry)

# --- GRUB ISO (BIOS and UEFI) ----------------------------------------------
ISO_ARGS ?=
$(BUILD)/iso-args: FORCE
	@mkdir -p $(@D)
	@echo '$(ISO_ARGS)' | cmp -s - $@ || echo '$(ISO_ARGS)' > $@

iso: $(BUILD)/clockbench.iso
$(BUILD)/clockbench.iso: $(BUILD)/clockbench.elf boot/grub.cfg $(BUILD)/iso-args
	@echo "  ISO     $@"
	@rm -rf $(BUILD)/iso && mkdir -p $(BUILD)/iso/boot/grub
	@cp $(BUILD)/clockbench.elf $(BUILD)/iso/boot/clockbench.elf
	@sed "s|@ISO_ARGS@|$(ISO_ARGS)|" boot/grub.cfg > $(BUILD)/iso/boot/grub/grub.cfg
	@grub-mkrescue -o $@ $(BUILD)/iso > $(BUILD)/iso.log 2>&1 || \
		{ cat $(BUILD)/iso.log; exit 1; }

# --- running -----------------------------------------------------------------
# The targets a user types first on a fresh machine (run, run-xen, matrix,
# check, bench) install the packages (deps) and then run make again: what this
# Makefile looks up while it is read (the newlib tarball, gcc's paths, git's
# revision) must be looked up after the install, not before.
run: deps
	@$(MAKE) --no-print-directory images
	$(PYTHON) tools/clockbench run --no-build $(RUN_FLAGS) -- $(ARGS)

# Xen 4.17 (Debian's xen-hypervisor-4.17-amd64) boots the PV image as its dom0
# under QEMU TCG (docs/xen.md). QEMU's multiboot loader takes only the raw
# ELF32, so Xen is decompressed into build/ once, and again when /boot's is newer.
XEN_GZ := /boot/xen-4.17-amd64.gz
$(XEN_GZ):
	@echo "$@ is missing: install the Debian package xen-hypervisor-4.17-amd64 (make deps)"
	@exit 1

$(BUILD)/xen-4.17-amd64: $(XEN_GZ)
	@mkdir -p $(@D)
	@echo "  GUNZIP  $@"
	@gunzip -c $< > $@

# Xen with clockbench as its PVH dom0 (docs/xen.md): GRUB loads Xen by
# multiboot 2, and the image as dom0's kernel.
xen-iso: $(BUILD)/clockbench-xen.iso
$(BUILD)/clockbench-xen.iso: $(BUILD)/clockbench.elf boot/grub-xen.cfg $(XEN_GZ)
	@echo "  ISO     $@"
	@rm -rf $(BUILD)/xen-iso && mkdir -p $(BUILD)/xen-iso/boot/grub
	@cp $(BUILD)/clockbench.elf $(BUILD)/xen-iso/boot/clockbench.elf
	@cp $(XEN_GZ) $(BUILD)/xen-iso/boot/xen.gz
	@cp boot/grub-xen.cfg $(BUILD)/xen-iso/boot/grub/grub.cfg
	@grub-mkrescue -o $@ $(BUILD)/xen-iso > $(BUILD)/xen-iso.log 2>&1 || \
		{ cat $(BUILD)/xen-iso.log; exit 1; }

# A Linux dom0 (Debian 12's kernel, xl and its daemons, busybox) that starts clockbench
# as a PV, PVH or HVM domU of Xen under QEMU (docs/dom0.md).  tools/dom0-build downloads
# the packages dom0/packages.cfg pins into build/dom0/debs/ once; the initramfs holds
# the files dom0/contents.cfg names, the images among them.
DOM0 := $(BUILD)/dom0
DOM0_LOCAL := $(sort $(shell awk '$$1 == "local" { print $$2 }' dom0/contents.cfg \
	dom0/domu-contents.cfg))
DOM0_BUILDER := tools/dom0-build tools/clockbench_lib/dom0/dom0build.py tools/clockbench_lib/dom0/bzimage.py \
	tools/clockbench_lib/dom0/cpio.py tools/clockbench_lib/dom0/elffile.py \
	tools/clockbench_lib/base/paths.py dom0/packages.cfg dom0/contents.cfg \
	dom0/domu-contents.cfg

.PHONY: dom0
dom0: $(DOM0)/initrd.img
# The packages and the kernel need nothing of this tree's own builds, so make check
# unpacks them beside newlib's build (dom0-stage); the initramfs, which holds the images,
# comes after them.
.PHONY: dom0-stage
dom0-stage: $(DOM0)/vmlinux
$(DOM0)/vmlinuz $(DOM0)/vmlinux &: $(DOM0_BUILDER)
	@echo "  DOM0    $(DOM0)/vmlinuz $(DOM0)/vmlinux $(DOM0)/staging"
	@$(PYTHON) tools/dom0-build --stage --out $(DOM0)
$(DOM0)/initrd.img $(DOM0)/domu-initrd.img &: $(DOM0)/vmlinux $(DOM0_BUILDER) $(DOM0_LOCAL)
	@echo "  DOM0    $(DOM0)/initrd.img $(DOM0)/domu-initrd.img"
	@$(PYTHON) tools/dom0-build --out $(DOM0)

.PHONY: run-xen
run-xen: deps
	@$(MAKE) --no-print-directory $(BUILD)/clockbench-xenpv.elf \
		$(BUILD)/xen-4.17-amd64
	$(PYTHON) tools/clockbench run --boot xen --smp 2 --no-build $(RUN_FLAGS) \
		-- $(ARGS)

# --- environment matrix (docs/compare.md) -----------------------------------
# Boots the image in every environment this machine can run; MATRIX_FLAGS are
# options of tools/clockbench matrix (e.g. --repeats 5).
.PHONY: matrix
matrix: deps
	@$(MAKE) --no-print-directory images iso $(BUILD)/xen-4.17-amd64 \
		$(BUILD)/clockbench-xen.iso
	$(PYTHON) tools/clockbench matrix $(MATRIX_FLAGS)

# One small matrix, booted for real (TCG pc and Xen), then compared and
# plotted: the path `make matrix && tools/clockbench compare` takes.
MATRIX_CHECK := $(BUILD)/matrix-check
.PHONY: matrix-check
matrix-check: images $(BUILD)/xen-4.17-amd64
	@rm -rf $(MATRIX_CHECK)
	@$(PYTHON) tools/clockbench matrix --no-build --repeats 1 \
		--env tcg-pc xen-hpet --out $(MATRIX_CHECK)/results
	@$(PYTHON) tools/clockbench compare $(MATRIX_CHECK)/results \
		--plot $(MATRIX_CHECK)/plots > $(MATRIX_CHECK)/compare.txt
	@grep -q 'p50 / tcg-pc' $(MATRIX_CHECK)/compare.txt && \
	grep -qE '^xen_pvclock +xen-hpet +1 +[0-9]' $(MATRIX_CHECK)/compare.txt && \
	for f in read-cost percentiles-tsc percentiles-xen_pvclock cross-cpu tick-cost; do \
		test -s $(MATRIX_CHECK)/plots/$$f.png && \
		test -s $(MATRIX_CHECK)/plots/$$f.svg || exit 1; done && \
	echo "matrix-check: tcg-pc and xen-hpet compared; plots written" || \
	{ echo "matrix-check: FAILED (see $(MATRIX_CHECK))"; exit 1; }

# The verdict end to end (docs/verdict.md), from records the boot tests left: the image
# under TCG at rest and across a stop (tcg-pc) and as Xen's PV dom0 (xen-pv-dom0), each
# beside Linux's own decisions in the same environment (clockbench-user's documents).
# It fails when a watchdog prediction disagrees with Linux (the command's exit 1), when
# an environment has no verdict or checked no prediction against Linux.
VERDICT_CHECK := $(BUILD)/verdict-check
VERDICT_RECORDS := smp-2 life-stop-tcg linux-pc linux-stop-tcg xen-report-2 xen-linux-dom0
VERDICT_ENVS := tcg-pc xen-pv-dom0
.PHONY: verdict-check
verdict-check:
	@rm -rf $(VERDICT_CHECK) && mkdir -p $(VERDICT_CHECK)
	@$(PYTHON) tools/clockbench verdict $(VERDICT_RECORDS:%=$(BUILD)/tests/%.json) \
		--json $(VERDICT_CHECK)/verdict.json > $(VERDICT_CHECK)/verdict.txt || \
		{ cat $(VERDICT_CHECK)/verdict.txt; echo "verdict-check: FAILED"; exit 1; }
	@$(PYTHON) -c 'import json, sys; \
		verdicts = {v["environment"]: v for v in json.load(open(sys.argv[1]))["verdicts"]}; \
		bad = [e for e in sys.argv[2:] if e not in verdicts or not verdicts[e]["agreements"]]; \
		bad and sys.exit("verdict-check: no verdict, or nothing checked against Linux, for " \
		                 + ", ".join(bad)); \
		print("verdict-check: " + "; ".join(e + ": use " + str(verdicts[e]["recommended"]["clocksource"]) \
		      + ", " + str(len(verdicts[e]["agreements"])) + " predictions agree with Linux" \
		      for e in sys.argv[2:]))' $(VERDICT_CHECK)/verdict.json $(VERDICT_ENVS)

# --- tests -----------------------------------------------------------------
# The Linux dom0 before the tool tests: they run dom0/clockbench-domu under its busybox
# sh as well as dash (skipped, saying so, where it is not built).
# `check` installs what the tests need (deps), then runs them all (`test`, which installs
# nothing: on a machine set up once, `make test` runs the same suite).
check: deps
	@$(MAKE) --no-print-directory test

# What the boots need is built a job a core (JOBS=1 for one at a time); newlib, then the
# images, then the dom0's initramfs that holds them, is the longest chain.  Beside it, a
# second make at a lower priority builds and runs what needs no image (format, layers,
# lint, the unit tests, the fuzz smoke run, the tool tests that read only the sources):
# it takes the cores the chain leaves idle (newlib's nine configures run one after
# another) without slowing it.  Then the boot tests, with the other tool tests beside
# them (boot-and-tool-tests), then the two checks that read the boots' records.
JOBS ?= $(shell nproc 2>/dev/null || echo 1)
TEST_BUILDS = images dom0-stage user iso guest-options dom0 $(BUILD)/xen-4.17-amd64 \
	$(BUILD)/clockbench-xen.iso
TEST_CHECKS = $(UNIT_BINS) $(FUZZ_BINS) $(BUILD)/host/test_report \
	$(BUILD)/host/test_user_report $(BUILD)/host/test_hist format-check layers lint \
	fuzz-smoke unit-tests tool-tests-early
test:
	@$(MAKE) --no-print-directory $(BUILD)/include/xen
	@nice -n 10 $(MAKE) --no-print-directory -j$(JOBS) $(TEST_CHECKS) & checks=$$!; \
	$(MAKE) --no-print-directory -j$(JOBS) $(TEST_BUILDS); built=$$?; \
	wait $$checks; checked=$$?; [ $$built -eq 0 ] && [ $$checked -eq 0 ]
	@$(MAKE) --no-print-directory boot-and-tool-tests
	@$(MAKE) --no-print-directory verdict-check
	@$(MAKE) --no-print-directory matrix-check

format-check:
	@echo "  FORMAT  checking $(words $(FORMAT_SRCS)) files against .clang-format"
	@clang-format --dry-run --Werror $(FORMAT_SRCS)

format:
	@clang-format -i $(FORMAT_SRCS)

# The folders include one another only as tools/layers.cfg allows, with no
# circle among them; the host tool's subpackages import one another only as it
# allows too, and its modules in no circle.
layers:
	@$(PYTHON) tools/layers

# The table of every check and its tolerance in docs/report-format.md is written from
# the C sources (tools/check-rules); test_check_rules.py fails when it is stale.
docs:
	@echo "  GEN     docs/report-format.md (check rules)"
	@$(PYTHON) tools/check-rules --write

# Unused imports and names, undefined names: Debian's pyflakes.
PYTHON_SRCS := tools/clockbench tools/bench tools/layers tools/check-rules tools/dom0-build tools/install \
	tools/lava-lab-check \
	tools/clockbench_lib tests/tools tests/tools/run tests/fuzz tests/fuzz/run
lint:
	@echo "  LINT    pyflakes over $(PYTHON_SRCS)"
	@$(PYTHON) -m pyflakes $(PYTHON_SRCS)

define unit_rule
$(BUILD)/host/test_$(1): tests/unit/test_$(1).c $(call unit_sources,$(1)) \
		| $(BUILD)/include/xen
	@mkdir -p $$(@D)
	@echo "  HOSTCC  $$@"
	@$(CC) $(HOST_CFLAGS) -o $$@ $$^ -lcmocka -lm
endef
$(foreach t,$(UNIT_TESTS),$(eval $(call unit_rule,$(t))))

unit-tests: $(UNIT_BINS)
	@passed=0; failed=0; for t in $(UNIT_BINS); do \
		if $$t; then passed=$$((passed + 1)); \
		else failed=$$((failed + 1)); echo "FAILED: $$t"; fi; \
	done; echo "unit: $$passed passed, $$failed failed"; [ $$failed -eq 0 ]

# test_report_host.py validates the JSON the host-built report writes;
# test_os_layer.py runs clockbench-user on this host (`tools/clockbench host`).
# test_guestopts.py compares the runner's option checks with the image's parser, run on
# this host by build/host/guest-options; test_lava_run.py boots the images under lava-run.
# One module more than cores at once: many wait on a subprocess, a fake QEMU's timeout or
# a script's poll, and two left a fifth of two cores idle (138 s; 120 s three at once).
TOOL_JOBS ?= $(shell echo $$(( $(JOBS) + 1 )))
# make test runs them in two parts: those that need nothing built (NEEDS_BUILD = False,
# tests/tools/run) beside the build, the others once it has ended.
TOOL_TEST_NEEDS = $(BUILD)/host/test_report $(BUILD)/host/test_user_report \
	$(BUILD)/host/test_hist $(USER_PROGRAM) $(GUEST_OPTIONS) $(IMAGES) $(BUILD)/clockbench.iso
tool-tests: $(TOOL_TEST_NEEDS)
	@$(PYTHON) tests/tools/run --jobs $(TOOL_JOBS)
tool-tests-early:
	@$(PYTHON) tests/tools/run --jobs $(TOOL_JOBS) --only build-free
tool-tests-late: $(TOOL_TEST_NEEDS)
	@$(PYTHON) tests/tools/run --jobs $(TOOL_JOBS) --only built

BOOT_TEST_NEEDS = images iso $(BUILD)/xen-4.17-amd64 $(BUILD)/clockbench-xen.iso \
	$(DOM0)/initrd.img
boot-tests: $(BOOT_TEST_NEEDS)
	@$(PYTHON) tools/clockbench test --no-build

# make test's last long step: the tool tests that need the build run beside the boots, at
# a lower priority, once the boots that must run alone (they judge timer ticks) are over;
# each fills the cores the other leaves idle.
boot-and-tool-tests: $(BOOT_TEST_NEEDS) $(TOOL_TEST_NEEDS)
	@$(PYTHON) tools/clockbench test --no-build \
		--beside 'nice -n 10 $(PYTHON) tests/tools/run --jobs $(TOOL_JOBS) --only built'

# --- fuzzing (docs/fuzzing.md) ----------------------------------------------
# libFuzzer targets in tests/fuzz/, built by Debian's clang with ASan and
# UBSan over the parsers' own sources: each target links the sources of its
# parser's unit test (tests/tests.cfg), so it fuzzes what the kernel runs.
# tests/fuzz/run seeds them from tests/fixtures, runs the kept regression
# inputs, fuzzes each for the time given (one process at a time) and prints
# executions and coverage per target.  Working corpora stay in $(FUZZ)/.
FUZZ := $(BUILD)/fuzz
FUZZ_CC := clang
FUZZ_CFLAGS := $(filter-out -fsanitize=%,$(HOST_CFLAGS)) \
	-fsanitize=fuzzer,address,undefined
FUZZ_SECONDS ?= 180
# The smoke run in make check: every kept input, then 2 s of new inputs a target (13
# targets, 26 CPU-seconds; 5 s took 65 beside the build on two cores). make fuzz goes deep.
FUZZ_SMOKE_SECONDS ?= 2
# FUZZ_TARGETS="acpi options" on the command line builds and fuzzes only those.
FUZZ_TARGETS := acpi boot_mb1 boot_mb2 boot_pvh boot_xen_pv options pvclock \
	xen xen_console xenstore cpuid hist hostline kernlog
# Per target: the source in tests/fuzz/ (default fuzz_TARGET.c), the unit
# tests whose sources it links (default TARGET), and its -D flags.  A boot
# target goes on to parse the options and open ACPI as the kernel does.
FUZZ_BOOT_UNITS := boot_info options acpi
$(foreach p,mb1 mb2 pvh xen_pv,$(eval FUZZ_SRC_boot_$(p) := boot_info) \
	$(eval FUZZ_UNITS_boot_$(p) := $(FUZZ_BOOT_UNITS)))
FUZZ_DEFS_boot_mb1 := -DFUZZ_PROTOCOL=BOOT_PROTO_MULTIBOOT1
FUZZ_DEFS_boot_mb2 := -DFUZZ_PROTOCOL=BOOT_PROTO_MULTIBOOT2
FUZZ_DEFS_boot_pvh := -DFUZZ_PROTOCOL=BOOT_PROTO_PVH
FUZZ_DEFS_boot_xen_pv := -DFUZZ_PROTOCOL=BOOT_PROTO_XEN_PV
FUZZ_UNITS_pvclock := pvclock pvclock_step
FUZZ_UNITS_xen_console := xen
FUZZ_UNITS_xenstore := xen
FUZZ_UNITS_cpuid := cpuinfo hv_tsc
FUZZ_UNITS_kernlog := user
fuzz_source = tests/fuzz/fuzz_$(or $(FUZZ_SRC_$(1)),$(1)).c
fuzz_units = $(or $(FUZZ_UNITS_$(1)),$(1))
fuzz_sources = $(sort $(foreach u,$(call fuzz_units,$(1)),$(call unit_sources,$(u))))
FUZZ_BINS := $(patsubst %,$(FUZZ)/fuzz_%,$(FUZZ_TARGETS))
FUZZ_RUN = $(PYTHON) tests/fuzz/run --build $(FUZZ)
HOST_FUZZ := $(wildcard tests/fuzz/host_fuzz.py)

define fuzz_rule
$(FUZZ)/fuzz_$(1): $(call fuzz_source,$(1)) tests/fuzz/fuzz_phys.c \
		tests/fuzz/fuzz_phys.h $(call fuzz_sources,$(1)) \
		| $(BUILD)/include/xen
	@mkdir -p $$(@D)
	@echo "  FUZZCC  $$@"
	@$(FUZZ_CC) $(FUZZ_CFLAGS) $(FUZZ_DEFS_$(1)) -o $$@ \
		$(call fuzz_source,$(1)) tests/fuzz/fuzz_phys.c \
		$(call fuzz_sources,$(1)) -lm
endef
$(foreach t,$(FUZZ_TARGETS),$(eval $(call fuzz_rule,$(t))))

fuzz-targets: $(FUZZ_BINS)

fuzz: deps
	@$(MAKE) --no-print-directory fuzz-targets
	@$(FUZZ_RUN) --seconds $(FUZZ_SECONDS) $(FUZZ_TARGETS)
	$(if $(HOST_FUZZ),@$(PYTHON) $(HOST_FUZZ) --seconds $(FUZZ_SECONDS))

# A few seconds of each, and every kept regression input: part of `make check`.
fuzz-smoke: fuzz-targets
	@$(FUZZ_RUN) --jobs $(JOBS) --seconds $(FUZZ_SMOKE_SECONDS) $(FUZZ_TARGETS)
	$(if $(HOST_FUZZ),@$(PYTHON) $(HOST_FUZZ) --seconds $(FUZZ_SMOKE_SECONDS))

# --- installing ------------------------------------------------------------
# tools/install lays the tree out under PREFIX/share/clockbench (where the installed
# runner finds its images, schemas and test list: tools/clockbench_lib/base/paths.py), links
# PREFIX/bin/clockbench and clockbench-user into it, and lists every file and folder it
# made, which is what uninstall removes.  The Xen ISO, Xen's binary and the Linux dom0 are
# installed when they were built (make xen-iso, make dom0).
PREFIX ?= /usr/local
DESTDIR ?=
INSTALL_BUILT = $(IMAGES) $(USER_PROGRAM) $(BUILD)/clockbench.iso $(GUEST_OPTIONS) $(wildcard \
	$(BUILD)/clockbench-xen.iso $(BUILD)/xen-4.17-amd64 $(DOM0)/vmlinuz $(DOM0)/vmlinux \
	$(DOM0)/initrd.img $(DOM0)/domu-initrd.img)
CLI_SRCS := tools/clockbench $(wildcard tools/clockbench_lib/*.py tools/clockbench_lib/*/*.py)

.PHONY: install uninstall man completion
man: $(BUILD)/clockbench.1
completion: $(BUILD)/clockbench.bash-completion

# The man page from --help (help2man), with every subcommand's --help after it.
# tools/clockbench.h2m adds SYNOPSIS, EXAMPLES, EXIT STATUS and FILES.
$(BUILD)/clockbench.1: $(CLI_SRCS) tools/clockbench.h2m $(BUILD)/include/clockbench/version.h
	@mkdir -p $(@D)
	@echo "  MAN     $@"
	@cp tools/clockbench.h2m $@.h2m
	@for c in run test parse matrix compare host; do \
		printf '[COMMAND: clockbench %s]\n.nf\n' $$c; \
		$(PYTHON) tools/clockbench $$c --help | \
			sed -e 's/\\/\\e/g' -e 's/-/\\-/g' -e "s/^[.']/\\\\\&&/"; \
		printf '.fi\n'; done >> $@.h2m
	@help2man --no-info --version-string='clockbench $(VERSION_STRING)' --include=$@.h2m \
		--name='boot and judge the clockbench clock-measurement images under QEMU and Xen' \
		--output=$@ tools/clockbench

# Bash completion: Debian's python3-argcomplete asks the runner's own parser.
$(BUILD)/clockbench.bash-completion:
	@mkdir -p $(@D)
	@echo "  COMPL   $@"
	@register-python-argcomplete clockbench > $@

install: images user iso guest-options man completion
	@$(PYTHON) tools/install --prefix '$(PREFIX)' --destdir '$(DESTDIR)' \
		--revision '$(GIT_REV)' install \
		$(INSTALL_BUILT)

uninstall:
	@$(PYTHON) tools/install --prefix '$(PREFIX)' --destdir '$(DESTDIR)' uninstall

# --- packages --------------------------------------------------------------
deps:
	@missing=$$(for p in $(DEBIAN_PACKAGES); do \
		dpkg-query -W -f='$${Status}\n' $$p 2>/dev/null | \
		grep -q 'install ok installed' || echo $$p; done); \
	[ -z "$$missing" ] && exit 0; \
	if [ "$$(id -u)" = 0 ]; then \
		echo "  DEPS    installing:" $$missing; \
		apt-get update -q >/dev/null && \
		DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $$missing \
			>/dev/null || exit 1; \
	else \
		echo "clockbench needs these Debian packages; as root run:"; \
		echo "  apt-get install" $$missing; exit 1; \
	fi

clean:
	rm -rf $(filter-out $(NEWLIB),$(wildcard $(BUILD)/*))

-include $(shell find $(addprefix $(BUILD)/,$(ENVS)) -name '*.d' 2>/dev/null)

# --- a fresh machine ---------------------------------------------------------
# The README's two commands, first time, in a fresh Debian 12 tree that has
# nothing but make (tools/fresh-check; takes minutes, as root).
FRESH_PACKAGES := mmdebstrap
.PHONY: fresh-check
fresh-check:
	@$(MAKE) --no-print-directory deps DEBIAN_PACKAGES="$(FRESH_PACKAGES)"
	tools/fresh-check

# --- benchmarks --------------------------------------------------------------
# Boots the default run under TCG, KVM and Xen, prints each clock's costs and
# where the time went, and holds the run to the speed goals as ratios measured
# in one invocation; the KVM run is also timed against BENCH_BASELINE's, built
# in a worktree (6ce051c: the tree before port I/O stopped taking the #GP
# detour).  KVM_UNIT_TESTS=DIR (a built kvm-unit-tests tree, outside this one)
# also times the default TCG run against its three clock tests.  BENCH_FLAGS
# are options of tools/bench (e.g. --pairs 3).
BENCH_BASELINE ?= 6ce051c
.PHONY: bench
bench: deps
	@$(MAKE) --no-print-directory images $(BUILD)/xen-4.17-amd64
	$(PYTHON) tools/bench --no-build $(if $(BENCH_BASELINE),--baseline $(BENCH_BASELINE)) \
		$(if $(KVM_UNIT_TESTS),--kvm-unit-tests $(KVM_UNIT_TESTS)) $(BENCH_FLAGS)

# --- a LAVA lab on this machine (docs/lava.md) ---------------------------------
# PostgreSQL, lava-server's web service, scheduler and a worker, started by
# tools/lava-lab-check on loopback (no systemd needed), the QEMU job submitted with
# lavacli, its results and log fetched and read back by `lava results`; everything
# it started is stopped.  Not part of check: the packages are ~90 and it takes minutes.
LAVA_LAB_PACKAGES := postgresql lava-server lavacli
.PHONY: lava-lab-check
lava-lab-check: images
	@$(MAKE) --no-print-directory deps DEBIAN_PACKAGES="$(LAVA_LAB_PACKAGES)"
	@$(PYTHON) tools/lava-lab-check
