"""A file a share's snapshot shows, served through the share's token.

Rule: only while the share lives, and only a file its snapshot refers to; ``no-store``, so
revoking the link ends access at once. Anything else is the share's bare 404. It lives here, not
in ``playground.attachments``, because sharing builds on attachments and never the reverse.
"""

from __future__ import annotations

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_http_methods

from playground.attachments.store import references_in
from playground.attachments.views import file_response
from playground.models import Attachment
from playground.protocol.errors import NotFound
from playground.sharing.responses import not_found, protect
from playground.sharing.shares import resolve_share


@require_http_methods(["GET"])
def share_file(request: HttpRequest, token: str, sha256: str) -> HttpResponse:
    """``GET /s/<token>/files/<sha256>``: a file the live share's snapshot shows."""
    try:
        share = resolve_share(token=token)
    except NotFound:
        return not_found()
    snapshot = share.snapshot or {}
    shown = references_in(turn.get("content") for turn in snapshot.get("messages", []))
    row = (
        Attachment.objects.filter(owner_id=share.conversation.owner_id, sha256=sha256).first()
        if sha256 in shown
        else None
    )
    if row is None:
        return not_found()
    return protect(file_response(row), public=True)
