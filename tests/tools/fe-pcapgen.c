/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe-pcapgen: write a pcap file of numbered test frames for the dataplane tests.
 *   fe-pcapgen OUT.pcap [SRC DST COUNT LEN]...
 * Each group appends COUNT frames from MAC SRC to MAC DST of LEN bytes (without FCS).
 * Frames carry EtherType 0x88b5 (local experimental), "FEMU", the group's source
 * port index and a sequence number, so fe-pcapcheck can verify order.
 */
#include <arpa/inet.h>
#include <pcap/pcap.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int
parse_mac(const char *s, unsigned char m[6])
{
	return sscanf(s, "%hhx:%hhx:%hhx:%hhx:%hhx:%hhx", &m[0], &m[1], &m[2], &m[3], &m[4],
		      &m[5]) == 6
		       ? 0
		       : -1;
}

int
main(int argc, char **argv)
{
	unsigned char frame[9000];
	pcap_dumper_t *d;
	pcap_t *p;
	uint32_t seq = 0;

	if (argc < 2 || (argc - 2) % 4 != 0) {
		fprintf(stderr, "usage: fe-pcapgen OUT.pcap [SRC DST COUNT LEN]...\n");
		return 2;
	}
	p = pcap_open_dead(DLT_EN10MB, 65535);
	d = pcap_dump_open(p, argv[1]);
	if (d == NULL) {
		fprintf(stderr, "fe-pcapgen: %s: %s\n", argv[1], pcap_geterr(p));
		return 1;
	}
	for (int g = 2; g < argc; g += 4) {
		unsigned long count = strtoul(argv[g + 2], NULL, 10);
		unsigned long len = strtoul(argv[g + 3], NULL, 10);

		if (parse_mac(argv[g], frame + 6) || parse_mac(argv[g + 1], frame) || len < 26 ||
		    len > sizeof(frame)) {
			fprintf(stderr, "fe-pcapgen: bad group '%s %s %s %s'\n", argv[g],
				argv[g + 1], argv[g + 2], argv[g + 3]);
			return 2;
		}
		for (unsigned long i = 0; i < count; i++, seq++) {
			struct pcap_pkthdr h = {.caplen = (bpf_u_int32)len,
						.len = (bpf_u_int32)len};
			uint32_t nseq = htonl(seq);

			memset(frame + 12, 0, len - 12);
			frame[12] = 0x88;
			frame[13] = 0xb5;
			memcpy(frame + 14, "FEMU", 4);
			memcpy(frame + 18, frame + 8,
			       4); /* a tag of the sender: its MAC's last 4 bytes */
			memcpy(frame + 22, &nseq, 4);
			h.ts.tv_usec = (suseconds_t)seq;
			pcap_dump((u_char *)d, &h, frame);
		}
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}
