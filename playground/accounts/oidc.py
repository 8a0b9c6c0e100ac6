"""Sign-in through OpenID Connect (mozilla-django-oidc), beside Django's own accounts.

Rule: configured by the environment alone (``settings.PLAYGROUND_OIDC``: the issuer, the
client's id and secret, the e-mail domains let in, the claim that makes staff). The provider's
endpoints come from its discovery document (``{issuer}/.well-known/openid-configuration``),
read once when first needed, never at import. A person is found by their verified e-mail
address (an account's e-mail or username) or made with it as username; each sign-in sets
``is_staff`` from the claim. An ID token is accepted only from the issuer, for this client,
unexpired, signed as its JWKS says, with the sign-in's nonce (the library checks the last two).
A refused sign-in (a domain not let in, an unverified address) says so on the login page, and
the audit log keeps why. Signing out of a session the provider signed in ends the provider's
session too when it offers an ``end_session_endpoint`` (RP-initiated logout): the playground's
session ends here, then the browser is sent there with the sign-in's ID token as the hint, and
comes back to the site.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlencode

import requests
from django.conf import settings
from django.contrib.sessions.backends.base import SessionBase
from django.core.exceptions import SuspiciousOperation
from django.db.models import Q
from django.http import HttpRequest
from django.shortcuts import resolve_url
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.views import (
    OIDCAuthenticationCallbackView,
    OIDCAuthenticationRequestView,
    OIDCLogoutView,
)

__all__ = [
    "ON_SIGN_IN_REFUSED",
    "PlaygroundOIDCBackend",
    "SignInView",
    "SignOutView",
    "SignedInView",
    "discovered",
    "provider_sign_out_url",
    "refusal_of",
    "staff_by_claims",
]

logger = logging.getLogger(__name__)

#: The settings the library reads that come from the provider's discovery document.
_DISCOVERED = {
    "OIDC_OP_AUTHORIZATION_ENDPOINT": "authorization_endpoint",
    "OIDC_OP_TOKEN_ENDPOINT": "token_endpoint",
    "OIDC_OP_USER_ENDPOINT": "userinfo_endpoint",
    "OIDC_OP_JWKS_ENDPOINT": "jwks_uri",
}
_document: dict[str, Any] | None = None
_document_lock = threading.Lock()

#: Called with (the request, the refused e-mail address or "", why) when a sign-in is refused
#: (the audit log records it: ``playground.audit``).
ON_SIGN_IN_REFUSED: list[Callable[[HttpRequest, str, str], None]] = []


def discovered() -> dict[str, Any]:
    """The issuer's discovery document, fetched once (again after a failure)."""
    global _document
    with _document_lock:
        if _document is None:
            issuer = settings.PLAYGROUND_OIDC["issuer"]
            answer = requests.get(
                f"{issuer}/.well-known/openid-configuration",
                timeout=settings.PLAYGROUND_OIDC["timeout"],
            )
            answer.raise_for_status()
            document = answer.json()
            if document.get("issuer", "").rstrip("/") != issuer:
                raise SuspiciousOperation(
                    f"the discovery document names issuer {document.get('issuer')!r}, "
                    f"not {issuer!r}"
                )
            _document = document
        return _document


def _setting(attr: str, *default: Any) -> Any:
    if attr in _DISCOVERED:
        return discovered()[_DISCOVERED[attr]]
    return getattr(settings, attr, *default)


def staff_by_claims(claims: dict[str, Any], rule: str) -> bool:
    """Whether ``claims`` make a person staff by ``rule``: ``claim=value`` (equal, or among a
    list's values), or ``claim`` alone (true); an empty rule makes nobody staff."""
    if not rule:
        return False
    name, has_value, value = rule.partition("=")
    found = claims.get(name.strip())
    if not has_value:
        return found is True or (isinstance(found, str) and found.lower() == "true")
    if isinstance(found, list):
        return value.strip() in [str(item) for item in found]
    return found is not None and str(found) == value.strip()


def refusal_of(claims: dict[str, Any], *, allowed_domains: tuple[str, ...]) -> str | None:
    """Why these claims may not sign in, or None."""
    email = claims.get("email")
    if not isinstance(email, str) or "@" not in email:
        return "the provider gave no e-mail address"
    if claims.get("email_verified") is False:
        return "the e-mail address is not verified"
    domain = email.rsplit("@", 1)[1].lower()
    if allowed_domains and domain not in allowed_domains:
        return f"the e-mail domain {domain} is not allowed here"
    return None


class PlaygroundOIDCBackend(OIDCAuthenticationBackend):
    """The library's backend with the endpoints discovered, the e-mail domain checked, the
    ID token's issuer, audience and expiry checked, and staff set from a claim."""

    @staticmethod
    def get_settings(attr: str, *args: Any) -> Any:
        return _setting(attr, *args)

    def verify_claims(self, claims: dict[str, Any]) -> bool:
        refusal = refusal_of(claims, allowed_domains=settings.PLAYGROUND_OIDC["allowed_domains"])
        if refusal is None:
            return True
        logger.warning("an OpenID Connect sign-in was refused: %s", refusal)
        for listener in ON_SIGN_IN_REFUSED:
            listener(self.request, str(claims.get("email") or ""), refusal)
        return False

    def verify_token(self, token: str, **kwargs: Any) -> Any:
        payload = super().verify_token(token, **kwargs)
        issuer = settings.PLAYGROUND_OIDC["issuer"]
        audience = payload.get("aud")
        audiences = audience if isinstance(audience, list) else [audience]
        if str(payload.get("iss", "")).rstrip("/") != issuer:
            raise SuspiciousOperation("the ID token is not from the configured issuer")
        if settings.PLAYGROUND_OIDC["client_id"] not in audiences:
            raise SuspiciousOperation("the ID token is not for this client")
        if not isinstance(payload.get("exp"), int) or payload["exp"] < time.time():
            raise SuspiciousOperation("the ID token has expired")
        return payload

    def filter_users_by_claims(self, claims: dict[str, Any]) -> Any:
        """The person with this verified address, or named by it: the library matches the
        e-mail field alone, and an account made in the admin named by the address (whose
        e-mail field may be empty) was made again, which its unique username refused (a 500)."""
        email = claims.get("email")
        if not isinstance(email, str) or not email:
            return self.UserModel.objects.none()
        return self.UserModel.objects.filter(Q(email__iexact=email) | Q(username__iexact=email))

    def create_user(self, claims: dict[str, Any]) -> Any:
        email = str(claims["email"]).lower()
        user = self.UserModel.objects.create_user(email, email=email)
        return self.update_user(user, claims)

    def update_user(self, user: Any, claims: dict[str, Any]) -> Any:
        staff = staff_by_claims(claims, settings.PLAYGROUND_OIDC["staff_claim"])
        if user.is_staff != staff:
            user.is_staff = staff
            user.save(update_fields=["is_staff"])
        return user


class SignInView(OIDCAuthenticationRequestView):
    """Redirect to the provider (its endpoint discovered)."""

    @staticmethod
    def get_settings(attr: str, *args: Any) -> Any:
        return _setting(attr, *args)


class SignedInView(OIDCAuthenticationCallbackView):
    """The provider's redirect back: the library's checks, then this session's length."""

    @staticmethod
    def get_settings(attr: str, *args: Any) -> Any:
        return _setting(attr, *args)

    def login_success(self) -> Any:
        response = super().login_success()
        session: SessionBase = self.request.session
        session.set_expiry(settings.PLAYGROUND_OIDC["session_seconds"])
        return response


def provider_sign_out_url(request: HttpRequest) -> str:
    """Where a sign-out sends the browser (``OIDC_OP_LOGOUT_URL_METHOD``, asked before the
    session ends): the provider's ``end_session_endpoint``, for a session it signed in, with the
    ID token kept at sign-in as ``id_token_hint`` and the site as where to come back; the site
    itself for a session of Django's accounts, or a provider that offers none (its own session
    is then left to it). A discovery that fails signs out of the playground alone."""
    back = request.build_absolute_uri(resolve_url(settings.LOGOUT_REDIRECT_URL or "/"))
    id_token = request.session.get("oidc_id_token")
    if not id_token:
        return back
    try:
        endpoint = discovered().get("end_session_endpoint")
    except Exception:
        logger.warning("could not read the provider's sign-out endpoint", exc_info=True)
        return back
    if not isinstance(endpoint, str) or not endpoint.startswith(("https://", "http://")):
        return back
    query = urlencode(
        {
            "id_token_hint": id_token,
            "post_logout_redirect_uri": back,
            "client_id": settings.PLAYGROUND_OIDC["client_id"],
        }
    )
    return f"{endpoint}{'&' if '?' in endpoint else '?'}{query}"


class SignOutView(OIDCLogoutView):
    """``POST /accounts/logout/`` with OpenID Connect on: the library's sign-out (the session
    ended here, ``user_logged_out`` sent: sockets close, the audit log records it), then the
    browser goes to :func:`provider_sign_out_url`. Only a POST (a link cannot sign one out)."""

    http_method_names = ["post"]
