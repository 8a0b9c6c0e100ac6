"""Sharing: read-only links to a frozen snapshot of a conversation, and forking one.

Rule: callers outside this package import its public names from here (``from playground import
sharing``). Inside: ``shares`` (create, update, revoke, resolve, fork), ``snapshot`` (what a
share freezes and shows) and ``views`` (the share pages and their JSON endpoints).
"""

from __future__ import annotations

from playground.sharing.shares import (
    HINT_CHARS,
    CreatedShare,
    ShareOptions,
    create_share,
    fork_share,
    get_share,
    hash_token,
    list_shares,
    public_page_data,
    read_options,
    resolve_share,
    revoke_share,
    serialize_share,
    share_path,
    update_share,
)

__all__ = [
    "HINT_CHARS",
    "CreatedShare",
    "ShareOptions",
    "create_share",
    "fork_share",
    "get_share",
    "hash_token",
    "list_shares",
    "read_options",
    "public_page_data",
    "resolve_share",
    "revoke_share",
    "serialize_share",
    "share_path",
    "update_share",
]
