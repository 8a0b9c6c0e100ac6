"""Attachment endpoints: upload a file, read it back as its owner, read it through a share.

Rules:
- ``POST /api/attachments/`` takes one multipart ``file`` (the page's picker, paste or drop),
  keeps it (``store.store_file``: type by its bytes, size under its limit) and answers 201
  with the content block that refers to it; the page puts that block in its next turn.
  Multipart, so a 32 MB PDF never passes through the JSON body limit or a socket frame.
- A file is served with the type its bytes showed when it was kept, ``nosniff``, and a
  ``Content-Disposition`` (images ``inline``, PDFs ``attachment``): a browser never renders
  one as HTML, and the app's one CSP (``img-src 'self'``) covers the ``<img>`` that shows it.
- Through a share (``/s/<token>/files/<sha256>``): ``playground.sharing.files``, which builds
  on ``file_response`` here (sharing depends on attachments, never the reverse).
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.contrib.auth.models import AbstractBaseUser
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.http.multipartparser import MultiPartParserError
from django.urls import reverse

from playground.attachments.store import store_file
from playground.models import Attachment
from playground.protocol.errors import (
    NotFound,
    PayloadTooLarge,
    RequestValidationError,
)
from playground.web.endpoint import endpoint

#: Room for the multipart framing around the one file.
MULTIPART_SLACK = 64 * 1024


def file_response(row: Attachment) -> HttpResponse:
    """The file's bytes, typed as kept, never sniffed into anything else by the browser."""
    response = HttpResponse(bytes(row.data), content_type=row.media_type)
    response["X-Content-Type-Options"] = "nosniff"
    disposition = "attachment" if row.media_type == "application/pdf" else "inline"
    extension = row.media_type.rsplit("/", 1)[-1]
    response["Content-Disposition"] = f'{disposition}; filename="{row.sha256[:12]}.{extension}"'
    return response


@endpoint("POST", own_body=True)
def upload(request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any]) -> HttpResponse:
    """``POST /api/attachments/`` (multipart ``file``) -> 201 ``{block, url}``."""
    stored = store_file(owner_id=owner.pk, **_upload_fields(request))
    url = reverse("api-attachment", kwargs={"sha256": stored.sha256})
    return JsonResponse({"block": stored.block, "url": url}, status=201)


def _upload_fields(request: HttpRequest) -> dict[str, Any]:
    limits = settings.PLAYGROUND_ATTACHMENT_LIMITS
    limit = max(limits.image_max_bytes, limits.pdf_max_bytes)
    if request.content_type != "multipart/form-data":
        raise RequestValidationError(
            "expected a multipart/form-data upload with a 'file'", field="file"
        )
    try:
        declared = int(request.META.get("CONTENT_LENGTH") or 0)
    except ValueError:
        declared = 0
    if declared > limit + MULTIPART_SLACK:
        raise PayloadTooLarge(
            f"the upload is {declared:,} bytes, over the largest file allowed ({limit:,} bytes, "
            "PLAYGROUND_ATTACHMENT_PDF_MAX_BYTES)"
        )
    try:
        upload = request.FILES.get("file")
    except RequestDataTooBig:
        raise PayloadTooLarge(f"the upload is over the limit of {limit:,} bytes") from None
    except MultiPartParserError as exc:
        # Django's parser refuses a part whose headers pass 1,024 bytes: in practice a file
        # name that long. Named here, in the JSON error shape, not an HTML 400 and a traceback.
        raise RequestValidationError(
            f"the upload could not be read ({exc}): a file name of this length is too long; "
            "rename the file (at most about 900 bytes of name)",
            field="file",
        ) from None
    if upload is None:
        raise RequestValidationError("required: the file to attach", field="file")
    # Read one byte past the limit: the size check then names the real excess.
    return {"data": upload.read(limit + 1), "name": upload.name or "file"}


@endpoint("GET")
def owner_file(
    request: HttpRequest, *, owner: AbstractBaseUser, body: dict[str, Any], sha256: str
) -> HttpResponse:
    """``GET /api/attachments/<sha256>/``: one of the acting user's files."""
    row = Attachment.objects.filter(owner=owner, sha256=sha256).first()
    if row is None:
        raise NotFound("no such attachment among your files")
    return file_response(row)
