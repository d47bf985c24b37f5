/* SPDX-License-Identifier: BSD-3-Clause */
/* MAC learning table over a fake clock. */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include "fe_mac.h"

static struct fe_mac_table *t;
static const uint8_t A[6] = {0x02, 0xfe, 0, 0, 0, 1};
static const uint8_t B[6] = {0x02, 0xfe, 0, 0, 0, 2};

static void
init(void)
{
	t = malloc(sizeof(*t));
	cr_assert_not_null(t);
	fe_mac_init(t, 1000);
}

static void
fini(void)
{
	free(t);
}

TestSuite(mac, .init = init, .fini = fini);

Test(mac, unknown_is_minus_one)
{
	cr_assert_eq(fe_mac_lookup(t, A, 0), -1);
}

Test(mac, learn_then_lookup)
{
	fe_mac_learn(t, A, 3, 100);
	fe_mac_learn(t, B, 1, 100);
	cr_assert_eq(fe_mac_lookup(t, A, 150), 3);
	cr_assert_eq(fe_mac_lookup(t, B, 150), 1);
	cr_assert_eq(t->learned, 2);
	cr_assert_eq(fe_mac_count(t, 150), 2);
}

Test(mac, ageing)
{
	fe_mac_learn(t, A, 3, 100);
	cr_assert_eq(fe_mac_lookup(t, A, 1100), 3, "exactly age_ticks old is still valid");
	cr_assert_eq(fe_mac_lookup(t, A, 1101), -1, "older than age_ticks is forgotten");
	fe_mac_learn(t, A, 3, 1500);
	cr_assert_eq(fe_mac_lookup(t, A, 2000), 3, "re-learned after ageing");
}

Test(mac, refresh_extends_life)
{
	fe_mac_learn(t, A, 3, 0);
	fe_mac_learn(t, A, 3, 900);
	cr_assert_eq(fe_mac_lookup(t, A, 1800), 3);
	cr_assert_eq(t->learned, 1, "a refresh is not a new entry");
}

Test(mac, station_move)
{
	fe_mac_learn(t, A, 3, 0);
	fe_mac_learn(t, A, 5, 10);
	cr_assert_eq(fe_mac_lookup(t, A, 20), 5);
	cr_assert_eq(t->learned, 1, "one address");
	cr_assert_eq(t->moves, 1, "moved once");
}

Test(mac, stamps_out_of_order_do_not_expire)
{
	/* arrival stamps from different links are not monotonic */
	fe_mac_learn(t, A, 3, 5000);
	cr_assert_eq(fe_mac_lookup(t, A, 4990), 3);
	fe_mac_learn(t, A, 3, 4980);
	cr_assert_eq(fe_mac_lookup(t, A, 5900), 3, "an older stamp must not rewind the entry");
}

Test(mac, full_table_counts_and_keeps_working)
{
	unsigned learned_ok = 0;

	for (unsigned i = 0; i < FE_MAC_SLOTS + 500; i++) {
		uint8_t m[6] = {
			0x02,	   0, (uint8_t)(i >> 24), (uint8_t)(i >> 16), (uint8_t)(i >> 8),
			(uint8_t)i};

		fe_mac_learn(t, m, (uint16_t)(i % 7), 0);
	}
	for (unsigned i = 0; i < FE_MAC_SLOTS + 500; i++) {
		uint8_t m[6] = {
			0x02,	   0, (uint8_t)(i >> 24), (uint8_t)(i >> 16), (uint8_t)(i >> 8),
			(uint8_t)i};
		int port = fe_mac_lookup(t, m, 1);

		if (port >= 0) {
			cr_assert_eq(port, (int)(i % 7), "address %u on the wrong port", i);
			learned_ok++;
		}
	}
	cr_assert_eq(learned_ok + t->full, FE_MAC_SLOTS + 500,
		     "every address is either learned or counted as not learned");
	cr_assert_gt(t->full, 0);
	cr_assert_leq(learned_ok, FE_MAC_SLOTS);
}

Test(mac, entries_for_reports)
{
	uint8_t a[6];
	uint16_t port;
	unsigned n = 0;

	fe_mac_learn(t, A, 3, 100);
	fe_mac_learn(t, B, 1, 100);
	for (unsigned i = 0; i < FE_MAC_SLOTS; i++) {
		if (!fe_mac_entry(t, i, 150, a, &port))
			continue;
		n++;
		cr_assert(memcmp(a, A, 6) == 0 ? port == 3 : memcmp(a, B, 6) == 0 && port == 1,
			  "entry %u: unexpected address or port %u", i, port);
	}
	cr_assert_eq(n, 2);
	cr_assert_eq(fe_mac_count(t, 150), 2);
	cr_assert_eq(fe_mac_count(t, 2000), 0, "aged out");
}
