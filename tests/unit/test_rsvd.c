/* SPDX-License-Identifier: BSD-3-Clause */
/* IEEE 802.1Q's reserved group addresses, and the cause of a frame to one. */
#include <criterion/criterion.h>
#include <string.h>

#include "fe_pfc.h"
#include "fe_rsvd.h"

static const uint8_t SRC[6] = {0x02, 0xfe, 0, 0, 0, 1};

Test(rsvd, the_sixteen_addresses_and_no_other)
{
	static const struct {
		uint8_t a[6];
		int rsvd;
	} t[] = {
		{{0x01, 0x80, 0xc2, 0, 0, 0x00}, 1},	   {{0x01, 0x80, 0xc2, 0, 0, 0x01}, 1},
		{{0x01, 0x80, 0xc2, 0, 0, 0x0e}, 1},	   {{0x01, 0x80, 0xc2, 0, 0, 0x0f}, 1},
		{{0x01, 0x80, 0xc2, 0, 0, 0x10}, 0}, /* 802.1D's all-LANs bridge management */
		{{0x01, 0x80, 0xc2, 0, 0, 0x21}, 0}, /* GVRP-era MRP: forwarded by a bridge */
		{{0x01, 0x80, 0xc2, 0, 1, 0x00}, 0},	   {{0x01, 0x00, 0x5e, 0, 0, 0x01}, 0},
		{{0xff, 0xff, 0xff, 0xff, 0xff, 0xff}, 0}, {{0x03, 0x80, 0xc2, 0, 0, 0x01}, 0},
		{{0x01, 0x80, 0xc3, 0, 0, 0x01}, 0},
	};

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		cr_expect_eq(fe_rsvd_addr(t[i].a), t[i].rsvd, "%02x:%02x:%02x:%02x:%02x:%02x",
			     t[i].a[0], t[i].a[1], t[i].a[2], t[i].a[3], t[i].a[4], t[i].a[5]);
}

/* A frame to dst with EtherType (or length) type and two payload bytes, tagged or not. */
static uint32_t
frame(uint8_t *f, uint8_t dst_last, int tagged, uint16_t type, uint8_t p0, uint8_t p1)
{
	uint32_t o = 12;

	memset(f, 0, 64);
	memcpy(f, (uint8_t[]){0x01, 0x80, 0xc2, 0, 0, dst_last}, 6);
	memcpy(f + 6, SRC, 6);
	if (tagged) {
		f[o++] = 0x81;
		f[o++] = 0x00;
		f[o++] = 0x60; /* PCP 3 */
		f[o++] = 0x00;
	}
	f[o++] = (uint8_t)(type >> 8);
	f[o++] = (uint8_t)type;
	f[o++] = p0;
	f[o] = p1;
	return 60;
}

Test(rsvd, causes)
{
	static const struct {
		const char *what;
		uint8_t dst;
		uint16_t type;
		uint8_t p0, p1;
		enum fe_rsvd want;
	} t[] = {
		{"802.3x pause", 0x01, 0x8808, 0x00, 0x01, FE_RSVD_PAUSE},
		{"802.1Qbb PFC", 0x01, 0x8808, 0x01, 0x01, FE_RSVD_PFC},
		{"MAC control, another opcode (EPON GATE)", 0x01, 0x8808, 0x00, 0x02,
		 FE_RSVD_OTHER},
		{"LLDP to nearest bridge", 0x0e, 0x88cc, 0x02, 0x07, FE_RSVD_LLDP},
		{"LLDP to nearest customer bridge", 0x00, 0x88cc, 0x02, 0x07, FE_RSVD_LLDP},
		{"STP BPDU (LLC 42/42)", 0x00, 39, 0x42, 0x42, FE_RSVD_STP},
		{"LLC, not a BPDU", 0x00, 39, 0xaa, 0xaa, FE_RSVD_OTHER},
		{"LACP", 0x02, 0x8809, 0x01, 0x01, FE_RSVD_SLOW},
		{"802.1X EAPOL", 0x03, 0x888e, 0x01, 0x00, FE_RSVD_OTHER},
	};
	uint8_t f[64];

	for (unsigned i = 0; i < sizeof(t) / sizeof(t[0]); i++)
		for (int tagged = 0; tagged <= 1; tagged++) {
			uint32_t len = frame(f, t[i].dst, tagged, t[i].type, t[i].p0, t[i].p1);

			cr_expect_eq(fe_rsvd_class(f, len), t[i].want, "%s%s: %s, want %s",
				     t[i].what, tagged ? " (tagged)" : "",
				     fe_rsvd_name(fe_rsvd_class(f, len)), fe_rsvd_name(t[i].want));
		}
}

/* The switch's own PFC frames (fe_pfc_frame(), toward a host) are of the class it stops
 * when a host sends them. */
Test(rsvd, the_pfc_frames_fabemu_sends_are_pfc)
{
	uint8_t f[64] = {0};

	fe_pfc_frame(f, SRC, 3, 65535);
	cr_assert(fe_rsvd_addr(f));
	cr_assert_eq(fe_rsvd_class(f, 60), FE_RSVD_PFC);
}

/* A PFC frame's class-enable vector and quanta, read back from the frames fabemu writes
 * (fe_pfc_frame_vec()), tagged too; a PAUSE or a PFC frame cut short: none. */
Test(rsvd, a_pfc_frames_vector_and_quanta)
{
	uint8_t f[64] = {0}, t[64] = {0};
	uint16_t q[8];

	fe_pfc_frame_vec(f, SRC, 0x28, 1000); /* priorities 3 and 5 */
	cr_assert_eq(fe_rsvd_pfc(f, 60, q), 0x28);
	for (unsigned p = 0; p < 8; p++)
		cr_assert_eq(q[p], (0x28 >> p & 1) ? 1000 : 0, "priority %u: %u", p, q[p]);
	fe_pfc_frame(f, SRC, 3, 0); /* an XON */
	cr_assert_eq(fe_rsvd_pfc(f, 60, q), 0x08);
	cr_assert_eq(q[3], 0);
	/* with an 802.1Q tag */
	memcpy(t, f, 12);
	t[12] = 0x81;
	t[15] = 0x03;
	memcpy(t + 16, f + 12, 60 - 16);
	fe_pfc_frame_vec(f, SRC, 0x01, 77);
	memcpy(t + 16, f + 12, 60 - 16);
	cr_assert_eq(fe_rsvd_pfc(t, 60, q), 0x01);
	cr_assert_eq(q[0], 77);
	cr_assert_eq(fe_rsvd_pfc(f, 33, q), -1, "its last quanta cut: no frame");
	cr_assert_eq(fe_rsvd_pfc(f, 34, q), 0x01);
	frame(f, 0x01, 0, 0x8808, 0x00, 0x01);
	cr_assert_eq(fe_rsvd_pfc(f, 60, q), -1, "a PAUSE is no PFC frame");
}

Test(rsvd, short_frames_are_other)
{
	uint8_t f[64];

	frame(f, 0x01, 0, 0x8808, 0x01, 0x01);
	cr_assert_eq(fe_rsvd_class(f, 14), FE_RSVD_OTHER, "no opcode: not a PFC frame");
	cr_assert_eq(fe_rsvd_class(f, 10), FE_RSVD_OTHER);
	cr_assert_eq(fe_rsvd_class(f, 16), FE_RSVD_PFC);
}

Test(rsvd, names)
{
	cr_assert_str_eq(fe_rsvd_name(FE_RSVD_PAUSE), "pause");
	cr_assert_str_eq(fe_rsvd_name(FE_RSVD_OTHER), "other");
	cr_assert_str_eq(fe_rsvd_name(FE_RSVD__MAX), "?");
}
