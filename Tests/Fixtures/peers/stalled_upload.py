#!/usr/bin/python3
# `stalled_upload.py PORT TARGET`: a sender that stops mid-upload: POSTs TARGET on PORT announcing
# 1 MiB, sends 100 KiB and closes; then opens 20 connections that send nothing and prints
# "all closed" once the receiver has closed every one (within 30 s), else "still open".
#
# Python's own `socket` and `ssl`, not Courier's code: a peer nobody here wrote, so the receiver
# is tested against what arrives on the wire.
import socket, ssl, sys, time
port, target = int(sys.argv[1]), sys.argv[2]
context = ssl.create_default_context(); context.check_hostname = False; context.verify_mode = ssl.CERT_NONE
with socket.create_connection(("127.0.0.1", port)) as raw, context.wrap_socket(raw) as tls:
    tls.sendall(f"POST {target} HTTP/1.1\r\nHost: x\r\nContent-Length: {1 << 20}\r\n\r\n".encode() + b"x" * 102400)
idle = [socket.create_connection(("127.0.0.1", port)) for _ in range(20)]
deadline = time.time() + 30
for s in idle:
    s.settimeout(max(0.1, deadline - time.time()))
    try:
        data = s.recv(1)
    except socket.timeout:
        print("still open"); sys.exit(1)
print("all closed")
