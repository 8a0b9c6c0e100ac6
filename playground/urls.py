from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from playground import api, export_views, share_views, views

api_patterns = [
    path("conversations/", api.conversation_collection, name="api-conversations"),
    path(
        "conversations/<str:conversation_id>/",
        api.conversation_detail,
        name="api-conversation",
    ),
    path(
        "conversations/<str:conversation_id>/fork/",
        api.conversation_fork,
        name="api-conversation-fork",
    ),
    path(
        "conversations/<str:conversation_id>/request/",
        api.conversation_request,
        name="api-conversation-request",
    ),
    path(
        "conversations/<str:conversation_id>/tool-results/",
        api.conversation_tool_results,
        name="api-conversation-tool-results",
    ),
    path(
        "conversations/<str:conversation_id>/messages/<str:message_id>/",
        api.message_detail,
        name="api-message",
    ),
    path("runs/<str:run_id>/", api.run_detail, name="api-run"),
    path("runs/<str:run_id>/events.jsonl", api.run_events, name="api-run-events"),
    # Sharing, export and import (playground.share_views, playground.export_views).
    path(
        "conversations/<str:conversation_id>/shares/",
        share_views.conversation_shares,
        name="api-conversation-shares",
    ),
    path("shares/<str:share_id>/", share_views.share_detail, name="api-share"),
    path(
        "conversations/<str:conversation_id>/export/request.json",
        export_views.export_request,
        name="api-export-request",
    ),
    path(
        "conversations/<str:conversation_id>/export/transcript.md",
        export_views.export_transcript,
        name="api-export-transcript",
    ),
    path(
        "conversations/<str:conversation_id>/export/code/",
        export_views.export_code,
        name="api-export-code",
    ),
    path("import/", export_views.import_request, name="api-import"),
    # Anything else under /api/ answers in the JSON error shape, not an HTML page.
    path("<path:rest>", api.not_found),
]

urlpatterns = [
    path("", views.home, name="home"),
    path("c/<str:conversation_id>/", views.conversation_page, name="conversation"),
    path("api/", include(api_patterns)),
    path("s/<str:token>/", share_views.share_page, name="share"),
    path("s/<str:token>/fork/", share_views.share_fork, name="share-fork"),
    path("shares/", share_views.shares_page, name="shares"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("simulator/", include("playground.simulator.urls")),
    path("admin/", admin.site.urls),
    # Browsers ask for /favicon.ico on pages that name no icon (the admin, raw JSON).
    path("favicon.ico", RedirectView.as_view(url="/static/playground/favicon.svg", permanent=True)),
]
