/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * fe-pcapgen: write a pcap file of numbered test frames for the dataplane tests.
 *   fe-pcapgen [--udp] OUT.pcap [SRC DST COUNT LEN]...
 * Each group appends COUNT frames from MAC SRC to MAC DST of LEN bytes (without FCS).
 * Frames carry EtherType 0x88b5 (local experimental), "FEMU", a tag of the sender (its
 * MAC's last 4 bytes) and a sequence number, so fe-pcapcheck can verify order. With
 * --udp they are IPv4/UDP instead, 198.18.0.1:9 to 198.18.0.2:9, ECN-capable (ECT(0)),
 * with the same tag in the UDP payload: what a filter on UDP and ECN act on (LEN >= 54).
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

/* IPv4 and UDP headers for a frame of len bytes; the payload starts at 42. */
static void
udp_headers(unsigned char *f, unsigned long len)
{
	static const unsigned char src[4] = {198, 18, 0, 1}, dst[4] = {198, 18, 0, 2};
	uint16_t ip_len = htons((uint16_t)(len - 14)), udp_len = htons((uint16_t)(len - 34));
	uint32_t sum = 0;

	f[12] = 0x08;
	f[13] = 0x00;
	f[14] = 0x45; /* IPv4, 20-byte header */
	f[15] = 0x02; /* ECT(0) */
	memcpy(f + 16, &ip_len, 2);
	f[22] = 64;
	f[23] = 17;
	memcpy(f + 26, src, 4);
	memcpy(f + 30, dst, 4);
	for (int i = 14; i < 34; i += 2)
		sum += (uint32_t)(f[i] << 8 | f[i + 1]);
	while (sum >> 16)
		sum = (sum & 0xffff) + (sum >> 16);
	f[24] = (unsigned char)(~sum >> 8);
	f[25] = (unsigned char)~sum;
	f[35] = 9; /* UDP 9 -> 9 (discard), no checksum */
	f[37] = 9;
	memcpy(f + 38, &udp_len, 2);
}

int
main(int argc, char **argv)
{
	unsigned char frame[9000];
	pcap_dumper_t *d;
	pcap_t *p;
	uint32_t seq = 0;
	int udp = argc > 1 && strcmp(argv[1], "--udp") == 0;
	size_t tag = udp ? 42 : 14; /* where "FEMU" goes */

	argc -= udp;
	argv += udp;
	/* an option where the file goes (-h, --help): the usage, not a file of that name */
	if (argc < 2 || (argc - 2) % 4 != 0 || argv[1][0] == '-') {
		const int help =
			argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"));

		fprintf(help ? stdout : stderr,
			"usage: fe-pcapgen [--udp] OUT.pcap [SRC DST COUNT LEN]...\n");
		return help ? 0 : 2;
	}
	p = pcap_open_dead(DLT_EN10MB, 65535);
	d = pcap_dump_open(p, argv[1]);
	if (d == NULL) {
		fprintf(stderr, "fe-pcapgen: %s: %s\n", argv[1], pcap_geterr(p));
		pcap_close(p);
		return 1;
	}
	for (int g = 2; g < argc; g += 4) {
		unsigned long count = strtoul(argv[g + 2], NULL, 10);
		unsigned long len = strtoul(argv[g + 3], NULL, 10);

		if (parse_mac(argv[g], frame + 6) || parse_mac(argv[g + 1], frame) ||
		    len < tag + 12 || len > sizeof(frame)) {
			fprintf(stderr, "fe-pcapgen: bad group '%s %s %s %s'\n", argv[g],
				argv[g + 1], argv[g + 2], argv[g + 3]);
			pcap_dump_close(d);
			pcap_close(p);
			return 2;
		}
		for (unsigned long i = 0; i < count; i++, seq++) {
			struct pcap_pkthdr h = {.caplen = (bpf_u_int32)len,
						.len = (bpf_u_int32)len};
			uint32_t nseq = htonl(seq);

			memset(frame + 12, 0, len - 12);
			if (udp) {
				udp_headers(frame, len);
			} else {
				frame[12] = 0x88;
				frame[13] = 0xb5;
			}
			memcpy(frame + tag, "FEMU", 4);
			memcpy(frame + tag + 4, frame + 8, 4); /* the sender: its MAC's last 4 */
			memcpy(frame + tag + 8, &nseq, 4);
			h.ts.tv_usec = (suseconds_t)seq;
			pcap_dump((u_char *)d, &h, frame);
		}
	}
	pcap_dump_close(d);
	pcap_close(p);
	return 0;
}
