#!/usr/bin/python3
# `localsend_v1_receiver.py FOLDER`: a LocalSend receiver that speaks only v1: plain HTTP,
# `GET /api/localsend/v1/info`, `send-request` answering the tokens, `send?fileId&token`;
# every v2 path is 404. Writes what it receives into FOLDER.
#
# Written here from the v1 specification with Python's standard library, not Courier's code: no
# packaged LocalSend peer speaks only v1, and Courier's fallback must meet one nobody here wrote.
import http.server, json, os, sys, urllib.parse, uuid
folder = sys.argv[1]
tokens = {}
class Handler(http.server.BaseHTTPRequestHandler):
    def answer(self, status, body=None):
        data = b"" if body is None else json.dumps(body).encode()
        self.send_response(status); self.send_header("Content-Length", str(len(data))); self.end_headers(); self.wfile.write(data)
    def do_GET(self):
        if self.path == "/api/localsend/v1/info": self.answer(200, {"alias": "v1-only", "deviceModel": "spec", "deviceType": "desktop"})
        else: self.answer(404, {"message": "not found"})
    def do_POST(self):
        url = urllib.parse.urlparse(self.path); query = dict(urllib.parse.parse_qsl(url.query))
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        if url.path == "/api/localsend/v1/send-request":
            files = json.loads(body)["files"]
            for fid, f in files.items(): tokens[fid] = (uuid.uuid4().hex, f["fileName"])
            self.answer(200, {fid: t for fid, (t, _) in tokens.items()})
        elif url.path == "/api/localsend/v1/send" and "sessionId" not in query and tokens.get(query.get("fileId"), ("",))[0] == query.get("token"):
            with open(os.path.join(folder, tokens[query["fileId"]][1]), "wb") as f: f.write(body)
            self.answer(200)
        elif url.path == "/api/localsend/v1/cancel": self.answer(200)
        else: self.answer(404 if not url.path.startswith("/api/localsend/v1/") else 403, {"message": "refused"})
    def log_message(self, *args): pass
server = http.server.HTTPServer(("127.0.0.1", 0), Handler)
print(server.server_address[1], flush=True)
server.serve_forever()
