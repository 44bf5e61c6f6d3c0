#!/usr/bin/python3
# `pin_guesser.py PORT BODY PIN`: an attacker guessing the receiver's PIN on PORT: wrong PINs
# from a new source address each, then the right PIN as the eleventh guess, sending the
# request BODY (a file); a 429 (back-off) is retried from the next address. Prints what it
# heard, as JSON.
#
# Written from the LocalSend protocol with Python's own `ssl` and `http.client`, not Courier's code:
# an attacker nobody here wrote, so the receiver is tested against what arrives on the wire.
import http.client, json, ssl, sys, time
port, body, right = int(sys.argv[1]), open(sys.argv[2], "rb").read(), sys.argv[3]
context = ssl.create_default_context(); context.check_hostname = False; context.verify_mode = ssl.CERT_NONE
guesses = [f"{n:04d}" for n in range(10)] + [right] + [f"{n:04d}" for n in range(10, 40)]
heard = {"wrong": 0, "backoff": 0, "accepted": [], "closed": 0, "answers": [], "sources": 0}
source, deadline = 2, time.time() + 90
for pin in guesses:
    while time.time() < deadline:
        address = f"127.0.{source >> 8}.{source & 255}"
        source += 1
        if source & 255 in (0, 255): source += 2
        connection = http.client.HTTPSConnection("127.0.0.1", port, context=context, source_address=(address, 0), timeout=10)
        connection.request("POST", f"/api/localsend/v2/prepare-upload?pin={pin}", body, {"content-type": "application/json"})
        response = connection.getresponse(); text = response.read().decode(); connection.close()
        heard["sources"] += 1
        if response.status == 429:
            heard["backoff"] += 1; time.sleep(0.05); continue
        heard["answers"].append([pin, response.status, text])
        if response.status == 200: heard["accepted"].append(pin)
        if response.status == 401: heard["wrong"] += 1
        if response.status == 403: heard["closed"] += 1
        break
    if heard["closed"] >= 5: break
print(json.dumps(heard))
