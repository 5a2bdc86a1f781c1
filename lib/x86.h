/* SPDX-License-Identifier: MIT */
/*
 * x86 architecture constants, each defined once, for C and assembly alike:
 * control-register and page-table bits, the MSRs and CPUID leaves more
 * than one file needs, and the exception vectors (Intel SDM volume 3).
 */
#ifndef CLOCKBENCH_LIB_X86_H
#define CLOCKBENCH_LIB_X86_H

#ifdef __ASSEMBLER__
#define X86_U(x)   x
#define X86_ULL(x) x
#else
#define X86_U(x)   x##u
#define X86_ULL(x) x##ull
#endif

#define X86_CR0_PE (X86_U(1) << 0)
#define X86_CR0_MP (X86_U(1) << 1)
#define X86_CR0_EM (X86_U(1) << 2)
#define X86_CR0_TS (X86_U(1) << 3)
#define X86_CR0_WP (X86_U(1) << 16)
#define X86_CR0_NW (X86_U(1) << 29)
#define X86_CR0_CD (X86_U(1) << 30)
#define X86_CR0_PG (X86_U(1) << 31)

#define X86_CR4_PAE	   (X86_U(1) << 5)
#define X86_CR4_OSFXSR	   (X86_U(1) << 9)
#define X86_CR4_OSXMMEXCPT (X86_U(1) << 10)

/* Page-table entry bits. */
#define PTE_P	      (X86_ULL(1) << 0)
#define PTE_W	      (X86_ULL(1) << 1)
#define PTE_U	      (X86_ULL(1) << 2)
#define PTE_PWT	      (X86_ULL(1) << 3)
#define PTE_PCD	      (X86_ULL(1) << 4)
#define PTE_PS	      (X86_ULL(1) << 7)
#define PTE_ADDR_MASK X86_ULL(0x000ffffffffff000)

#define MSR_IA32_TSC	      0x00000010
#define MSR_IA32_TSC_ADJUST   0x0000003b
#define MSR_IA32_TSC_DEADLINE 0x000006e0
#define MSR_EFER	      0xc0000080
#define MSR_TSC_AUX	      0xc0000103
#define EFER_LME	      (X86_U(1) << 8)
#define EFER_LMA	      (X86_U(1) << 10)

/* CPUID leaves. */
#define CPUID_FEATURES	    0x00000001 /* EDX, ECX: feature bits */
#define CPUID_EXT_FEATURES7 0x00000007 /* sub-leaf 0: EBX, ECX, EDX */
#define CPUID_EXT_FEATURES  0x80000001
#define CPUID_POWER_MGMT    0x80000007

/* Exception vectors. */
#define X86_EXC_DE    0
#define X86_EXC_NMI   2
#define X86_EXC_BP    3
#define X86_EXC_UD    6
#define X86_EXC_DF    8
#define X86_EXC_GP    13
#define X86_EXC_PF    14
#define X86_EXC_MC    18
#define NR_EXCEPTIONS 32

#endif
