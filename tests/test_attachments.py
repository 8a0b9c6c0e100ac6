"""Attachments: kept once by their bytes, refused by name over a limit, expanded only on the way
out (a run's sent body, the exports), answered by the simulator, served to owners and shares."""

from __future__ import annotations

import json
from typing import Any

import pytest
from django.contrib.auth import get_user_model
from django.core.files.uploadedfile import SimpleUploadedFile
from django.test import Client, override_settings

from playground import conversations
from playground.models import Attachment, Conversation, Message, Run
from playground.protocol.attachments import AttachmentLimits, expand_messages, sniff
from playground.protocol.errors import RequestValidationError
from playground.runs.start import begin_group
from playground.web.ownership import acting_user
from tests.attachment_support import b64, document_block, image_block, pdf, png
from tests.share_support import answer, send

pytestmark = pytest.mark.django_db


@pytest.fixture
def owner() -> Any:
    return acting_user(None)


@pytest.fixture
def conversation(owner: Any) -> Conversation:
    return conversations.create_conversation(owner=owner, title="Files")


def upload(client: Client, data: bytes, name: str) -> Any:
    return client.post("/api/attachments/", {"file": SimpleUploadedFile(name, data)})


def error_of(response: Any) -> dict[str, Any]:
    return response.json()["error"]


# --- What a file is, and the limits ------------------------------------------------------------


@pytest.mark.parametrize(
    ("data", "media_type"),
    [
        (png(), "image/png"),
        (b"\xff\xd8\xff\xe0\x00\x10JFIF", "image/jpeg"),
        (b"GIF89a\x01\x00\x01\x00", "image/gif"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "image/webp"),
        (pdf(), "application/pdf"),
        (b"<svg xmlns='http://www.w3.org/2000/svg'/>", None),
        (b"<html><script>alert(1)</script>", None),
    ],
    ids=["png", "jpeg", "gif", "webp", "pdf", "svg", "html"],
)
def test_the_type_is_read_from_the_bytes(data: bytes, media_type: str | None) -> None:
    assert sniff(data) == media_type


def test_an_upload_is_typed_by_its_bytes_not_its_name(client: Client) -> None:
    response = upload(client, b"<html><script>alert(1)</script></html>", "cat.png")
    assert response.status_code == 400
    error = error_of(response)
    assert error["field"] == "file"
    assert "cat.png is not a PNG, JPEG, GIF, WebP or PDF file" in error["message"]
    assert not Attachment.objects.exists()


def test_a_pdf_named_png_is_kept_as_a_pdf(client: Client) -> None:
    response = upload(client, pdf(), "scan.png")
    assert response.status_code == 201
    block = response.json()["block"]
    assert (block["type"], block["source"]["media_type"]) == ("document", "application/pdf")


@override_settings(PLAYGROUND_ATTACHMENT_LIMITS=AttachmentLimits(image_max_bytes=100))
def test_an_oversize_image_is_refused_naming_the_limit_and_setting(client: Client) -> None:
    data = png(40, 40, rgb=(1, 2, 3)) + b"\x00" * 200
    response = upload(client, data, "big.png")
    assert response.status_code == 400
    message = error_of(response)["message"]
    assert f"big.png is {len(data):,} bytes, over the limit of 100 bytes" in message
    assert "PLAYGROUND_ATTACHMENT_MAX_BYTES" in message
    assert not Attachment.objects.exists()


@override_settings(PLAYGROUND_ATTACHMENT_LIMITS=AttachmentLimits(pdf_max_bytes=100))
def test_an_oversize_pdf_names_its_own_setting(client: Client) -> None:
    message = error_of(upload(client, pdf(), "long.pdf"))["message"]
    assert "long.pdf is" in message and "PLAYGROUND_ATTACHMENT_PDF_MAX_BYTES" in message


@override_settings(PLAYGROUND_ATTACHMENT_LIMITS=AttachmentLimits(max_count=2))
def test_too_many_files_in_one_message_is_refused_by_name(conversation: Conversation) -> None:
    blocks = [image_block(png(1 + i, 1)) for i in range(3)] + [{"type": "text", "text": "hi"}]
    with pytest.raises(RequestValidationError) as refused:
        conversations.append_user_message(conversation=conversation, content=blocks)
    assert refused.value.field == "content"
    assert "3 attachments in one message, over the limit of 2" in refused.value.message
    assert "PLAYGROUND_ATTACHMENT_MAX_COUNT" in refused.value.message
    assert not conversation.messages.exists() and not Attachment.objects.exists()


def test_base64_whose_bytes_are_not_the_declared_type_is_refused(
    conversation: Conversation,
) -> None:
    wrong = image_block(b"\xff\xd8\xff\xe0 a jpeg", media_type="image/png")
    with pytest.raises(RequestValidationError) as refused:
        conversations.append_user_message(conversation=conversation, content=[wrong])
    assert refused.value.field == "content[0].source"
    assert "declared image/png but its bytes are image/jpeg" in refused.value.message


def test_a_pdf_sent_as_an_image_block_is_refused(conversation: Conversation) -> None:
    wrong = image_block(pdf(), media_type="application/pdf")
    with pytest.raises(RequestValidationError) as refused:
        conversations.append_user_message(conversation=conversation, content=[wrong])
    assert "sent as a document block, not image" in refused.value.message


def test_a_reference_to_a_file_the_owner_lacks_is_refused(conversation: Conversation) -> None:
    other = get_user_model().objects.create_user("other")
    Attachment.objects.create(
        owner=other, sha256="a" * 64, media_type="image/png", size=3, data=b"abc"
    )
    reference = {"type": "image", "source": {"type": "attachment", "sha256": "a" * 64}}
    with pytest.raises(RequestValidationError) as refused:
        conversations.append_user_message(conversation=conversation, content=[reference])
    assert refused.value.field == "content[0].source"
    assert "no such attachment among your files" in refused.value.message


# --- Stored once, expanded on the way out ------------------------------------------------------


def test_the_same_file_in_two_messages_is_one_row_and_the_run_keeps_a_reference(
    owner: Any, conversation: Conversation
) -> None:
    image = png(3, 3)
    first = [image_block(image), {"type": "text", "text": "what is this?"}]
    [begun] = begin_group(
        owner=owner,
        conversation_id=conversation.id,
        prepare=lambda c: conversations.append_user_message(conversation=c, content=first),
    )
    run = Run.objects.get(pk=begun.run_id)
    # The run keeps the reference; what goes upstream holds the bytes in base64.
    kept = run.request["messages"][0]["content"][0]["source"]
    assert kept["type"] == "attachment" and "data" not in kept
    assert b64(image) not in json.dumps(run.request)
    sent = begun.body["messages"][0]["content"][0]["source"]
    assert sent == {"type": "base64", "media_type": "image/png", "data": b64(image)}
    Run.objects.filter(pk=run.pk).update(status=Run.Status.COMPLETE)
    answer(conversation, [{"type": "text", "text": "A square."}])
    conversations.append_user_message(conversation=conversation, content=[image_block(image)])
    assert Attachment.objects.filter(owner=owner).count() == 1
    stored = [m.content[0]["source"] for m in conversation.messages.filter(role="user")]
    assert [s["type"] for s in stored] == ["attachment", "attachment"]
    assert stored[0]["sha256"] == stored[1]["sha256"]


def test_expansion_leaves_assistant_turns_the_very_objects_given() -> None:
    assistant = {"role": "assistant", "content": [{"type": "text", "text": "ok"}]}
    reference = {
        "type": "image",
        "source": {"type": "attachment", "sha256": "b" * 64, "media_type": "image/png"},
    }
    messages = [{"role": "user", "content": [reference]}, assistant]
    out = expand_messages(messages, load=lambda sha: ("image/png", b"PNGDATA"))
    assert out[1] is assistant
    assert out[0]["content"][0]["source"] == {
        "type": "base64",
        "media_type": "image/png",
        "data": b64(b"PNGDATA"),
    }
    assert messages[0]["content"][0] is reference  # the stored form is not changed


def test_exports_carry_the_files_in_base64(client: Client, conversation: Conversation) -> None:
    image, document = png(4, 4), pdf(3)
    conversations.append_user_message(
        conversation=conversation,
        content=[image_block(image), document_block(document), {"type": "text", "text": "read"}],
    )
    url = f"/api/conversations/{conversation.id}/export"
    body = json.loads(client.get(f"{url}/request.json").content)
    sources = [block["source"] for block in body["messages"][0]["content"][:2]]
    assert sources == [
        {"type": "base64", "media_type": "image/png", "data": b64(image)},
        {"type": "base64", "media_type": "application/pdf", "data": b64(document)},
    ]
    assert body["messages"][0]["content"][1]["title"] == "report.pdf"
    curl = client.get(f"{url}/code/?lang=curl").content.decode()
    assert b64(image) in curl and b64(document) in curl
    markdown = client.get(f"{url}/transcript.md").content.decode()
    assert "**Attached document:** `report.pdf` (application/pdf" in markdown


def test_the_request_preview_names_files_by_reference(
    client: Client, conversation: Conversation
) -> None:
    stored = upload(client, png(), "cat.png").json()["block"]
    response = send(
        client,
        "POST",
        f"/api/conversations/{conversation.id}/request/",
        {"content": [stored, {"type": "text", "text": "hi"}]},
    )
    source = response.json()["request"]["messages"][0]["content"][0]["source"]
    assert source == stored["source"]  # sha256, media type, size and name; never the bytes
    assert not conversation.messages.exists()


# --- The simulator -----------------------------------------------------------------------------


def test_the_simulator_says_what_it_received(client: Client) -> None:
    image, document = png(5, 5), pdf(3)
    body = {
        "model": "simulator-1",
        "max_tokens": 200,
        "messages": [
            {
                "role": "user",
                "content": [
                    image_block(image),
                    document_block(document),
                    {"type": "text", "text": "hi"},
                ],
            }
        ],
    }
    response = send(client, "POST", "/simulator/v1/messages", body)
    assert response.status_code == 200, response.content
    text = response.json()["content"][0]["text"]
    assert text.startswith(
        f"I received 1 image (image/png, {len(image):,} bytes) and 1 document "
        f"(application/pdf, 3 pages, {len(document):,} bytes)."
    )


def test_the_simulator_refuses_bytes_that_are_not_the_declared_type(client: Client) -> None:
    body = {
        "model": "simulator-1",
        "max_tokens": 200,
        "messages": [{"role": "user", "content": [image_block(pdf(), media_type="image/png")]}],
    }
    response = send(client, "POST", "/simulator/v1/messages", body)
    assert response.status_code == 400
    assert "not the declared image/png" in response.json()["error"]["message"]


def test_the_simulator_refuses_a_reference_as_a_real_server_would(client: Client) -> None:
    reference = {"type": "image", "source": {"type": "attachment", "sha256": "c" * 64}}
    body = {
        "model": "simulator-1",
        "max_tokens": 9,
        "messages": [{"role": "user", "content": [reference]}],
    }
    response = send(client, "POST", "/simulator/v1/messages", body)
    assert response.status_code == 400


# --- Serving -----------------------------------------------------------------------------------


def test_the_owner_gets_the_file_typed_and_nosniff(client: Client) -> None:
    image = png()
    url = upload(client, image, "cat.png").json()["url"]
    response = client.get(url)
    assert (response.status_code, response["Content-Type"]) == (200, "image/png")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response.content == image
    assert "img-src 'self';" in response["Content-Security-Policy"]


def test_another_user_cannot_read_a_file_by_its_hash(client: Client, owner: Any) -> None:
    url = upload(client, png(), "cat.png").json()["url"]
    other = Client()
    other.force_login(get_user_model().objects.create_user("other"))
    with override_settings(PLAYGROUND_REQUIRE_LOGIN=True):
        assert other.get(url).status_code == 404


def test_a_share_serves_its_files_until_revoked(client: Client, conversation: Conversation) -> None:
    image = png(6, 6)
    unshown = upload(client, png(7, 7), "other.png").json()["block"]["source"]["sha256"]
    conversations.append_user_message(
        conversation=conversation, content=[image_block(image), {"type": "text", "text": "see"}]
    )
    created = send(client, "POST", f"/api/conversations/{conversation.id}/shares/", {}).json()
    token, share_id = created["token"], created["share"]["id"]
    sha = conversation.messages.get().content[0]["source"]["sha256"]
    visitor = Client()
    response = visitor.get(f"/s/{token}/files/{sha}")
    assert (response.status_code, response["Content-Type"]) == (200, "image/png")
    assert response["X-Content-Type-Options"] == "nosniff"
    assert response["Cache-Control"] == "no-store"
    assert response.content == image
    # A file of the owner's that the snapshot does not show is not served through it.
    assert visitor.get(f"/s/{token}/files/{unshown}").status_code == 404
    assert send(client, "DELETE", f"/api/shares/{share_id}/").status_code == 204
    assert visitor.get(f"/s/{token}/files/{sha}").status_code == 404


def test_a_fork_of_a_share_gets_its_own_copy_of_the_files(
    client: Client, conversation: Conversation
) -> None:
    conversations.append_user_message(conversation=conversation, content=[image_block(png(8, 8))])
    token = send(client, "POST", f"/api/conversations/{conversation.id}/shares/", {}).json()[
        "token"
    ]
    visitor_user = get_user_model().objects.create_user("visitor")
    visitor = Client()
    visitor.force_login(visitor_user)
    with override_settings(PLAYGROUND_REQUIRE_LOGIN=True):
        assert visitor.post(f"/s/{token}/fork/").status_code == 303
    fork = Conversation.objects.get(owner=visitor_user)
    sha = fork.messages.get().content[0]["source"]["sha256"]
    assert Attachment.objects.filter(owner=visitor_user, sha256=sha).exists()


def test_an_edited_request_sends_its_references_as_the_owners_files(
    owner: Any, conversation: Conversation
) -> None:
    image = png(2, 5)
    conversations.append_user_message(
        conversation=conversation, content=[image_block(image), {"type": "text", "text": "a"}]
    )
    _, body = conversations.next_request(conversation=conversation)
    edited = {**body, "system": "Describe it."}
    [begun] = begin_group(
        owner=owner,
        conversation_id=conversation.id,
        prepare=lambda c: None,
        build=lambda c: conversations.edited_request(conversation=c, request=edited),
    )
    sent = begun.body["messages"][0]["content"][0]["source"]
    assert sent == {"type": "base64", "media_type": "image/png", "data": b64(image)}


def test_an_edited_request_naming_a_file_the_owner_lacks_starts_nothing(
    owner: Any, conversation: Conversation
) -> None:
    conversations.append_user_message(conversation=conversation, content="hi")
    _, body = conversations.next_request(conversation=conversation)
    foreign = {"type": "image", "source": {"type": "attachment", "sha256": "d" * 64}}
    edited = {**body, "messages": [{"role": "user", "content": [foreign]}]}
    with pytest.raises(RequestValidationError) as refused:
        begin_group(
            owner=owner,
            conversation_id=conversation.id,
            prepare=lambda c: None,
            build=lambda c: conversations.edited_request(conversation=c, request=edited),
        )
    assert "is not among your files" in refused.value.message
    assert not Run.objects.exists()


def test_a_file_over_djangos_default_body_limit_uploads_and_reaches_the_simulator(
    client: Client,
) -> None:
    # 3.5 MB: over Django's default 2.5 MB for a body read whole, under the 5 MB image limit.
    image = png(4, 4) + b"\x00" * (3_500_000)
    assert upload(client, image, "large.png").status_code == 201
    body = {
        "model": "simulator-1",
        "max_tokens": 50,
        "messages": [{"role": "user", "content": [image_block(image)]}],
    }
    response = send(client, "POST", "/simulator/v1/messages", body)
    assert response.status_code == 200, response.content[:300]
    assert f"image/png, {len(image):,} bytes" in response.json()["content"][0]["text"]


def test_a_file_name_too_long_to_parse_is_refused_in_the_json_shape(client: Client) -> None:
    # Django's multipart parser refuses part headers over 1,024 bytes: a 1,000-byte file name
    # answered an HTML 400 with a traceback in the log.
    name = "a" * 996 + ".png"
    body = (
        b"--XyZ\r\n"
        + f'Content-Disposition: form-data; name="file"; filename="{name}"\r\n'.encode()
        + b"Content-Type: image/png\r\n\r\n"
        + png(4, 4)
        + b"\r\n--XyZ--\r\n"
    )
    response = client.generic(
        "POST", "/api/attachments/", body, content_type="multipart/form-data; boundary=XyZ"
    )
    assert response.status_code == 400
    error = response.json()["error"]
    assert error["field"] == "file" and "file name" in error["message"], error


def test_a_request_over_the_size_limit_is_refused_before_any_file_is_read(
    owner: Any, conversation: Conversation, settings: Any, client: Client
) -> None:
    # One file named many times: each is its bytes in base64 on the way out. A 5 MB image
    # named 100 times took the server to 3.2 GB for a request the API refuses.
    from playground.protocol.errors import PayloadTooLarge

    image = png(40, 40)
    once = len(json.dumps(image_block(image)))
    settings.PLAYGROUND_MAX_REQUEST_BYTES = once * 8
    content = [image_block(image)] * 10 + [{"type": "text", "text": "all the same"}]
    with pytest.raises(PayloadTooLarge, match="PLAYGROUND_MAX_REQUEST_BYTES") as refused:
        begin_group(
            owner=owner,
            conversation_id=conversation.id,
            prepare=lambda c: conversations.append_user_message(conversation=c, content=content),
        )
    assert "10 files in base64" in str(refused.value)
    # Nothing of the refused start is stored: the person's turn waits in the composer.
    assert not Message.objects.filter(conversation=conversation).exists()
    assert not Run.objects.filter(conversation=conversation).exists()
    # The export of such a conversation is refused the same way, in the JSON error shape.
    conversations.append_user_message(conversation=conversation, content=content)
    exported = client.get(f"/api/conversations/{conversation.id}/export/request.json")
    assert exported.status_code == 413
    assert "PLAYGROUND_MAX_REQUEST_BYTES" in exported.json()["error"]["message"]
    settings.PLAYGROUND_MAX_REQUEST_BYTES = once * 20
    assert (
        client.get(f"/api/conversations/{conversation.id}/export/request.json").status_code == 200
    )
