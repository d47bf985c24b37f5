/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe_mac: the emulated switch's MAC learning table.
 *
 * Open addressing with a bounded linear probe; no allocation, no deletion: an entry
 * not refreshed for age_ticks is treated as absent and its slot is reused. A full
 * probe window means the address is not learned (counted) and its frames flood.
 * Pure: time is passed in, so tests use a fake clock.
 */
#ifndef FE_MAC_H
#define FE_MAC_H

#include <stdint.h>

#include "fe_counter.h"

#define FE_MAC_SLOTS 4096U /* power of two */
#define FE_MAC_PROBE 16U

struct fe_mac_entry {
	uint64_t key; /* 48-bit address | FE_MAC_VALID; 0 = never used */
	uint64_t seen;
	uint16_t port;
};

struct fe_mac_table {
	uint64_t age_ticks;
	fe_counter_t learned; /* new addresses (again after ageing out) */
	fe_counter_t moves;   /* a known address seen on another port */
	fe_counter_t full;    /* addresses not learned for want of a slot */
	uint64_t gen;	      /* changes whenever an address is added or moves (for caches) */
	struct fe_mac_entry e[FE_MAC_SLOTS];
};

void fe_mac_init(struct fe_mac_table *t, uint64_t age_ticks);

/* Record that addr was seen on port at now. */
void fe_mac_learn(struct fe_mac_table *t, const uint8_t addr[6], uint16_t port, uint64_t now);

/* Port addr was last seen on, or -1 if unknown or aged out. */
int fe_mac_lookup(const struct fe_mac_table *t, const uint8_t addr[6], uint64_t now);

/* Entries currently valid (for reports; walks the whole table). */
unsigned fe_mac_count(const struct fe_mac_table *t, uint64_t now);

/* The i-th slot's address and port if it is valid at now: 1, else 0 (for reports). */
int fe_mac_entry(const struct fe_mac_table *t, unsigned i, uint64_t now, uint8_t addr[6],
		 uint16_t *port);

#endif
