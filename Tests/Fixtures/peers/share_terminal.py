#!/usr/bin/python3
# `share_terminal.py SPEC`: a person at a terminal in front of the share sheet. SPEC is JSON:
# `argv` and `env` of the program to run on a pseudo-terminal (Python's `pty`), and `steps`, each
# `expect` (wait up to 20 s for the text on the screen), `remove` (delete a file), `choose` (type
# the number the sheet shows before that title) or `send` (type a line). Prints everything the
# terminal showed and exits with the program's status.
#
# A terminal of its own (pty.fork), not Courier's code: what it reads is what a person would see.
import json, os, pty, re, select, sys, time
spec = json.loads(sys.argv[1])
pid, fd = pty.fork()
if pid == 0:
    os.execve(spec["argv"][0], spec["argv"], spec["env"])
screen = b""
def until(text):
    global screen
    end = time.time() + 20
    while text.encode() not in screen:
        ready, _, _ = select.select([fd], [], [], max(0, end - time.time()))
        if not ready:
            sys.stderr.write("timed out waiting for %r\n" % text); break
        try:
            data = os.read(fd, 4096)
        except OSError:
            data = b""
        if not data:
            sys.stderr.write("the program ended before %r\n" % text); break
        screen += data
for step in spec["steps"]:
    if "expect" in step: until(step["expect"])
    if "remove" in step: os.unlink(step["remove"])
    if "choose" in step:
        number = re.search(rb"(\d+)\) " + re.escape(step["choose"].encode()), screen)
        os.write(fd, (number.group(1) if number else b"?") + b"\n")
    if "send" in step: os.write(fd, step["send"].encode() + b"\n")
while True:
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data: break
    screen += data
_, status = os.waitpid(pid, 0)
sys.stdout.write(screen.decode(errors="replace"))
sys.exit(os.waitstatus_to_exitcode(status))
