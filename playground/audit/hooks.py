"""What the audit log hears without its callers naming it: Django's sign-in signals, and the
listeners other packages offer (a budget's refusal, a limit changed, a token made or revoked,
an OpenID Connect sign-in refused). Connected once, by the app's ``ready``."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.signals import user_logged_in, user_logged_out, user_login_failed
from django.http import HttpRequest

from playground.audit.log import record

__all__ = ["connect"]


def _address(request: HttpRequest | None) -> str:
    return str(getattr(request, "META", {}).get("REMOTE_ADDR", "")) if request else ""


def _signed_in(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    record("auth.sign_in", actor=user, address=_address(request))


def _signed_out(sender: Any, request: HttpRequest | None, user: Any, **kwargs: Any) -> None:
    if user is not None:
        record("auth.sign_out", actor=user, address=_address(request))


#: Set on a request whose failed sign-in its backend already logged (with who and why).
_LOGGED = "_playground_sign_in_failure_logged"


def _failed(sender: Any, credentials: dict[str, Any], request: Any = None, **kwargs: Any) -> None:
    # Django sends this after every backend said no, naming none: a refusal an OpenID Connect
    # backend logged (with the address it refused and why) is not logged twice, nameless.
    if getattr(request, _LOGGED, False):
        return
    # Django masks the password; only the name tried is kept.
    name = str(credentials.get("username", ""))
    details = None if "username" in credentials else {"by": "oidc"}
    record(
        "auth.sign_in_failed",
        actor_name=name,
        outcome="refused",
        details=details,
        address=_address(request),
    )


def connect() -> None:
    from playground.accounts import oidc, tokens
    from playground.usage import ledger, views

    user_logged_in.connect(_signed_in, dispatch_uid="playground.audit.sign_in")
    user_logged_out.connect(_signed_out, dispatch_uid="playground.audit.sign_out")
    user_login_failed.connect(_failed, dispatch_uid="playground.audit.sign_in_failed")

    def refused_sign_in(request: HttpRequest, email: str, why: str) -> None:
        setattr(request, _LOGGED, True)
        record(
            "auth.sign_in_failed",
            actor_name=email,
            outcome="refused",
            details={"reason": why, "by": "oidc"},
            address=_address(request),
        )

    def refused_by_budget(person: Any, refusal: Any) -> None:
        record(
            "budget.refused",
            actor=person,
            outcome=refusal.code,
            details={"limit": refusal.message, "resets_at": refusal.resets_at},
        )

    def budget_changed(staff: Any, change: str, budget: Any) -> None:
        from playground.usage.budgets import describe_limit

        whose = budget.person.get_username() if budget.person_id else "everyone"
        record(
            f"budget.{change}",
            actor=staff,
            target=whose,
            details={"limit": describe_limit(budget), "amount": budget.limit},
        )

    def token_changed(owner: Any, change: str, token: Any) -> None:
        record(
            f"token.{change}", actor=owner, target=token.token_hint, details={"name": token.name}
        )

    oidc.ON_SIGN_IN_REFUSED.append(refused_sign_in)
    ledger.ON_REFUSAL.append(refused_by_budget)
    views.BUDGET_CHANGED.append(budget_changed)
    tokens.ON_CHANGE.append(token_changed)
