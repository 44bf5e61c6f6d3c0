#!/usr/bin/python3
# `consent_terminal.py ANSWER PROGRAM [ARG…]`: a person at a terminal: runs PROGRAM on a
# pseudo-terminal (its standard input, output and error), copies what it writes to standard
# output, types ANSWER and Enter once the prompt "Accept? [y/N]" shows (never, when ANSWER is
# empty), and passes SIGTERM on.
#
# A terminal of its own (pty.fork), not Courier's code: what it reads is what a person would see.
import os, pty, signal, select, sys
answer, argv = sys.argv[1], sys.argv[2:]
pid, fd = pty.fork()
if pid == 0:
    os.execv(argv[0], argv)
signal.signal(signal.SIGTERM, lambda *_: os.kill(pid, signal.SIGTERM))
seen, answered = b"", False
while True:
    ready, _, _ = select.select([fd], [], [], 0.1)
    if not ready:
        continue
    try:
        data = os.read(fd, 4096)
    except OSError:
        break
    if not data:
        break
    sys.stdout.buffer.write(data); sys.stdout.flush()
    seen += data
    if answer and not answered and b"Accept? [y/N]" in seen:
        os.write(fd, answer.encode() + b"\r")
        answered = True
_, status = os.waitpid(pid, 0)
sys.exit(os.waitstatus_to_exitcode(status))
