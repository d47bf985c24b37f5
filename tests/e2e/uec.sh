#!/usr/bin/env bash
# Ultra Ethernet (docs/uec.md) end to end: a 2-to-1 TCP incast (cubic) on real iperf3
# traffic through the lossy regime, host 3's down link 1 Gbit/s with an 8 KiB buffer (5 full frames).
#  - NIC model uec: the switch trims what host 3's link has no room for, host 3's NIC
#    NAKs each trimmed frame, the senders' NICs send it again (NSCC's window): no host
#    data is lost (real TCP retransmissions at most 2 % of the control's, rounded up: a spurious one
#    at most, on a loaded machine), no NIC timeout, and the trims and NAKs
#    are counted and agree; nothing else in the fabric is dropped.
#  - NIC model uec, ECN at host 3's down link, the hosts' TCP not asking for ECN: the
#    NIC's frames are ECN-capable all the same, marked, and every mark is taken by host
#    3's NIC.
#  - NIC model uec, host 3's buffer 32 KiB (above NSCC's target delay), ECN: NSCC cuts the
#    senders' windows and the two flows share the link.
#  - NIC model uec with RCCC (cc=rccc): host 3's NIC grants the senders credit, paced at
#    its link's rate; each sends only against it (after its speculative start): no host
#    data lost, no NIC timeout, every grant heard, the senders waited for credit.
#  - NIC model uec with RCCC and host 3's PCIe at a fifth of its link: what reaches host 3
#    crosses it at that rate, its backlog cuts the pull rate; nothing lost, no timeout.
#  - NIC model uec with both (cc=nscc+rccc): the same, every trim NAK saying last hop.
#  - NIC model tcp, the control: the same incast drops (tail) and the hosts retransmit.
#  - the uec-lossless profile (CBFC on the credit model, LLR, the uec NIC) at scale 400:
#    nothing dropped or trimmed anywhere, no NIC timeout, the two flows share the link.
set -euo pipefail
. "$(dirname "$0")/../../testbeds/lib.sh"
fe_init uec
fe_hosts feu 3
# AF_PACKET: its edge ring (16384 frames) holds TCP's bursts
EAL="$(fe_eal) $(fe_vdevs af_packet)"
SECS=3

# run NAME DP-ARGS...: the incast of hosts 1 and 2 to host 3; sets RETRANS (hosts 1, 2)
run() {
	local name=$1 b1 b2 a1 a2
	shift
	fe_dp_start $EAL -- ${BASE---rate 1Gbit --delay 20us --link 2.down:buffer=8KiB} "$@" \
		--stats-json "$FE_TMP/$name.json" --seed 1
	b1=$(fe_tcp_counters 1); b2=$(fe_tcp_counters 2)
	FE_IPERF_PORT=5301 fe_iperf 1 3 $SECS -C cubic >"$FE_TMP/$name.g1" &
	local p1=$!
	FE_IPERF_PORT=5302 fe_iperf 2 3 $SECS -C cubic >"$FE_TMP/$name.g2" &
	local p2=$!
	wait $p1 || fe_fail "$name: flow 1 failed"
	wait $p2 || fe_fail "$name: flow 2 failed"
	a1=$(fe_tcp_counters 1); a2=$(fe_tcp_counters 2)
	fe_dp_stop
	RETRANS=$(($(fe_real_retrans "$b1" "$a1") + $(fe_real_retrans "$b2" "$a2")))
	echo "  $name: goodput $(cat "$FE_TMP/$name.g1") + $(cat "$FE_TMP/$name.g2") Mbit/s, $RETRANS real retransmissions"
}
# j NAME EXPR: a figure of run NAME's counters (d: the stats JSON)
j() { fe_json "$FE_TMP/$1.json" "$2"; }
link() { echo "[l for l in d['links'] if l['link'] == '$1'][0]"; }
port() { echo "d['ports'][$1]"; }
# accounted NAME: every frame of run NAME accounted for, port by port (docs/counters.md),
# the grants among the ACKs
accounted() {
	python3 - "$FE_TMP/$1.json" <<'PY' || fe_fail "$1: a port's frames are not accounted for"
import json, sys
d = json.load(open(sys.argv[1]))
links = {l["link"]: l for l in d["links"]}
for p in d["ports"]:
    g = lambda k: p.get(k, 0)
    up, down = links["%d.up" % p["port"]], links["%d.down" % p["port"]]
    assert g("nic_credit_sent") <= g("nic_acks_sent") and g("nic_credit_recv") <= g("nic_acks_recv"), p
    assert up["in_pkts"] + g("nic_stopped_send") == g("rx_pkts") + g("nic_resent_pkts") + \
        g("nic_cnp_sent") + g("nic_acks_sent") + g("nic_naks_sent") + g("nic_trim_naks_sent") + \
        g("nic_probes_sent"), (p, up)
    # (a trimmed header is counted out of the down link as it joins its NIC's queue of
    # them: one still there at the stop is nic_stopped_trims)
    assert down["out_pkts"] == g("tx_pkts") + g("tx_stopped") + g("nic_stopped_recv") + \
        g("nic_stopped_trims") + \
        g("nic_oos_discards") + g("nic_dup_discards") + g("nic_stray") + g("nic_edge_drops") + \
        g("nic_cnp_recv") + g("nic_acks_recv") + g("nic_naks_recv") + g("nic_trims_recv") + \
        g("nic_trim_naks_recv") + g("nic_probes_recv"), (p, down)
PY
	echo "  ok   $1: every port's frames accounted for, the grants among the ACKs"
}

echo "NIC model uec (NSCC), lossy fabric with trimming"
run uec --nic model=uec
trim=$(j uec "$(link 2.down)['drop_trim_pkts']")
tail=$(j uec "sum(l['drop_tail_pkts'] + l['drop_pool_pkts'] + l['drop_wire_pkts'] + l['drop_header_pkts'] for l in d['links'])")
recv=$(j uec "$(port 2)['nic_trims_recv']")
nsent=$(j uec "$(port 2)['nic_trim_naks_sent']")
nrecv=$(j uec "$(port 0)['nic_trim_naks_recv'] + $(port 1)['nic_trim_naks_recv']")
tmo=$(j uec "sum(p['nic_timeouts'] for p in d['ports'])")
resent=$(j uec "$(port 0)['nic_resent_pkts'] + $(port 1)['nic_resent_pkts']")
echo "  host 3's down link trimmed $trim; its NIC got $recv headers and sent $nsent NAKs; the senders got $nrecv and resent $resent; buffer drops $tail; NIC timeouts $tmo"
echo "  SLEEK's probes: $(j uec "sum(p['nic_probes_sent'] for p in d['ports'])") sent, $(j uec "sum(p['nic_probes_recv'] for p in d['ports'])") answered, $(j uec "sum(p['nic_probe_recoveries'] for p in d['ports'])") found the path empty; host 3's NIC discarded $(j uec "$(port 2)['nic_dup_discards']") duplicates"
fe_check "frames trimmed at host 3's down link" "$trim" 1 1e12
fe_check "trimmed headers at host 3's NIC, as trimmed" "$recv" "$trim" "$trim"
fe_check "NAKs the senders got, as sent (none lost)" "$nrecv" "$nsent" "$nsent"
fe_check "frames resent, at least the NAKs" "$resent" "$nrecv" 1e12
fe_check "NAKs saying last hop (host 3's down link), as got" \
	"$(j uec "$(port 0)['nic_trim_naks_last_hop'] + $(port 1)['nic_trim_naks_last_hop']")" "$nrecv" "$nrecv"
fe_check "buffer drops in the fabric" "$tail" 0 0
fe_check "NIC timeouts" "$tmo" 0 0
cwnd=$(j uec "min($(port 0)['nic_cwnd_min_bytes'], $(port 1)['nic_cwnd_min_bytes'])")
fe_check "NSCC: the senders' least window (bytes), cut below 1.5 BDP" "$cwnd" 1 24000
accounted uec
UEC_RETRANS=$RETRANS

# The receiver's ACK policy of uet-htsim's sink (ack-bytes 16 KiB, its default): an ACK
# once 16 KiB have come, and at once for CE, a duplicate, a flow's first frame and what
# its sender flagged (its last queued, its window spent, every resend): the same incast,
# every frame delivered, no NIC timeout, fewer ACKs than the frames host 3 took.
echo "NIC model uec, the receiver acknowledging every 16 KiB (ack-bytes)"
run acks --nic model=uec,ack-bytes=16KiB
accounted acks
acks=$(j acks "$(port 2)['nic_acks_sent']")
frames=$(j acks "$(port 2)['tx_pkts']")
echo "  host 3's NIC sent $acks ACKs for the $frames frames it gave its host (without: $(j uec "$(port 2)['nic_acks_sent']") for $(j uec "$(port 2)['tx_pkts']"))"
fe_check "NIC timeouts" "$(j acks "sum(p['nic_timeouts'] for p in d['ports'])")" 0 0
# 0.35 in the run that added it: most frames come CE-marked (each answered at once), a
# window's last asks (AR); with an ACK a frame it would be 1, as the uec case's 0.7
fe_check "ACKs a frame host 3 took" "$(python3 -c "print($acks / max($frames, 1))")" 0.1 0.6

# The hosts' TCP does not ask for ECN (tcp_ecn 2, Linux's default and a container's): the
# NIC's frames are ECN-capable all the same, as UET's are, so the switch marks them at
# host 3's down link (ECN from 1 frame of queue) and NSCC hears of the queue; host 3 gets
# them Not-ECT, as sent. Before (2026-12-07) nothing was marked: 0 of the frames.
echo "NIC model uec, ECN at host 3's down link, the hosts' TCP not asking for ECN"
fe_check "host 1's tcp_ecn (2: does not ask)" "$(fe_ns 1 sysctl -n net.ipv4.tcp_ecn)" 2 2
BASE="--rate 1Gbit --delay 20us --link 2.down:buffer=8KiB,ecn=1500B/6000B" run ecn --nic model=uec
marked=$(j ecn "$(link 2.down)['ecn_marked']")
etrim=$(j ecn "$(link 2.down)['drop_trim_pkts']")
echo "  host 3's down link marked $marked frames and trimmed $etrim; host 3's NIC took $(j ecn "$(port 2)['nic_ce_consumed']") marks"
fe_check "ecn: frames marked at host 3's down link" "$marked" 1 1e12
# a frame is marked as it comes, then trimmed if the link has no room (above the marking
# threshold: every trimmed frame was marked): its header is NAKed, its mark not taken
fe_check "ecn: marks host 3's NIC took, all but the trimmed frames'" \
	"$(j ecn "$(port 2)['nic_ce_consumed']")" $((marked - etrim)) $((marked - etrim))
fe_check "ecn: buffer drops in the fabric" \
	"$(j ecn "sum(l['drop_tail_pkts'] + l['drop_pool_pkts'] + l['drop_wire_pkts'] + l['drop_header_pkts'] for l in d['links'])")" 0 0
accounted ecn

# NSCC decreases multiplicatively only on ECN with a delay above its target (97 us here):
# host 3's 8 KiB (65 us) never gets there, and a trim's NACK cuts by its bytes alone, so
# the phase may give one flow the link. With 32 KiB (262 us) and ECN from 6,000 bytes the
# two flows share it, no frame trimmed (2026-12-07: 408 + 408, 415 + 415 and 432 + 431
# Mbit/s; without ECN no window was ever cut: 387 + 491, 397 + 508).
echo "NIC model uec, host 3's buffer 32 KiB (above NSCC's target delay), ECN from 4 frames"
BASE="--rate 1Gbit --delay 20us --link 2.down:buffer=32KiB,ecn=6000B/24000B" run share --nic model=uec
fe_check "share: frames marked at host 3's down link" "$(j share "$(link 2.down)['ecn_marked']")" 1 1e12
fe_check "share: buffer drops in the fabric" \
	"$(j share "sum(l['drop_tail_pkts'] + l['drop_pool_pkts'] + l['drop_wire_pkts'] + l['drop_header_pkts'] for l in d['links'])")" 0 0
# a window NSCC cut, in % of one nothing slowed (host 3's NIC's, its TCP's ACKs)
fe_check "share: the senders' least window, in % of an uncut one" \
	"$(j share "int(100 * min($(port 0)['nic_cwnd_min_bytes'], $(port 1)['nic_cwnd_min_bytes']) / $(port 2)['nic_cwnd_bytes'])")" 1 90
# (runs here: 98 to 100 % in five, 73 and 61 in two on a loaded machine; the locked
# 8 KiB case gave 21 to 35 %)
fe_check "share: the lesser flow's goodput, in % of the greater's" \
	"$(python3 -c "a, b = $(cat "$FE_TMP/share.g1"), $(cat "$FE_TMP/share.g2"); print(int(100 * min(a, b) / max(a, b, 1e-9)))")" 50 100
accounted share

echo "NIC model uec, cc=rccc (receiver credit), the same incast"
run rccc --nic model=uec,cc=rccc
gsent=$(j rccc "$(port 2)['nic_credit_sent']")
grecv=$(j rccc "$(port 0)['nic_credit_recv'] + $(port 1)['nic_credit_recv']")
echo "  host 3's NIC granted $(j rccc "$(port 2)['nic_credit_bytes']") bytes in $gsent grants;" \
	"the senders waited for credit $(j rccc "$(port 0)['nic_credit_blocked'] + $(port 1)['nic_credit_blocked']") times;" \
	"trimmed $(j rccc "$(link 2.down)['drop_trim_pkts']") (uec with NSCC: $trim)"
fe_check "rccc: grants host 3's NIC sent" "$gsent" 100 1e12
fe_check "rccc: grants the senders got, as sent" "$grecv" "$gsent" "$gsent"
fe_check "rccc: passes the senders waited for credit" \
	"$(j rccc "$(port 0)['nic_credit_blocked'] + $(port 1)['nic_credit_blocked']")" 1 1e12
fe_check "rccc: buffer drops in the fabric" \
	"$(j rccc "sum(l['drop_tail_pkts'] + l['drop_pool_pkts'] + l['drop_wire_pkts'] + l['drop_header_pkts'] for l in d['links'])")" 0 0
fe_check "rccc: NIC timeouts" "$(j rccc "sum(p['nic_timeouts'] for p in d['ports'])")" 0 0
accounted rccc
RCCC_RETRANS=$RETRANS

# host 3's PCIe (fe_pcie.h) at 200 Mbit/s, a fifth of its link, holding 64 KiB: what
# reaches host 3 crosses it at that rate, and its backlog cuts RCCC's pull rate
echo "NIC model uec, cc=rccc, host 3's PCIe at 200 Mbit/s: the same incast"
run pcie --nic model=uec,cc=rccc,pcie=200Mbit,pcie-backlog=64KiB
pg=$(python3 -c "print(int($(cat "$FE_TMP/pcie.g1") + $(cat "$FE_TMP/pcie.g2")))")
echo "  host 3's PCIe held $(j pcie "$(port 2)['nic_pcie_peak']") bytes at most, trimmed" \
	"$(j pcie "$(port 2)['nic_pcie_trims']") frames, cut the pull rate to" \
	"$(j pcie "$(port 2)['nic_pcie_min_permille']") per mille; goodput $pg Mbit/s in all"
fe_check "pcie: goodput of both flows (Mbit/s), under the PCIe's 200" "$pg" 20 200
fe_check "pcie: the most its PCIe held (bytes), within 64 KiB" \
	"$(j pcie "$(port 2)['nic_pcie_peak']")" 1 65536
fe_check "pcie: the pull rate its PCIe allowed at least (per mille)" \
	"$(j pcie "$(port 2)['nic_pcie_min_permille']")" 1 999
fe_check "pcie: buffer drops in the fabric" \
	"$(j pcie "sum(l['drop_tail_pkts'] + l['drop_pool_pkts'] + l['drop_wire_pkts'] + l['drop_header_pkts'] for l in d['links'])")" 0 0
fe_check "pcie: NIC timeouts" "$(j pcie "sum(p['nic_timeouts'] for p in d['ports'])")" 0 0
accounted pcie
PCIE_RETRANS=$RETRANS

echo "NIC model uec, cc=nscc+rccc (both at once), the same incast"
run both --nic model=uec,cc=nscc+rccc
bsent=$(j both "$(port 2)['nic_credit_sent']")
bnaks=$(j both "$(port 0)['nic_trim_naks_recv'] + $(port 1)['nic_trim_naks_recv']")
echo "  host 3's NIC sent $bsent grants; trimmed $(j both "$(link 2.down)['drop_trim_pkts']");" \
	"the senders got $bnaks NAKs; least window $(j both "min($(port 0)['nic_cwnd_min_bytes'], $(port 1)['nic_cwnd_min_bytes'])") bytes"
fe_check "both: grants host 3's NIC sent" "$bsent" 100 1e12
fe_check "both: grants the senders got, as sent" \
	"$(j both "$(port 0)['nic_credit_recv'] + $(port 1)['nic_credit_recv']")" "$bsent" "$bsent"
fe_check "both: NAKs saying last hop, as got (NSCC's window left for them)" \
	"$(j both "$(port 0)['nic_trim_naks_last_hop'] + $(port 1)['nic_trim_naks_last_hop']")" "$bnaks" "$bnaks"
fe_check "both: buffer drops in the fabric" \
	"$(j both "sum(l['drop_tail_pkts'] + l['drop_pool_pkts'] + l['drop_wire_pkts'] + l['drop_header_pkts'] for l in d['links'])")" 0 0
fe_check "both: NIC timeouts" "$(j both "sum(p['nic_timeouts'] for p in d['ports'])")" 0 0
accounted both
BOTH_RETRANS=$RETRANS

echo "NIC model tcp (the control): the same incast"
run tcp
tail=$(j tcp "$(link 2.down)['drop_tail_pkts']")
fe_check "tail drops at host 3's down link" "$tail" 1 1e12
fe_check "hosts' real TCP retransmissions" "$RETRANS" 1 1e12
# uec's against the control's: none lost, so none but a spurious one (a timer that fired
# while the hosts waited for a core, on a loaded machine: 1 once in a run whose fabric
# dropped nothing and whose NICs timed nothing out; the control had 129 and 346)
# 2 % rounded up: a control of fewer than 50 (35 in one CI run) allows 1, not 0, where a
# spurious one fails a run that lost nothing (uec-lossless: 1, with no drop, trim or NIC
# timeout anywhere in it)
fe_check "uec: hosts' real TCP retransmissions, 2 % of the control's at most" "$UEC_RETRANS" 0 $(((RETRANS + 49) / 50))
fe_check "rccc: hosts' real TCP retransmissions, 2 % of the control's at most" "$RCCC_RETRANS" 0 $(((RETRANS + 49) / 50))
fe_check "pcie: hosts' real TCP retransmissions, 2 % of the control's at most" "$PCIE_RETRANS" 0 $(((RETRANS + 49) / 50))
fe_check "both: hosts' real TCP retransmissions, 2 % of the control's at most" "$BOTH_RETRANS" 0 $(((RETRANS + 49) / 50))
TCP_RETRANS=$RETRANS

# the uec-lossless profile at scale 400 (1 Gbit/s, 160 us links): credits (CBFC) on every
# link, LLR, the uec NIC: the same incast loses nothing, so nothing is trimmed or NAKed,
# and the two flows share host 3's link
echo "profile uec-lossless (CBFC, LLR, the uec NIC): the same incast"
BASE="--profile uec-lossless --scale 400" run uecl
fe_check "uec-lossless: drops in the fabric" \
	"$(j uecl "sum(v for l in d['links'] for k, v in l.items() if k.startswith('drop_') and k.endswith('_pkts'))")" 0 0
fe_check "uec-lossless: frames trimmed" "$(j uecl "sum(l['drop_trim_pkts'] for l in d['links'])")" 0 0
fe_check "uec-lossless: NIC timeouts" "$(j uecl "sum(p['nic_timeouts'] for p in d['ports'])")" 0 0
echo "  uec-lossless: the senders waited $(j uecl "sum(l['stall_ns'] for l in d['lane_counters'])") ns for credits"
echo "  uec-lossless: NSCC's least window $(j uecl "min($(port 0)['nic_cwnd_min_bytes'], $(port 1)['nic_cwnd_min_bytes'])") bytes"
# credits share the link between the two inputs: the lesser flow has at least a third of
# the greater's goodput (the tcp control's starves one: 894 against 1.5 Mbit/s)
fe_check "uec-lossless: the lesser flow's goodput, in % of the greater's" \
	"$(python3 -c "a, b = $(cat "$FE_TMP/uecl.g1"), $(cat "$FE_TMP/uecl.g2"); print(int(100 * min(a, b) / max(a, b, 1e-9)))")" 33 100
fe_check "uec-lossless: the NICs' ACKs heard" "$(j uecl "sum(p['nic_acks_recv'] for p in d['ports'])")" 100 1e12
fe_check "uec-lossless: hosts' real TCP retransmissions, 2 % of the control's at most" "$RETRANS" 0 $(((TCP_RETRANS + 49) / 50))
echo "uec: passed"
