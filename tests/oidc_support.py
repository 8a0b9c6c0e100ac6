"""A real OpenID Connect provider for the tests: node-oidc-provider, pinned, from the npm
registry (``python -m tests.ensure_tools`` installs it), started on a free loopback port with
its development login form, and a sign-in driven through it as a browser would (cookies,
redirects, the login and consent forms)."""

from __future__ import annotations

import os
import re
import subprocess
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import httpx

from tests.conftest import end_process
from tests.live_support import poll_client, wait_for
from tools.npm_tools import NpmTool

#: The provider (ESM, Node 20): its modules are found from the cache folder the server script
#: is copied to and run from (``folder()/node_modules``).
OIDC_PROVIDER = NpmTool(
    package="oidc-provider", version="9.13.3", program="", entry="oidc-provider/package.json"
)
SERVER = Path(__file__).resolve().parent / "oidc_provider" / "server.mjs"
CLIENT_ID = "playground-tests"
CLIENT_SECRET = "a-client-secret-for-tests-only"


@dataclass(frozen=True)
class Provider:
    issuer: str


def environ(port: int, **extra: str) -> dict[str, str]:
    """The playground's variables for the provider that :func:`oidc_provider` starts on
    ``port`` (known before either starts: each names the other)."""
    return {
        "PLAYGROUND_OIDC_ISSUER": f"http://127.0.0.1:{port}",
        "PLAYGROUND_OIDC_CLIENT_ID": CLIENT_ID,
        "PLAYGROUND_OIDC_CLIENT_SECRET": CLIENT_SECRET,
        **extra,
    }


@contextmanager
def oidc_provider(*, port: int, app_url: str, tmp_dir: Path) -> Iterator[Provider]:
    """The provider on ``port``, for an app at ``app_url``, until the block ends."""
    OIDC_PROVIDER.install()
    # Node resolves "oidc-provider" from the script's folder upwards: run a copy in the cache.
    script = OIDC_PROVIDER.folder() / "server.mjs"
    script.write_text(SERVER.read_text())
    log = open(tmp_dir / "oidc-provider.log", "w")  # noqa: SIM115 - closed below
    process = subprocess.Popen(
        [
            "node",
            str(script),
            str(port),
            CLIENT_ID,
            CLIENT_SECRET,
            f"{app_url}/oidc/callback/",
            f"{app_url}/",
        ],
        stdout=log,
        stderr=subprocess.STDOUT,
        env={**os.environ, "NODE_ENV": "development"},
    )
    issuer = f"http://127.0.0.1:{port}"
    try:
        with poll_client() as client:
            wait_for(lambda: _answers(client, issuer), what="the OIDC provider to answer")
        yield Provider(issuer=issuer)
    finally:
        end_process(process)  # type: ignore[arg-type]
        log.close()


def _answers(client: httpx.Client, issuer: str) -> bool:
    try:
        return client.get(f"{issuer}/.well-known/openid-configuration").is_success
    except httpx.HTTPError:
        return False


_FORM = re.compile(r'<form[^>]*action="([^"]+)"', re.I)
_HIDDEN = re.compile(r'<input type="hidden" name="([^"]+)" value="([^"]*)"', re.I)


def sign_in(client: httpx.Client, *, app_url: str, login: str) -> httpx.Response:
    """Sign in through the provider as ``login`` (its e-mail): the app's sign-in link, the
    provider's login form, its consent form, and back. The last answer (after redirects)."""
    answer = client.get(f"{app_url}/oidc/authenticate/", follow_redirects=True)
    for _ in range(4):  # the login form, then the consent form
        found = _FORM.search(answer.text)
        if found is None or "/interaction/" not in found.group(1):
            return answer
        action = str(answer.url.join(found.group(1)))
        fields = dict(_HIDDEN.findall(answer.text))
        if 'name="login"' in answer.text:  # the login form; the consent form has none
            fields.update(login=login, password="any")
        answer = client.post(action, data=fields, follow_redirects=True)
    return answer


def sign_out(client: httpx.Client, *, app_url: str) -> httpx.Response:
    """Sign out as the sidebar's form does (a POST with the CSRF token), then, when the app
    sends the browser to the provider, confirm there as a person would (the provider's "sign me
    out" form) and follow it back. The app's answer to the POST is the first of the history."""
    answer = client.post(
        f"{app_url}/accounts/logout/",
        data={"csrfmiddlewaretoken": client.cookies["csrftoken"]},
        follow_redirects=True,
    )
    found = _FORM.search(answer.text)
    if found is not None and "/session/end" in found.group(1):
        action = str(answer.url.join(found.group(1)))
        fields = {**dict(_HIDDEN.findall(answer.text)), "logout": "yes"}
        confirmed = client.post(action, data=fields, follow_redirects=True)
        confirmed.history[:0] = [*answer.history, answer]
        return confirmed
    return answer
