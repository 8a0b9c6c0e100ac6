"""docs/deploy/nginx.conf in front of two real servers, with the documented production settings.

Real nginx (TLS with a self-signed certificate), two ``python -m playground.serve
--proxy-headers`` processes as playground@.service starts them, ``docs/deploy/playground.env``
(debug off, login, ``DJANGO_HTTPS=1``, only the public host allowed). Through the proxy: a page,
a WebSocket run on the built-in simulator, share links that come out ``https://``.
"""

from __future__ import annotations

import asyncio
import re
import sys
from collections.abc import AsyncIterator, Iterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest

from tests import prefork
from tests.conftest import ROOT
from tests.deploy_support import PUBLIC_HOST, PUBLIC_ORIGIN, Nginx, nginx_in_front, production_env
from tests.live_support import DEADLINE, read_run, until
from tests.multiprocess_support import Cluster, two_processes
from tests.redis_support import RedisServer
from tests.ws_client import WsClient

USERNAME, PASSWORD = "alice", "a long test password"


@dataclass(frozen=True)
class Deployment:
    cluster: Cluster
    nginx: Nginx


@pytest.fixture(scope="module")
def deployment(
    tmp_path_factory: pytest.TempPathFactory, redis_server: RedisServer
) -> Iterator[Deployment]:
    tmp = tmp_path_factory.mktemp("nginx")
    with two_processes(
        tmp,
        redis_url=redis_server.url,
        serve_args=("--proxy-headers",),
        extra_env=production_env(),
        hold_sockets=False,  # each binds its port, as playground@.service does
    ) as cluster:
        made = prefork.run(
            [sys.executable, "manage.py", "createsuperuser", "--no-input"],
            cwd=ROOT,
            env={
                **cluster.env,
                "DJANGO_SUPERUSER_USERNAME": USERNAME,
                "DJANGO_SUPERUSER_EMAIL": "alice@example.com",
                "DJANGO_SUPERUSER_PASSWORD": PASSWORD,
            },
        )
        assert made.returncode == 0, made.stdout + made.stderr
        upstreams = [process.url.removeprefix("http://") for process in cluster.processes.values()]
        with nginx_in_front(tmp, upstreams=upstreams) as proxy:
            yield Deployment(cluster=cluster, nginx=proxy)


@pytest.fixture
def nginx(deployment: Deployment) -> Nginx:
    return deployment.nginx


@dataclass
class Browser:
    """What a browser at https://play.example.com sends: that Host, that Origin, its cookies."""

    client: httpx.AsyncClient

    async def call(self, method: str, path: str, body: Any = None) -> httpx.Response:
        headers = {"X-CSRFToken": self.client.cookies.get("csrftoken", "")}
        return await self.client.request(method, path, json=body, headers=headers)

    def cookie(self) -> str:
        return "; ".join(f"{name}={value}" for name, value in self.client.cookies.items())


@pytest.fixture
async def browser(nginx: Nginx) -> AsyncIterator[Browser]:
    headers = {"Host": PUBLIC_HOST, "Origin": PUBLIC_ORIGIN, "Referer": f"{PUBLIC_ORIGIN}/"}
    async with httpx.AsyncClient(
        base_url=nginx.https_url, verify=nginx.tls, headers=headers, timeout=DEADLINE
    ) as client:
        await client.get("/accounts/login/")
        login = await client.post(
            "/accounts/login/",
            data={
                "username": USERNAME,
                "password": PASSWORD,
                "csrfmiddlewaretoken": client.cookies["csrftoken"],
            },
        )
        assert login.status_code == 302, login.text
        yield Browser(client=client)


async def test_a_page_through_the_proxy_is_https_with_hsts(browser: Browser) -> None:
    page = await browser.client.get("/")
    assert page.status_code == 200, page.text
    assert "<html" in page.text
    assert page.headers["strict-transport-security"].startswith("max-age=31536000")


async def test_plain_http_is_sent_to_https(nginx: Nginx) -> None:
    async with httpx.AsyncClient(base_url=nginx.http_url, trust_env=False) as client:
        answer = await client.get("/c/123/?x=1", headers={"Host": PUBLIC_HOST})
    assert answer.status_code == 301
    assert answer.headers["location"] == f"https://{PUBLIC_HOST}/c/123/?x=1"


async def test_a_websocket_run_on_the_simulator_through_the_proxy(
    nginx: Nginx, browser: Browser
) -> None:
    created = await browser.call("POST", "/api/conversations/", {"profile": "simulator"})
    assert created.status_code == 201, created.text
    ws = await WsClient.connect(
        nginx.https_url,
        f"/ws/conversations/{created.json()['id']}/",
        tls=nginx.tls,
        host_header=PUBLIC_HOST,
        origin=PUBLIC_ORIGIN,
        cookie=browser.cookie(),
    )
    try:
        hello = await ws.receive_json()
        assert hello["type"] == "hello", hello
        await ws.send_json({"action": "send", "content": "Tell me about proxies"})
        run = await read_run(ws)
    finally:
        await ws.close()
    # The app reached its own simulator at 127.0.0.1 although only the public host is listed.
    assert run.finished is not None and run.finished["status"] == "complete", run.finished
    assert run.text()


async def test_share_links_come_out_https(browser: Browser) -> None:
    created = await browser.call("POST", "/api/conversations/", {"profile": "simulator"})
    conversation_id = created.json()["id"]
    share = await browser.call("POST", f"/api/conversations/{conversation_id}/shares/", {})
    assert share.status_code == 201, share.text
    assert share.json()["url"].startswith(f"https://{PUBLIC_HOST}/s/")


async def test_a_rolling_restart_drains_each_process_and_nginx_answers_throughout(
    deployment: Deployment, browser: Browser
) -> None:
    """docs/deploy.md's loop: SIGTERM one process (the drain), start it, wait until it answers,
    then the next. Requests through nginx all along are all answered by a live process."""
    statuses: list[int] = []
    done = asyncio.Event()

    async def probe() -> None:
        while not done.is_set():
            statuses.append((await browser.client.get("/api/conversations/")).status_code)

    task = asyncio.create_task(probe())
    try:
        for name in ("p1", "p2"):
            before = len(statuses)
            assert await asyncio.to_thread(deployment.cluster.terminate, name) == 0
            await asyncio.to_thread(deployment.cluster.start, name)
            # Requests went on meanwhile (else the probe proves nothing about this restart).
            await until(lambda b=before: len(statuses) > b + 5, what="requests after the restart")
    finally:
        done.set()
        await task
    assert set(statuses) == {200}, sorted(set(statuses))
    for name in ("p1", "p2"):
        assert "shut down: every live run saved" in deployment.cluster.log_text(name)


def _pdf_of(size: int) -> bytes:
    """A PDF of about ``size`` bytes: a small one, padded with a comment line."""
    from tests.attachment_support import pdf

    small = pdf(1)
    head, rest = small.split(b"\n", 1)
    return head + b"\n%" + b"x" * (size - len(small) - 2) + b"\n" + rest


def test_the_proxy_takes_the_largest_body_the_app_does() -> None:
    # 2 MB refused every 5 MB image and 32 MB PDF: the line follows the app's own limits.
    from playground.attachments.views import MULTIPART_SLACK
    from playground.protocol.attachments import AttachmentLimits

    text = (ROOT / "docs/deploy/nginx.conf").read_text()
    [megabytes] = re.findall(r"^\s*client_max_body_size (\d+)m;", text, flags=re.MULTILINE)
    largest = max(AttachmentLimits().pdf_max_bytes, AttachmentLimits().image_max_bytes)
    assert int(megabytes) * 1024 * 1024 >= largest + MULTIPART_SLACK


async def test_a_large_pdf_goes_through_the_proxy_and_a_larger_body_is_named(
    browser: Browser,
) -> None:
    headers = {"X-CSRFToken": browser.client.cookies.get("csrftoken", "")}
    document = _pdf_of(31 * 1024 * 1024)
    answer = await browser.client.post(
        "/api/attachments/",
        files={"file": ("report.pdf", document, "application/pdf")},
        headers=headers,
    )
    assert answer.status_code == 201, answer.text[:300]
    assert answer.json()["block"]["source"]["size"] == len(document)
    too_big = await browser.client.post(
        "/api/attachments/",
        files={"file": ("huge.pdf", _pdf_of(34 * 1024 * 1024), "application/pdf")},
        headers=headers,
    )
    assert too_big.status_code == 413
    assert too_big.headers["content-type"].startswith("application/json")
    assert "33 MB" in too_big.json()["error"]["message"]
