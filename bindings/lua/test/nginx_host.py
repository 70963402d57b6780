"""Runs Debian's nginx with the Lua module for a test or a benchmark: a temporary prefix, a config
written from the caller's `http` block, a loopback port chosen free at run time, `daemon off;
master_process off;`, the ndk and lua modules loaded by absolute path. Readiness is the port
answering (polled), never a sleep; the process is stopped (SIGQUIT, then SIGKILL) on the way out.

    with Nginx(http_block) as server:     # http_block: text with {port} and {root} in it
        urllib.request.urlopen(server.url("/path"))
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
NGINX = shutil.which("nginx") or "/usr/sbin/nginx"
MODULES = Path("/usr/share/nginx/modules")
NEEDED = {"nginx": Path(NGINX), "ndk module": MODULES / "ndk_http_module.so",
          "lua module": MODULES / "ngx_http_lua_module.so"}


def missing() -> list[str]:
    """What is not installed of nginx and its Lua module."""
    return [name for name, path in NEEDED.items() if not path.exists()]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


CONFIG = """
load_module {modules}/ndk_http_module.so;
load_module {modules}/ngx_http_lua_module.so;
daemon off;
master_process off;
worker_processes 1;
error_log {prefix}/logs/error.log {log_level};
pid {prefix}/logs/nginx.pid;
{main}
events {{ worker_connections {connections}; }}
http {{
    access_log off;
    client_body_temp_path {prefix}/tmp/body;
    proxy_temp_path {prefix}/tmp/proxy;
    fastcgi_temp_path {prefix}/tmp/fastcgi;
    uwsgi_temp_path {prefix}/tmp/uwsgi;
    scgi_temp_path {prefix}/tmp/scgi;
    lua_package_path "{lua_path}";
{http}
}}
"""


class Nginx:
    def __init__(self, http: str, extra_path: str = "", connections: int = 1024, log_level: str = "warn",
                 start_timeout: float = 30.0, main: str = "") -> None:
        """`http`: the http block's body; `main`: directives of the main context."""
        self.http, self.extra_path, self.connections, self.log_level = http, extra_path, connections, log_level
        self.main = main
        self.start_timeout = start_timeout
        self.prefix = Path(tempfile.mkdtemp(prefix="interlock-nginx-"))
        self.process: subprocess.Popen | None = None
        self.port = 0

    def url(self, path: str) -> str:
        return f"http://127.0.0.1:{self.port}{path}"

    def error_log(self) -> str:
        path = self.prefix / "logs" / "error.log"
        return path.read_text(errors="replace") if path.exists() else ""

    def _start(self) -> bool:
        """Starts nginx on a free port; False if the port was taken meanwhile (then try another)."""
        self.port = free_port()
        for folder in ("logs", "tmp", "conf"):
            (self.prefix / folder).mkdir(exist_ok=True)
        (self.prefix / "logs" / "error.log").write_text("")
        http = self.http.replace("{port}", str(self.port)).replace("{root}", str(ROOT))
        # The checkout's module first, then the caller's, then ";;": the default (resty.core is there).
        lua_path = ";".join([f"{ROOT}/bindings/lua/?.lua", *filter(None, [self.extra_path])]) + ";;"
        config = CONFIG.format(modules=MODULES, prefix=self.prefix, lua_path=lua_path,
                               connections=self.connections, log_level=self.log_level, http=http, main=self.main)
        conf = self.prefix / "conf" / "nginx.conf"
        conf.write_text(config)
        self.process = subprocess.Popen([NGINX, "-p", str(self.prefix), "-c", str(conf), "-e",
                                         str(self.prefix / "logs" / "error.log")],
                                        stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        deadline = time.monotonic() + self.start_timeout
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                log = self.error_log() + (self.process.stderr.read().decode(errors="replace") if self.process.stderr else "")
                if "Address already in use" in log:
                    return False
                raise RuntimeError(f"nginx exited with {self.process.returncode}:\n{log}")
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=0.5):
                    return True
            except OSError:
                time.sleep(0.02)
        self.stop()
        raise RuntimeError(f"nginx did not answer on port {self.port} within {self.start_timeout} s:\n{self.error_log()}")

    def __enter__(self) -> "Nginx":
        for _ in range(5):
            if self._start():
                return self
        raise RuntimeError("nginx: no free port after 5 tries")

    def stop(self) -> None:
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)     # graceful: finishes the requests under way
            try:
                self.process.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __exit__(self, *exc: object) -> None:
        self.stop()
        if not os.environ.get("INTERLOCK_KEEP_NGINX_PREFIX"):
            shutil.rmtree(self.prefix, ignore_errors=True)
