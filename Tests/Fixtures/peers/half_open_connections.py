#!/usr/bin/python3
# `half_open_connections.py PORT`: an attacker holding the receiver's slots on PORT: eight half
# TLS handshakes from one address, a ninth from it, and 48 connections from other addresses
# that finish TLS and send half a request head; then a real peer's `GET info`, and how long
# the held connections stay open. Prints what it saw, as JSON.
#
# Written from the LocalSend protocol with Python's own `ssl` and `http.client`, not Courier's code:
# an attacker nobody here wrote, so the receiver is tested against what arrives on the wire.
import http.client, json, socket, ssl, sys, time
port = int(sys.argv[1])
context = ssl.create_default_context(); context.check_hostname = False; context.verify_mode = ssl.CERT_NONE
def closed(s, seconds):
    s.settimeout(seconds)
    try:
        return s.recv(1) == b""
    except socket.timeout:
        return False
    except (ssl.SSLError, OSError):
        return True
held = []
for _ in range(8):
    s = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
    s.sendall(b"\x16\x03\x01\x02\x00\x01")
    held.append(s)
ninth = socket.create_connection(("127.0.0.1", port), source_address=("127.0.0.2", 0))
ninth_closed = closed(ninth, 3)
for i in range(48):
    raw = socket.create_connection(("127.0.0.1", port), source_address=(f"127.0.9.{i + 2}", 0))
    tls = context.wrap_socket(raw)
    tls.sendall(b"GET /api/localsend/v2/info HTTP/1.1\r\nHost: x\r\n")
    held.append(tls)
connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, timeout=10)
connection.request("GET", "/api/localsend/v2/info")
info = connection.getresponse().status
start = time.time()
still_open = sum(0 if closed(s, max(0.1, start + 30 - time.time())) else 1 for s in held)
print(json.dumps({"ninth_closed": ninth_closed, "info": info, "still_open": still_open}))
