/* SPDX-License-Identifier: BSD-3-Clause */
#include <string.h>

#include "fe_mac.h"

#define FE_MAC_VALID (1ULL << 63)

static inline uint64_t
mac_key(const uint8_t a[6])
{
	return FE_MAC_VALID | (uint64_t)a[0] << 40 | (uint64_t)a[1] << 32 | (uint64_t)a[2] << 24 |
	       (uint64_t)a[3] << 16 | (uint64_t)a[4] << 8 | a[5];
}

static inline uint32_t
mac_hash(uint64_t key)
{
	key *= 0x9e3779b97f4a7c15ULL; /* Fibonacci hashing */
	return (uint32_t)(key >> 40);
}

/*
 * Callers pass packet arrival stamps, which are not monotonic across ports: an
 * entry seen "after" now is fresh, not 2^64 ticks old.
 */
static inline int
expired(const struct fe_mac_table *t, const struct fe_mac_entry *e, uint64_t now)
{
	return e->key == 0 || (now > e->seen && now - e->seen > t->age_ticks);
}

void
fe_mac_init(struct fe_mac_table *t, uint64_t age_ticks)
{
	memset(t, 0, sizeof(*t));
	t->age_ticks = age_ticks;
}

void
fe_mac_learn(struct fe_mac_table *t, const uint8_t addr[6], uint16_t port, uint64_t now)
{
	uint64_t key = mac_key(addr);
	uint32_t h = mac_hash(key);
	struct fe_mac_entry *free_slot = NULL;

	for (unsigned i = 0; i < FE_MAC_PROBE; i++) {
		struct fe_mac_entry *e = &t->e[(h + i) & (FE_MAC_SLOTS - 1)];

		if (e->key == key) {
			if (e->port != port) {
				FE_CNT_ADD(t->moves, 1);
				t->gen++;
			} else if (expired(t, e, now)) {
				FE_CNT_ADD(t->learned, 1);
				t->gen++;
			}
			e->port = port;
			if (now > e->seen)
				e->seen = now;
			return;
		}
		if (free_slot == NULL && expired(t, e, now))
			free_slot = e;
		if (e->key == 0)
			break; /* the key cannot be further along */
	}
	if (free_slot == NULL) {
		FE_CNT_ADD(t->full, 1);
		return;
	}
	free_slot->key = key;
	free_slot->port = port;
	free_slot->seen = now;
	FE_CNT_ADD(t->learned, 1);
	t->gen++;
}

int
fe_mac_lookup(const struct fe_mac_table *t, const uint8_t addr[6], uint64_t now)
{
	uint64_t key = mac_key(addr);
	uint32_t h = mac_hash(key);

	for (unsigned i = 0; i < FE_MAC_PROBE; i++) {
		const struct fe_mac_entry *e = &t->e[(h + i) & (FE_MAC_SLOTS - 1)];

		if (e->key == key)
			return expired(t, e, now) ? -1 : e->port;
		if (e->key == 0)
			return -1;
	}
	return -1;
}

unsigned
fe_mac_count(const struct fe_mac_table *t, uint64_t now)
{
	unsigned n = 0;

	for (unsigned i = 0; i < FE_MAC_SLOTS; i++)
		n += !expired(t, &t->e[i], now);
	return n;
}

int
fe_mac_entry(const struct fe_mac_table *t, unsigned i, uint64_t now, uint8_t addr[6],
	     uint16_t *port)
{
	const struct fe_mac_entry *e = &t->e[i % FE_MAC_SLOTS];

	if (expired(t, e, now))
		return 0;
	for (int b = 0; b < 6; b++)
		addr[b] = (uint8_t)(e->key >> (40 - 8 * b));
	*port = e->port;
	return 1;
}
