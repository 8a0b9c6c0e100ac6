"""Usage pages: ``/usage/`` (a person's own use and what their limits have left; staff see
everyone's and set limits), ``/usage/export.csv`` (staff), ``GET /api/usage/`` (one's own, JSON).

Plain forms, no script. In local mode the one local user is the machine's owner: staff.
"""

from __future__ import annotations

from datetime import datetime, time, timedelta
from decimal import Decimal, InvalidOperation
from typing import Any

from django.conf import settings
from django.contrib.auth import get_user_model
from django.contrib.auth.views import redirect_to_login
from django.http import HttpRequest, HttpResponse, JsonResponse, StreamingHttpResponse
from django.shortcuts import render
from django.utils import timezone

from playground.protocol.errors import Forbidden, PlaygroundError, RequestValidationError
from playground.protocol.run_kind import RunKind
from playground.team_models import Budget
from playground.usage import budgets, reports
from playground.usage.costs import price_table
from playground.usage.prices import NANOS
from playground.web.endpoint import endpoint, error_response
from playground.web.ownership import acting_user

__all__ = [
    "BUDGET_CHANGED",
    "is_staff",
    "usage_api",
    "usage_export",
    "usage_limits_api",
    "usage_page",
]

#: Called with (staff person, what changed: "set" or "removed", the budget) after a change
#: (the audit log records it: ``playground.audit``).
BUDGET_CHANGED: list[Any] = []


def is_staff(person: Any) -> bool:
    return not settings.PLAYGROUND_REQUIRE_LOGIN or bool(getattr(person, "is_staff", False))


def usage_page(request: HttpRequest) -> HttpResponse:
    person = acting_user(request.user)
    if person is None:
        return redirect_to_login(request.get_full_path())
    staff = is_staff(person)
    error = None
    status = 200
    kind = None
    try:
        kind = reports.read_kind(request.GET.get("kind"))
    except PlaygroundError as exc:
        error, status = exc.as_dict(), exc.http_status
    if request.method == "POST":
        try:
            if not staff:
                raise Forbidden("only staff set limits")
            _budget_action(request, staff=person)
        except PlaygroundError as exc:
            error, status = exc.as_dict(), exc.http_status
    now = timezone.now()
    month, _ = budgets.period_bounds(Budget.Period.MONTH, now)
    summary = reports.own_summary(person.pk, now, kind=kind)
    context: dict[str, Any] = {
        "summary": summary,
        "limits": [left.as_dict() for left in budgets.left_for(person.pk, now)],
        "staff": staff,
        "error": error,
        "currency": price_table().currency,
        "kind": kind or "",
        "kind_label": reports.kind_label(kind) if kind else "",
        "kinds": [(each.value, each.label) for each in RunKind],
    }
    if staff:
        context["everyone"] = [
            {"person": name, **each.as_dict()} for name, each in reports.by_person(month, kind=kind)
        ]
        context["all_budgets"] = [
            {
                "id": b.pk,
                "person": b.person.get_username() if b.person else "",
                "text": budgets.describe_limit(b),
            }
            for b in Budget.objects.select_related("person")
        ]
        context["profiles"] = list(settings.PLAYGROUND_PROFILES)
        context["export_since"] = month.date().isoformat()
        context["export_until"] = now.date().isoformat()
    response = render(request, "playground/usage.html", context, status=status)
    response["Cache-Control"] = "no-store"  # one person's figures: no cache keeps them
    return response


def _budget_action(request: HttpRequest, *, staff: Any) -> None:
    action = request.POST.get("action", "")
    if action == "remove":
        try:
            budget = Budget.objects.get(pk=int(request.POST.get("budget", "")))
        except (ValueError, Budget.DoesNotExist):
            raise RequestValidationError("no such limit", field="budget") from None
        budget.delete()
        for listener in BUDGET_CHANGED:
            listener(staff, "removed", budget)
        return
    if action != "set":
        raise RequestValidationError(
            f"unknown action {action!r} (valid: set, remove)", field="action"
        )
    username = request.POST.get("person", "").strip()
    person = None
    if username:
        person = get_user_model().objects.filter(username=username).first()
        if person is None:
            raise RequestValidationError(f"no person named {username!r}", field="person")
    profile = request.POST.get("profile", "").strip()
    if profile and profile not in settings.PLAYGROUND_PROFILES:
        names = ", ".join(settings.PLAYGROUND_PROFILES)
        raise RequestValidationError(f"no profile {profile!r} (valid: {names})", field="profile")
    period = request.POST.get("period", "")
    if period not in Budget.Period.values:
        raise RequestValidationError("choose day or month", field="period")
    measure = request.POST.get("measure", "")
    if measure not in Budget.Measure.values:
        raise RequestValidationError("choose tokens or money", field="measure")
    limit = _limit(request.POST.get("limit", ""), money=measure == Budget.Measure.MONEY)
    budget, _ = Budget.objects.update_or_create(
        person=person, profile=profile, period=period, measure=measure, defaults={"limit": limit}
    )
    for listener in BUDGET_CHANGED:
        listener(staff, "set", budget)


def _limit(raw: str, *, money: bool) -> int:
    try:
        amount = Decimal(raw.strip().replace(",", ""))
    except InvalidOperation:
        raise RequestValidationError(f"not a number: {raw!r}", field="limit") from None
    if not amount.is_finite() or amount < 0:
        raise RequestValidationError("a limit is a number of at least 0", field="limit")
    if money:
        return int(amount * NANOS)
    if amount != amount.to_integral_value():
        raise RequestValidationError("a token limit is a whole number", field="limit")
    return int(amount)


def usage_export(request: HttpRequest) -> HttpResponse:
    """``?since=YYYY-MM-DD&until=YYYY-MM-DD`` (until included), and ``&kind=`` (one kind of
    run, ``protocol.run_kind``): every settled run, CSV."""
    person = acting_user(request.user)
    if person is None:
        return redirect_to_login(request.get_full_path())
    if not is_staff(person):
        return error_response(Forbidden("only staff export everyone's usage"))
    try:
        since = _day(request.GET.get("since", ""), field="since")
        until = _day(request.GET.get("until", ""), field="until") + timedelta(days=1)
        kind = reports.read_kind(request.GET.get("kind"))
    except RequestValidationError as exc:
        return error_response(exc)
    response = StreamingHttpResponse(
        reports.csv_lines(since, until, kind=kind), content_type="text/csv"
    )
    of_kind = f"-{kind}" if kind else ""
    name = f"usage-{since.date()}-{(until - timedelta(days=1)).date()}{of_kind}.csv"
    response["Content-Disposition"] = f'attachment; filename="{name}"'
    response["Cache-Control"] = "no-store"
    return response


def _day(raw: str, *, field: str) -> datetime:
    try:
        day = datetime.strptime(raw, "%Y-%m-%d").date()
    except ValueError:
        raise RequestValidationError("a day as YYYY-MM-DD", field=field) from None
    return datetime.combine(day, time.min, tzinfo=timezone.get_current_timezone())


@endpoint("GET")
def usage_api(request: HttpRequest, *, owner: Any, body: dict[str, Any]) -> HttpResponse:
    """One's own use (today, this month, by profile and by kind; ``?kind=`` keeps one kind of
    run) and every limit with what it has left."""
    now = timezone.now()
    kind = reports.read_kind(request.GET.get("kind"))
    return JsonResponse(
        {
            **reports.own_summary(owner.pk, now, kind=kind),
            "limits": [left.as_dict() for left in budgets.left_for(owner.pk, now)],
        }
    )


@endpoint("GET")
def usage_limits_api(request: HttpRequest, *, owner: Any, body: dict[str, Any]) -> HttpResponse:
    """What one's limits have left, the tightest first (a page's budget chip, after each run)."""
    return JsonResponse({"limits": budgets.limits_left(owner.pk, timezone.now())})
