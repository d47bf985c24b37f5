/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Link specs and the regime options (control/parse/fe_linkspec.c, control/parse/fe_regimespec.c):
 * the first byte picks the number of ports (0 to 7); every line of the rest is applied
 * as `--link`, and given to `--pfc` and `--credit`; the rest as a whole is read as
 * `--link-file`. What is accepted is compiled and printed (fz_links).
 * Seeds: the specs of docs/, tests/ and profiles/lan-1g.links.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "fe_linkspec.h"
#include "fe_regimespec.h"
#include "fuzz_common.h"

#define NP 8

static struct fe_linkdef up[NP], down[NP];

static void
reset(unsigned nports)
{
	for (unsigned i = 0; i < nports; i++) {
		memset(&up[i], 0, sizeof(up[i]));
		up[i].link.limit_bytes = 1 << 20;
		up[i].link.limit_pkts = 1000;
		down[i] = up[i];
	}
}

static void
one_line(const char *line, unsigned nports)
{
	struct fe_pfc_params pfc = {0};
	struct fe_credit_params credit = {0};
	struct fe_nic_params nic = FE_NIC_DEFAULT;
	char err[1024] = "";

	if (fe_linkspec_apply(line, up, down, nports, err, sizeof(err)) == 0)
		fz_links(up, down, nports);
	else
		FZ_CHECK(err[0] != '\0', "--link '%s' refused without a message", line);
	fe_pfc_spec(line, &pfc, err, sizeof(err));
	fe_credit_spec(line, &credit, err, sizeof(err));
	err[0] = '\0';
	if (fe_nic_spec(line, &nic, err, sizeof(err)) < 0)
		FZ_CHECK(err[0] != '\0', "--nic '%s' refused without a message", line);
	else
		FZ_CHECK(nic.model <= FE_NIC_UEC && nic.g_den >= 1 && nic.window >= 1,
			 "--nic '%s' accepted out of range", line);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	unsigned nports;
	char err[1024] = "";
	char *text, *save = NULL;

	if (size < 1)
		return 0;
	nports = data[0] % NP;
	data++;
	size--;
	text = malloc(size + 1);
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	reset(NP);
	for (char *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save))
		one_line(l, nports);
	free(text);
	reset(NP);
	if (fe_linkspec_file(fz_file(data, size), up, down, nports, NULL, err, sizeof(err)) == 0)
		fz_links(up, down, nports);
	else
		FZ_CHECK(err[0] != '\0', "--link-file refused without a message");
	return 0;
}
