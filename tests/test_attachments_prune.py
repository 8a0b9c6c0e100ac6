"""``manage.py prune_attachments``: an unused file past the grace period goes; a file any
message, saved request or live share names stays, and so does a fresh upload not sent yet."""

from __future__ import annotations

import io
from datetime import timedelta
from typing import Any

import pytest
from django.core.management import call_command
from django.utils import timezone

from playground import conversations
from playground.attachments.store import store_file
from playground.models import Attachment, Conversation, Message, Run
from playground.runs.start import begin_group
from tests.attachment_support import image_block, pdf, png

pytestmark = pytest.mark.django_db


@pytest.fixture
def conversation(owner: Any) -> Conversation:
    return conversations.create_conversation(owner=owner, title="Files")


def age(days: float) -> None:
    """Every file so far was uploaded ``days`` ago."""
    then = timezone.now() - timedelta(days=days)
    Attachment.objects.update(created_at=then, uploaded_at=then)


def prune(*args: str) -> str:
    out = io.StringIO()
    call_command("prune_attachments", *args, stdout=out)
    return out.getvalue()


def kept() -> set[int]:
    return set(Attachment.objects.values_list("size", flat=True))


def test_only_old_files_nothing_names_are_removed(owner: Any, conversation: Conversation) -> None:
    sent, unsent = png(3, 3), pdf(2)
    conversations.append_user_message(conversation=conversation, content=[image_block(sent)])
    store_file(owner_id=owner.pk, data=unsent, name="draft.pdf")  # uploaded, never sent
    age(10)
    fresh = png(5, 5)
    store_file(owner_id=owner.pk, data=fresh, name="new.png")  # within the grace period

    assert (
        prune("--dry-run")
        == f"would remove 1 unused file ({len(unsent):,} bytes), older than 7 days\n"
    )
    assert kept() == {len(sent), len(unsent), len(fresh)}
    assert prune() == f"removed 1 unused file ({len(unsent):,} bytes), older than 7 days\n"
    assert kept() == {len(sent), len(fresh)}


def test_a_file_uploaded_again_today_is_not_pruned_for_its_first_upload(owner: Any) -> None:
    # The same bytes first kept 10 days ago and attached again to today's draft: the reuse
    # did not refresh the row, and the draft's file was deleted.
    draft = png(6, 6)
    store_file(owner_id=owner.pk, data=draft, name="today.png")
    age(10)
    store_file(owner_id=owner.pk, data=draft, name="today.png")  # today's draft
    assert prune() == "removed 0 unused files (0 bytes), older than 7 days\n"
    assert kept() == {len(draft)}


def test_a_dry_run_counts_each_file_once(owner: Any) -> None:
    # DISTINCT under Meta.ordering listed an owner once per file: a dry run counted them over.
    files = [png(7, 7), png(8, 8), pdf(3)]
    for index, data in enumerate(files):
        store_file(owner_id=owner.pk, data=data, name=f"f{index}")
        then = timezone.now() - timedelta(days=10 + index)  # each its own time, as in life
        Attachment.objects.filter(size=len(data)).update(created_at=then, uploaded_at=then)
    total = sum(len(data) for data in files)
    said = f"3 unused files ({total:,} bytes), older than 7 days\n"
    assert prune("--dry-run") == f"would remove {said}"
    assert prune() == f"removed {said}"


def test_a_file_named_only_by_a_saved_request_or_an_old_branch_stays(
    owner: Any, conversation: Conversation
) -> None:
    image = png(4, 4)
    [begun] = begin_group(
        owner=owner,
        conversation_id=conversation.id,
        prepare=lambda c: conversations.append_user_message(
            conversation=c, content=[image_block(image)]
        ),
    )
    Run.objects.filter(pk=begun.run_id).update(status=Run.Status.COMPLETE)
    # Even with the message gone, the run's saved request still names the file.
    Message.objects.filter(conversation=conversation).delete()
    age(30)
    assert prune().startswith("removed 0 unused files")
    assert kept() == {len(image)}
    Run.objects.all().delete()
    assert prune().startswith("removed 1 unused file")
    assert not Attachment.objects.exists()


def test_another_owners_reference_does_not_keep_a_file(owner: Any) -> None:
    from django.contrib.auth import get_user_model

    other = get_user_model().objects.create_user("other", password="x")
    image = png(6, 6)
    store_file(owner_id=owner.pk, data=image, name="mine.png")
    theirs = conversations.create_conversation(owner=other, title="Theirs")
    conversations.append_user_message(conversation=theirs, content=[image_block(image)])
    age(10)
    prune()
    # The other owner's copy stays (they sent it); the owner's unsent copy goes.
    assert list(Attachment.objects.values_list("owner_id", flat=True)) == [other.pk]


def test_a_live_shares_snapshot_keeps_its_files_until_revoked(
    owner: Any, conversation: Conversation
) -> None:
    from playground.sharing.shares import create_share, revoke_share

    image = png(7, 7)
    conversations.append_user_message(conversation=conversation, content=[image_block(image)])
    created = create_share(conversation=conversation)
    # The conversation's own message is gone (only the link still shows the file).
    Message.objects.filter(conversation=conversation).delete()
    age(10)
    assert prune().startswith("removed 0 unused files")
    revoke_share(share=created.share)
    assert prune().startswith("removed 1 unused file")
