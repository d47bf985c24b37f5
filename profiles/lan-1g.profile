# A 1 Gbit/s data-centre LAN: 1 Gbit/s ports, 5 us of cable and PHY each way,
# and a shallow commodity-switch buffer per egress port.
rate=1Gbit, delay=5us
down: buffer=256KiB, buffer-pkts=1000   # switch egress buffer
up: buffer=0, buffer-pkts=1000          # the host's transmit queue (txqueuelen 1000)
