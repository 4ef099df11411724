"""A harness that misbehaves on purpose, for the protocol's tests; well-behaved cases run the
minimal Python harness's tool loop.

    python tests/harnesses/unruly.py BEHAVIOUR [CASE_ID]

BEHAVIOUR happens on the case CASE_ID (every case when none is given): crash (exit 3), segfault,
hang, run-then-hang (runs the loop, then never answers), garbage, exit-early (exit 0 without
answering), wrong-seq, bad-answer, skip, error, connect and hostless-connect (a CONNECT to a host, or
naming none, through the proxy the environment names, then behave), nothing
(answer ok without sending a request), stderr (log noise on stderr, then behave), control (a name
and an error full of terminal escapes), environment (an error naming the credential variables it
was given), daemon (leaves a grandchild that forks twice, calls setsid, closes its streams and
sleeps, its pid written to $UNRULY_PID_FILE, then behaves). At start: start-crash, start-garbage,
start-version (protocol 99), start-bad (no apis).
"""

from __future__ import annotations

import ctypes
import json
import os
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "harnesses" / "minimal-python"))

from harness import run  # the minimal harness's tool loop

BEHAVIOUR = sys.argv[1]
TARGET = sys.argv[2] if len(sys.argv) > 2 else None


def say(message: object) -> None:
    sys.stdout.write(json.dumps(message) + "\n")
    sys.stdout.flush()


ESCAPES = "\x1b]0;owned\x07\x1b[2J\x1b[1A\r\u202e"  # window title, clear screen, line up, reordering


def started() -> dict[str, object]:
    name = f"unruly{ESCAPES}" if BEHAVIOUR == "control" else "unruly"
    implementation = {"name": name, "language": "python", "version": "0", "apis": ["openai-chat"]}
    return {"version": 1, "implementation": implementation}


for line in sys.stdin:
    command = json.loads(line)
    if command["cmd"] == "start":
        if BEHAVIOUR == "start-crash":
            sys.exit(5)
        if BEHAVIOUR == "start-garbage":
            say("hello")
            continue
        if BEHAVIOUR == "start-version":
            say({**started(), "version": 99})
            continue
        if BEHAVIOUR == "start-bad":
            say({"version": 1, "implementation": {"name": "unruly"}})
            continue
        say(started())
        continue
    if command["cmd"] == "stop":
        break
    seq, case = command["seq"], command["case"]
    if TARGET is None or case["id"] == TARGET:
        if BEHAVIOUR == "crash":
            sys.exit(3)
        if BEHAVIOUR == "segfault":
            ctypes.string_at(0)
        if BEHAVIOUR == "hang":
            time.sleep(3600)
        if BEHAVIOUR == "run-then-hang":  # the library's loop ends, and the harness never answers
            run(case)
            time.sleep(3600)
        if BEHAVIOUR == "garbage":
            sys.stdout.write("Traceback (most recent call last): oops\n")
            sys.stdout.flush()
            continue
        if BEHAVIOUR == "exit-early":
            os._exit(0)
        if BEHAVIOUR == "wrong-seq":
            say({"seq": seq + 7, "ok": True})
            continue
        if BEHAVIOUR == "bad-answer":
            say({"seq": seq, "ok": True, "skipped": "both at once"})
            continue
        if BEHAVIOUR == "skip":
            say({"seq": seq, "skipped": "this library has no parallel tool calls"})
            continue
        if BEHAVIOUR == "error":
            say({"seq": seq, "errored": {"message": "TypeError: x is undefined", "detail": "at loop (run.mjs:12)"}})
            continue
        if BEHAVIOUR == "control":
            say({"seq": seq, "errored": {"message": f"boom{ESCAPES}", "detail": f"at line 1{ESCAPES}\nat line 2"}})
            continue
        if BEHAVIOUR == "environment":
            held = sorted(name for name in os.environ if "KEY" in name or "TOKEN" in name or "SECRET" in name)
            say({"seq": seq, "errored": {"message": "credentials: " + ",".join(held)}})
            continue
        if BEHAVIOUR == "daemon" and os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.closerange(0, 1024)
                Path(os.environ["UNRULY_PID_FILE"]).write_text(str(os.getpid()))
                time.sleep(300)
            os._exit(0)
        if BEHAVIOUR == "daemon":
            os.wait()
        if BEHAVIOUR == "nothing":
            say({"seq": seq, "ok": True})
            continue
        if BEHAVIOUR == "stderr":
            print("a log line the library writes", file=sys.stderr)
        if BEHAVIOUR in ("hostless-connect", "connect"):  # through the proxy the environment names
            import socket
            from urllib.parse import urlsplit

            proxy = urlsplit(os.environ["HTTPS_PROXY"])
            host = b"" if BEHAVIOUR == "hostless-connect" else b"example.com:443"
            with socket.create_connection((proxy.hostname, proxy.port)) as tunnel:
                head = b"CONNECT " + host + b" HTTP/1.1\r\nHost: " + host + b"\r\nUser-Agent: grpc-go/1.70.0\r\n\r\n"
                tunnel.sendall(head)
                tunnel.recv(1024)
    try:
        say({"seq": seq, "ok": True, "output": run(case)})
    except Exception as error:
        say({"seq": seq, "errored": {"message": str(error)}})
