/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe-pcapcheck: summarize a pcap file written by the dataplane.
 *   fe-pcapcheck FILE
 * Prints one line: packets=N bytes=B order=ok|bad first_gap_us=G mean_gap_us=M pfc=P
 * pfc_quanta=Q0,Q1,... (802.1Qbb frames, and the priority-0 quanta of each, in order)
 * order=bad if the sequence numbers of fe-pcapgen frames from one sender go backwards;
 * the gaps are between consecutive frames' capture timestamps.
 */
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <string.h>

#define SENDERS 64

int
main(int argc, char **argv)
{
	char errbuf[PCAP_ERRBUF_SIZE];
	struct pcap_pkthdr *h;
	const u_char *data;
	unsigned long long n = 0, bytes = 0;
	double first_ts = 0, prev_ts = 0, first_gap = 0;
	uint32_t tags[SENDERS], last[SENDERS];
	unsigned senders = 0, pfc = 0;
	char quanta[4096] = "";
	int ok = 1;
	pcap_t *p;

	if (argc != 2) {
		fprintf(stderr, "usage: fe-pcapcheck FILE\n");
		return 2;
	}
	p = pcap_open_offline(argv[1], errbuf);
	if (p == NULL) {
		fprintf(stderr, "fe-pcapcheck: %s\n", errbuf);
		return 1;
	}
	while (pcap_next_ex(p, &h, &data) == 1) {
		double ts = (double)h->ts.tv_sec * 1e6 + (double)h->ts.tv_usec;

		if (n == 0)
			first_ts = ts;
		else if (n == 1)
			first_gap = ts - prev_ts;
		prev_ts = ts;
		n++;
		bytes += h->len;
		if (h->caplen >= 20 && data[12] == 0x88 && data[13] == 0x08 && data[14] == 0x01 &&
		    data[15] == 0x01) {
			size_t o = strlen(quanta);

			pfc++;
			if (o < sizeof(quanta) - 16)
				snprintf(quanta + o, sizeof(quanta) - o, "%s%u", o ? "," : "",
					 (unsigned)(data[18] << 8 | data[19]));
		}
		/* fe-pcapgen's frames: 0x88b5 with the tag at 14, or IPv4/UDP (--udp) at 42 */
		size_t at = h->caplen >= 26 && data[12] == 0x88 && data[13] == 0xb5   ? 14
			    : h->caplen >= 54 && data[12] == 0x08 && data[13] == 0x00 ? 42
										      : 0;

		if (at && memcmp(data + at, "FEMU", 4) == 0) {
			uint32_t tag, seq;
			unsigned i;

			memcpy(&tag, data + at + 4, 4);
			memcpy(&seq, data + at + 8, 4);
			seq = ntohl(seq);
			for (i = 0; i < senders && tags[i] != tag; i++)
				;
			if (i == senders && senders < SENDERS) {
				tags[senders] = tag;
				last[senders++] = seq;
			} else if (i < senders) {
				if (seq <= last[i])
					ok = 0;
				last[i] = seq;
			}
		}
	}
	pcap_close(p);
	printf("packets=%llu bytes=%llu order=%s first_gap_us=%.1f mean_gap_us=%.1f pfc=%u "
	       "pfc_quanta=%s\n",
	       n, bytes, ok ? "ok" : "bad", first_gap,
	       n > 1 ? (prev_ts - first_ts) / (double)(n - 1) : 0.0, pfc, quanta);
	return 0;
}
