"""The deployment as docs/deploy.md writes it: its environment file, its nginx config, run for real.

Rule: the tests read the documented files themselves (``docs/deploy/playground.env``,
``docs/deploy/nginx.conf``) and change only what a test machine must: loopback ports instead of
80/443, a self-signed certificate instead of the real one, the servers it started in the
upstream, and files under the test's temporary directory. nginx runs in the foreground as a
child of the test, readiness polled with a deadline.
"""

from __future__ import annotations

import os
import re
import secrets
import shutil
import ssl
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest

from tests.conftest import ROOT, end_process
from tests.live_support import DEADLINE, free_port, poll_client, wait_for

DEPLOY = ROOT / "docs" / "deploy"
PUBLIC_HOST = "play.example.com"
PUBLIC_ORIGIN = f"https://{PUBLIC_HOST}"


def production_env() -> dict[str, str]:
    """``docs/deploy/playground.env``, with a fresh secret key as the install step makes."""
    env: dict[str, str] = {}
    for line in (DEPLOY / "playground.env").read_text().splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            env[name.strip()] = value.strip()
    env["DJANGO_SECRET_KEY"] = secrets.token_urlsafe(50)
    return env


def _program(name: str) -> str:
    found = shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")
    if found is None:
        pytest.fail(
            f"{name} is missing: install it with `.venv/bin/python -m tests.ensure_tools`.",
            pytrace=False,
        )
    return found


def self_signed(tmp_dir: Path) -> tuple[Path, Path]:
    """A certificate and key for the public host (the test trusts this certificate only)."""
    cert, key = tmp_dir / "cert.pem", tmp_dir / "key.pem"
    subprocess.run(
        [
            _program("openssl"),
            *("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1"),
            *("-subj", f"/CN={PUBLIC_HOST}", "-addext", f"subjectAltName=DNS:{PUBLIC_HOST}"),
            *("-keyout", str(key), "-out", str(cert)),
        ],
        check=True,
        capture_output=True,
    )
    return cert, key


@dataclass(frozen=True)
class Nginx:
    https_url: str  # loopback; send Host: PUBLIC_HOST
    http_url: str
    tls: ssl.SSLContext
    process: subprocess.Popen[bytes]


def site_config(
    *, upstreams: list[str], https_port: int, http_port: int, cert: Path, key: Path
) -> str:
    """docs/deploy/nginx.conf with this machine's ports, servers and certificate."""
    text = (DEPLOY / "nginx.conf").read_text()
    # The documented servers, in order, become ours (their options kept).
    documented = re.findall(r"(?m)^\s*server (127\.0\.0\.1:\d+)", text)
    assert len(documented) == len(upstreams), f"docs/deploy/nginx.conf lists {documented}"
    for address, ours in zip(documented, upstreams, strict=True):
        text = text.replace(f"server {address}", f"server {ours}", 1)
    text = re.sub(r"(?m)^\s*listen \[::\]:\d+( ssl)?;\n", "", text)
    text = text.replace("listen 443 ssl;", f"listen 127.0.0.1:{https_port} ssl;")
    text = text.replace("listen 80;", f"listen 127.0.0.1:{http_port};")
    text = re.sub(r"ssl_certificate\s+\S+;", f"ssl_certificate {cert};", text)
    return re.sub(r"ssl_certificate_key\s+\S+;", f"ssl_certificate_key {key};", text)


MAIN = """
daemon off;
master_process on;
worker_processes 1;
{user}
pid {tmp}/nginx.pid;
error_log {tmp}/error.log info;
events {{ worker_connections 256; }}
http {{
    access_log {tmp}/access.log;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
    include {tmp}/site.conf;
}}
"""


@contextmanager
def nginx_in_front(tmp_dir: Path, *, upstreams: list[str]) -> Iterator[Nginx]:
    """Real nginx with the documented site config in front of ``upstreams`` (host:port)."""
    binary = _program("nginx")
    cert, key = self_signed(tmp_dir)
    https_port, http_port = free_port(), free_port()
    (tmp_dir / "site.conf").write_text(
        site_config(
            upstreams=upstreams, https_port=https_port, http_port=http_port, cert=cert, key=key
        )
    )
    # As root, workers would switch to nobody, who cannot enter the test's private directory.
    user = "user root;" if os.geteuid() == 0 else ""
    (tmp_dir / "nginx.conf").write_text(MAIN.format(tmp=tmp_dir, user=user))
    command = [binary, "-p", str(tmp_dir), "-c", str(tmp_dir / "nginx.conf"), "-e", "stderr"]
    subprocess.run([*command, "-t", "-q"], check=True)
    process = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    tls = ssl.create_default_context(cafile=str(cert))
    tls.check_hostname = False  # loopback address; the certificate itself is still verified
    nginx = Nginx(
        https_url=f"https://127.0.0.1:{https_port}",
        http_url=f"http://127.0.0.1:{http_port}",
        tls=tls,
        process=process,
    )

    def up(client: httpx.Client) -> bool:
        if process.poll() is not None:
            raise AssertionError(f"nginx exited with {process.returncode}")
        try:
            client.get(nginx.http_url, headers={"Host": PUBLIC_HOST})
            return True
        except httpx.TransportError:
            return False

    try:
        with poll_client() as client:
            wait_for(lambda: up(client), what="nginx to answer")
        yield nginx
    finally:
        end_process(process, grace=DEADLINE)  # SIGTERM: nginx's fast shutdown
