// SPDX-License-Identifier: MIT
/*
 * Unit tests: the legacy virtqueue layout (lib/vring.c) against the sizes
 * the virtio specification's vring_size() gives, and the sizes it refuses.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "lib/vring.h"

static void layouts(void **state)
{
	struct vring_layout l;

	(void)state;
	/* 128 entries (QEMU's virtio-serial): 2048 bytes of descriptors,
	 * 262 of available ring, the used ring on the next page. */
	assert_true(vring_layout(128, VRING_LEGACY_ALIGN, &l));
	assert_int_equal(l.avail_offset, 2048);
	assert_int_equal(l.used_offset, 4096);
	assert_int_equal(l.total_bytes, 8192);
	/* 256: 4096 + 518 bytes, so the used ring starts at 8192 and its
	 * 2054 bytes end the queue at 12288. */
	assert_true(vring_layout(256, VRING_LEGACY_ALIGN, &l));
	assert_int_equal(l.avail_offset, 4096);
	assert_int_equal(l.used_offset, 8192);
	assert_int_equal(l.total_bytes, 12288);
	assert_true(vring_layout(1, 64, &l));
	assert_int_equal(l.avail_offset, 16);
	assert_int_equal(l.used_offset, 64);
	assert_int_equal(l.total_bytes, 128);
}

static void refused(void **state)
{
	struct vring_layout l;

	(void)state;
	assert_false(vring_layout(0, VRING_LEGACY_ALIGN, &l));
	assert_false(vring_layout(100, VRING_LEGACY_ALIGN, &l));
	assert_false(vring_layout(65536, VRING_LEGACY_ALIGN, &l));
	assert_false(vring_layout(128, 3000, &l));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(layouts),
		cmocka_unit_test(refused),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
