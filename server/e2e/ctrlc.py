"""make run and make dev in a real terminal: Ctrl-C stops them and make exits 0 (make e2e runs this).

Usage: python3 server/e2e/ctrlc.py run|dev PORT
"""
import os
import pty
import select
import sys
import time

target, port = sys.argv[1], sys.argv[2]
ready = b"dev: serving" if target == "dev" else b"msg=serving"
pid, fd = pty.fork()
if pid == 0:
    os.environ.update(ADDR=f"127.0.0.1:{port}", DATA_DIR=os.environ.get("CTRLC_DATA", "/tmp/twofold-ctrlc-data"))
    os.execvp("make", ["make", "-s", target])
out = b""


def read(seconds):
    global out
    end = time.time() + seconds
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.2)
        if r:
            try:
                data = os.read(fd, 4096)
            except OSError:
                return
            if not data:
                return
            out += data
            if ready in out and seconds > 100:
                return


read(600)  # a cold start compiles the programs
if ready not in out:
    print(out.decode(errors="replace")[-2000:])
    sys.exit(f"FAIL make {target} did not start")
time.sleep(0.5)
os.write(fd, b"\x03")  # what the terminal sends for Ctrl-C
read(20)
_, status = os.waitpid(pid, 0)
code = os.waitstatus_to_exitcode(status)
if code != 0 or b"Error" in out or b"Interrupt" in out:
    print(out.decode(errors="replace")[-2000:])
    sys.exit(f"FAIL make {target}: exit {code} after Ctrl-C")
print(f"ok   make {target}: Ctrl-C in a terminal stops it and make exits 0")
