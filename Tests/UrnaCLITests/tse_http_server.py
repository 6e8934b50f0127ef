#!/usr/bin/env python3
"""A stand-in for TSE's open-data server, for `urna download` tests. Listens on 127.0.0.1 only.

  tse_http_server.py zip OUT.zip FILE...            write a deflated zip of FILEs (by base name)
  tse_http_server.py serve ROOT PORTFILE LOGFILE [--drop-once REL]... [--corrupt-once REL]...
                    [--endless REL]... [--announce REL=BYTES]... [--redirect REL=URL]... [--unquoted-etag REL]...

serve: answers GET for files under ROOT with ETag and Last-Modified; If-None-Match / If-Modified-Since
give 304; Range: bytes=N- gives 206 (or 200 when If-Range no longer matches, 416 past the end); a missing
file is 404. --drop-once REL: the first full answer for REL sends half the body, then closes the connection.
--corrupt-once REL: the first full answer for REL sends bytes that are not a zip. Hostile answers (for the
attacker trials): --endless REL sends 200 and zip-like bytes without end; --announce REL=BYTES sends 200 with
that Content-Length and then nothing; --redirect REL=URL answers 302 to URL; --html REL= answers 200 with an
HTML error page; --unquoted-etag REL sends REL's ETag without quotes, as some real servers do; --slow
REL=SECONDS sends REL's full answers in 20 pieces spread over SECONDS. The chosen port is written to PORTFILE; every answer is logged to LOGFILE as one JSON line (path, status, range, bytes).
"""
import email.utils
import hashlib
import http.server
import json
import os
import signal
import sys
import threading
import time
import zipfile

SLOW = {}
UNQUOTED = set()


def make_zip(out, files):
    with zipfile.ZipFile(out, "w", compression=zipfile.ZIP_DEFLATED) as z:
        for f in files:
            z.write(f, arcname=os.path.basename(f))


def serve(root, port_file, log_file, drop_once, corrupt_once, hostile):
    root = os.path.abspath(root)
    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *args):
            pass

        def record(self, status, sent, rng=None):
            with open(log_file, "a") as log:
                log.write(json.dumps({"path": self.path, "status": status, "range": rng, "bytes": sent}) + "\n")

        def answer_hostile(self, kind, value):
            if kind == "redirect":
                self.send_response(302)
                self.send_header("Location", value)
                self.send_header("Content-Length", "0")
                self.end_headers()
                return self.record(302, 0)
            self.send_response(200)
            if kind == "html":
                page = b"<!DOCTYPE html>\n<html><body><h1>Erro 500</h1>Servico indisponivel</body></html>\n"
                self.send_header("Content-Type", "text/html")
                self.send_header("Content-Length", str(len(page)))
                self.end_headers()
                self.wfile.write(page)
                return self.record(200, len(page))
            if kind == "announce":
                self.send_header("Content-Length", value)
            self.end_headers()
            self.record(200, -1)
            if kind == "announce":
                threading.Event().wait(30)
                self.close_connection = True
                return
            chunk = b"PK\x03\x04" + b"\0" * 65532
            try:
                while True:
                    self.wfile.write(chunk)
            except OSError:
                pass
            self.close_connection = True

        def simple(self, status):
            self.send_response(status)
            self.send_header("Content-Length", "0")
            self.end_headers()
            self.record(status, 0, self.headers.get("Range"))

        def do_GET(self):
            rel = self.path.split("?", 1)[0].lstrip("/")
            if rel in hostile:
                return self.answer_hostile(*hostile[rel])
            path = os.path.normpath(os.path.join(root, rel))
            if not path.startswith(root + os.sep) or not os.path.isfile(path):
                return self.simple(404)
            with open(path, "rb") as f:
                body = f.read()
            etag = hashlib.sha256(body).hexdigest()[:16]
            if rel not in UNQUOTED:
                etag = '"' + etag + '"'
            mtime = int(os.path.getmtime(path))
            last_modified = email.utils.formatdate(mtime, usegmt=True)
            inm = self.headers.get("If-None-Match")
            ims = self.headers.get("If-Modified-Since")
            if inm is not None:
                if inm == etag:
                    return self.simple(304)
            elif ims is not None:
                try:
                    if email.utils.parsedate_to_datetime(ims).timestamp() >= mtime:
                        return self.simple(304)
                except (TypeError, ValueError):
                    pass
            start = 0
            status = 200
            rng = self.headers.get("Range")
            if rng and rng.startswith("bytes=") and rng.endswith("-"):
                if_range = self.headers.get("If-Range")
                if if_range is None or if_range in (etag, last_modified):
                    start = int(rng[len("bytes="):-1])
                    if start >= len(body):
                        return self.simple(416)
                    status = 206
            payload = body[start:]
            if status == 200 and rel in corrupt_once:
                corrupt_once.remove(rel)
                payload = b"this is not a zip archive " * (len(body) // 26 + 1)
                payload = payload[: len(body)]
            self.send_response(status)
            self.send_header("ETag", etag)
            self.send_header("Last-Modified", last_modified)
            self.send_header("Accept-Ranges", "bytes")
            self.send_header("Content-Length", str(len(payload)))
            if status == 206:
                self.send_header("Content-Range", "bytes %d-%d/%d" % (start, len(body) - 1, len(body)))
            self.end_headers()
            if status == 200 and rel in drop_once:
                drop_once.remove(rel)
                half = len(payload) // 2
                self.wfile.write(payload[:half])
                self.wfile.flush()
                self.record(status, half, rng)
                self.close_connection = True
                self.connection.shutdown(2)
                return
            if rel in SLOW:
                step = len(payload) // 20 + 1
                for i in range(0, len(payload), step):
                    self.wfile.write(payload[i:i + step])
                    self.wfile.flush()
                    time.sleep(SLOW[rel] / 20)
            else:
                self.wfile.write(payload)
            self.record(status, len(payload), rng)

    # A test runner may start us with signals blocked (threads' masks are inherited): take them back, so
    # SIGTERM stops the server; and stop as well when the test closes our standard input.
    signal.pthread_sigmask(signal.SIG_SETMASK, [])
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.SIG_DFL)

    def watch_stdin():
        sys.stdin.buffer.read()
        os._exit(0)

    threading.Thread(target=watch_stdin, daemon=True).start()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    with open(port_file + ".tmp", "w") as f:
        f.write(str(server.server_address[1]))
    os.rename(port_file + ".tmp", port_file)
    server.serve_forever()


def main(argv):
    if len(argv) >= 3 and argv[1] == "zip":
        make_zip(argv[2], argv[3:])
        return 0
    if len(argv) >= 5 and argv[1] == "serve":
        drop, corrupt, hostile, rest = set(), set(), {}, argv[5:]
        while rest:
            flag, value, rest = rest[0], rest[1], rest[2:]
            if flag == "--slow":
                rel, _, arg = value.partition("=")
                SLOW[rel] = float(arg)
            elif flag == "--unquoted-etag":
                UNQUOTED.add(value)
            elif flag in ("--endless", "--announce", "--redirect", "--html"):
                rel, _, arg = value.partition("=")
                hostile[rel] = (flag[2:], arg)
            else:
                (drop if flag == "--drop-once" else corrupt).add(value)
        serve(argv[2], argv[3], argv[4], drop, corrupt, hostile)
        return 0
    sys.stderr.write(__doc__)
    return 64


if __name__ == "__main__":
    sys.exit(main(sys.argv))
