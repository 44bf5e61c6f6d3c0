#!/usr/bin/python3
# `closed_port_announcer.py`: a LocalSend peer whose announced port is closed: it joins the
# multicast group, announces itself (port 9) and prints "multicast answer from ADDRESS" when
# "Courier A" answers by multicast within 15 s, else "no answer" (exit 1).
#
# Python's own `socket` and `ssl`, not Courier's code: a peer nobody here wrote, so the receiver
# is tested against what arrives on the wire.
import json, socket, struct, sys, time
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("", 53317))
s.setsockopt(socket.IPPROTO_IP, socket.IP_ADD_MEMBERSHIP, struct.pack("4s4s", socket.inet_aton("224.0.0.167"), socket.inet_aton("0.0.0.0")))
announce = {"alias": "Closed port", "version": "2.1", "deviceType": "headless", "fingerprint": "f" * 64, "port": 9, "protocol": "https", "announce": True}
s.sendto(json.dumps(announce).encode(), ("224.0.0.167", 53317))
s.settimeout(1)
deadline = time.time() + 15
while time.time() < deadline:
    try:
        data, address = s.recvfrom(65536)
    except socket.timeout:
        continue
    message = json.loads(data)
    if message.get("alias") == "Courier A" and message.get("announce") is False:
        print("multicast answer from", address[0]); sys.exit(0)
print("no answer"); sys.exit(1)
