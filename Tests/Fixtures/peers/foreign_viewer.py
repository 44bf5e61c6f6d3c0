#!/usr/bin/python3
"""A foreign desktop app for Courier's tests: a GApplication written with PyGObject (Debian
python3-gi) that knows nothing of Courier and only speaks org.freedesktop.Application, as any
GApplication with HANDLES_OPEN does.

Run it D-Bus-activated with --gapplication-service. Each Open call is appended to the file named
by $VIEWER_RECORD as one JSON line: {"uris": [...], "platform_data": {...}}.
The application id (its bus name) is $VIEWER_APP_ID, default org.example.ForeignViewer.
"""
import json
import os
import sys

import gi

gi.require_version("Gio", "2.0")
from gi.repository import Gio  # noqa: E402

APP_ID = os.environ.get("VIEWER_APP_ID", "org.example.ForeignViewer")
RECORD = os.environ["VIEWER_RECORD"]


class Viewer(Gio.Application):
    def __init__(self):
        super().__init__(application_id=APP_ID, flags=Gio.ApplicationFlags.HANDLES_OPEN)
        self.platform_data = {}

    def do_before_emit(self, platform_data):
        # Open's a{sv} platform data (activation-token, desktop-startup-id) arrives here.
        self.platform_data = {key: platform_data[key] for key in platform_data.keys()}
        Gio.Application.do_before_emit(self, platform_data)

    def do_open(self, files, n_files, hint):
        entry = {
            "uris": [f.get_uri() for f in files],
            "platform_data": {k: str(v) for k, v in self.platform_data.items()},
        }
        with open(RECORD, "a", encoding="utf-8") as out:
            out.write(json.dumps(entry) + "\n")

    def do_activate(self):
        pass


if __name__ == "__main__":
    sys.exit(Viewer().run(sys.argv))
