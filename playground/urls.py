from __future__ import annotations

from django.conf import settings
from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.urls import include, path
from django.views.generic import RedirectView

from playground.accounts import oidc
from playground.accounts import views as account_views
from playground.attachments import views as attachment_views
from playground.audit import views as audit_views
from playground.catalog import views as catalog_views
from playground.conversations import api as conversation_api
from playground.conversations import pages
from playground.grids import api as grid_api
from playground.grids import experiments_api, promptfoo_api
from playground.grids import pages as grid_pages
from playground.mcp import catalog_views as mcp_catalog
from playground.mcp import user_views as mcp_user_views
from playground.mcp import views as mcp_views
from playground.observability.metrics_view import metrics_view
from playground.prompts import api as prompt_api
from playground.prompts import links_api as prompt_links
from playground.prompts import pages as prompt_pages
from playground.runs import api as run_api
from playground.sharing import files as share_files
from playground.sharing import views as share_views
from playground.transfer import views as transfer_views
from playground.usage import views as usage_views
from playground.web.endpoint import not_found

api_patterns = [
    path("conversations/", conversation_api.conversation_collection, name="api-conversations"),
    path(
        "conversations/<str:conversation_id>/",
        conversation_api.conversation_detail,
        name="api-conversation",
    ),
    path(
        "conversations/<str:conversation_id>/fork/",
        conversation_api.conversation_fork,
        name="api-conversation-fork",
    ),
    path(
        "conversations/<str:conversation_id>/request/",
        conversation_api.conversation_request,
        name="api-conversation-request",
    ),
    path(
        "conversations/<str:conversation_id>/rendered-prompt/",
        conversation_api.conversation_rendered_prompt,
        name="api-conversation-rendered-prompt",
    ),
    path(
        "conversations/<str:conversation_id>/token-count/",
        conversation_api.conversation_token_count,
        name="api-conversation-token-count",
    ),
    path(
        "conversations/<str:conversation_id>/variables/",
        conversation_api.conversation_variables,
        name="api-conversation-variables",
    ),
    path(
        "conversations/<str:conversation_id>/mocks/",
        conversation_api.conversation_mocks,
        name="api-conversation-mocks",
    ),
    path(
        "conversations/<str:conversation_id>/mcp-tools/",
        conversation_api.conversation_mcp_marks,
        name="api-conversation-mcp-tools",
    ),
    path(
        "conversations/<str:conversation_id>/turns/",
        conversation_api.conversation_turns,
        name="api-conversation-turns",
    ),
    path(
        "conversations/<str:conversation_id>/mcp-approval/",
        conversation_api.conversation_mcp_approval,
        name="api-conversation-mcp-approval",
    ),
    path(
        "conversations/<str:conversation_id>/mcp-calls/",
        mcp_views.conversation_mcp_calls,
        name="api-conversation-mcp-calls",
    ),
    path(
        "conversations/<str:conversation_id>/tool-results/",
        conversation_api.conversation_tool_results,
        name="api-conversation-tool-results",
    ),
    path(
        "conversations/<str:conversation_id>/messages/<str:message_id>/",
        conversation_api.message_detail,
        name="api-message",
    ),
    path(
        "conversations/<str:conversation_id>/grids/",
        grid_api.conversation_grids,
        name="api-conversation-grids",
    ),
    path("grids/promptfoo/", promptfoo_api.import_promptfoo, name="api-grid-promptfoo-import"),
    path("grids/<str:grid_id>/", grid_api.grid_detail, name="api-grid"),
    path("grids/<str:grid_id>/cells/<str:cell_id>/", grid_api.grid_cell, name="api-grid-cell"),
    path(
        "grids/<str:grid_id>/promptfoo.yaml",
        promptfoo_api.grid_promptfoo,
        name="api-grid-promptfoo",
    ),
    path(
        "grids/<str:grid_id>/cells/<str:cell_id>/open/",
        grid_api.open_grid_cell,
        name="api-grid-cell-open",
    ),
    path("grids/<str:grid_id>/run/", grid_api.grid_run, name="api-grid-run"),
    path("grids/<str:grid_id>/run/plan/", experiments_api.run_plan, name="api-grid-run-plan"),
    path(
        "grids/<str:grid_id>/experiments/",
        experiments_api.grid_experiments,
        name="api-grid-experiments",
    ),
    path(
        "grids/<str:grid_id>/experiments/<str:experiment>/",
        experiments_api.grid_experiment,
        name="api-grid-experiment",
    ),
    path(
        "grids/<str:grid_id>/experiments/<str:experiment>/export.<str:kind>",
        experiments_api.experiment_export,
        name="api-grid-experiment-export",
    ),
    path(
        "grids/<str:grid_id>/experiments/<str:experiment>/share/",
        experiments_api.experiment_share,
        name="api-grid-experiment-share",
    ),
    path("grids/<str:grid_id>/stop/", grid_api.grid_stop, name="api-grid-stop"),
    path("grids/<str:grid_id>/share/", grid_api.grid_share, name="api-grid-share"),
    path(
        "grids/<str:grid_id>/export.<str:kind>",
        grid_api.grid_export,
        name="api-grid-export",
    ),
    path("attachments/", attachment_views.upload, name="api-attachments"),
    path("mcp/servers/", mcp_views.mcp_servers, name="api-mcp-servers"),
    path("mcp/servers/connect/", mcp_views.mcp_connect, name="api-mcp-connect"),
    path("mcp/answers/", mcp_views.mcp_answer, name="api-mcp-answers"),
    path("mcp/reload/", mcp_views.mcp_reload, name="api-mcp-reload"),
    path("mcp/sessions/", mcp_views.mcp_sessions, name="api-mcp-sessions"),
    path("mcp/call/", mcp_views.mcp_call, name="api-mcp-call"),
    path("mcp/my-servers/", mcp_user_views.my_servers, name="api-mcp-my-servers"),
    path("mcp/my-servers/<str:server_id>/", mcp_user_views.my_server, name="api-mcp-my-server"),
    path(
        "mcp/my-servers/<str:server_id>/delete/",
        mcp_user_views.my_server_delete,
        name="api-mcp-my-server-delete",
    ),
    path(
        "mcp/my-servers/<str:server_id>/sign-in/",
        mcp_user_views.my_server_sign_in,
        name="api-mcp-my-server-sign-in",
    ),
    path(
        "mcp/my-servers/<str:server_id>/disconnect/",
        mcp_user_views.my_server_disconnect,
        name="api-mcp-my-server-disconnect",
    ),
    path("mcp/oauth/callback/", mcp_user_views.oauth_callback, name="api-mcp-oauth-callback"),
    path("mcp/resources/", mcp_catalog.mcp_resources, name="api-mcp-resources"),
    path("mcp/resources/read/", mcp_catalog.mcp_resource, name="api-mcp-resource"),
    path("mcp/resources/subscribe/", mcp_catalog.mcp_subscribe, name="api-mcp-subscribe"),
    path("mcp/prompts/", mcp_catalog.mcp_prompts, name="api-mcp-prompts"),
    path("mcp/prompts/get/", mcp_catalog.mcp_prompt, name="api-mcp-prompt"),
    path("mcp/complete/", mcp_catalog.mcp_complete, name="api-mcp-complete"),
    path("mcp/watch/", mcp_catalog.mcp_watch, name="api-mcp-watch"),
    path("attachments/<str:sha256>/", attachment_views.owner_file, name="api-attachment"),
    path(
        "conversations/<str:conversation_id>/messages/<str:message_id>/select/",
        conversation_api.message_select,
        name="api-message-select",
    ),
    path("profiles/<str:profile>/models/", catalog_views.profile_models, name="api-profile-models"),
    path("runs/<str:run_id>/", run_api.run_detail, name="api-run"),
    path("runs/<str:run_id>/events.jsonl", run_api.run_events, name="api-run-events"),
    # Sharing, export and import (playground.sharing.views, playground.transfer.views).
    path(
        "conversations/<str:conversation_id>/shares/",
        share_views.conversation_shares,
        name="api-conversation-shares",
    ),
    path("shares/<str:share_id>/", share_views.share_detail, name="api-share"),
    path(
        "conversations/<str:conversation_id>/export/request.json",
        transfer_views.export_request,
        name="api-export-request",
    ),
    path(
        "conversations/<str:conversation_id>/export/bundle.json",
        transfer_views.export_bundle,
        name="api-export-bundle",
    ),
    path(
        "conversations/<str:conversation_id>/export/transcript.md",
        transfer_views.export_transcript,
        name="api-export-transcript",
    ),
    path(
        "conversations/<str:conversation_id>/export/code/",
        transfer_views.export_code,
        name="api-export-code",
    ),
    path("import/", transfer_views.import_request, name="api-import"),
    path("usage/", usage_views.usage_api, name="api-usage"),
    path("usage/limits/", usage_views.usage_limits_api, name="api-usage-limits"),
    # The prompt library (playground.prompts): ``prompts/<name>`` with no slash is what an
    # application fetches; the owner's endpoints are under ``prompts/<name>/``.
    path("prompts/", prompt_api.prompt_collection, name="api-prompts"),
    path("prompts/import/", prompt_api.prompt_import, name="api-prompts-import"),
    path("prompts/<str:name>", prompt_links.prompt_serve, name="api-prompt-serve"),
    path("prompts/<str:name>/", prompt_api.prompt_detail, name="api-prompt"),
    path("prompts/<str:name>/versions/", prompt_api.prompt_versions, name="api-prompt-versions"),
    path(
        "prompts/<str:name>/versions/<int:number>/",
        prompt_api.prompt_version,
        name="api-prompt-version",
    ),
    path(
        "prompts/<str:name>/versions/<int:number>/rollback/",
        prompt_api.prompt_rollback,
        name="api-prompt-rollback",
    ),
    path(
        "prompts/<str:name>/versions/<int:number>/conversation/",
        prompt_api.prompt_conversation,
        name="api-prompt-conversation",
    ),
    path(
        "prompts/<str:name>/labels/<str:label>/", prompt_api.prompt_label, name="api-prompt-label"
    ),
    path("prompts/<str:name>/diff/", prompt_api.prompt_diff, name="api-prompt-diff"),
    path("prompts/<str:name>/improve/", prompt_links.prompt_improve, name="api-prompt-improve"),
    path("prompts/<str:name>/share/", prompt_api.prompt_share, name="api-prompt-share"),
    path(
        "prompts/<str:name>/export.<str:kind>",
        prompt_api.prompt_export,
        name="api-prompt-export",
    ),
    path(
        "conversations/<str:conversation_id>/prompt/",
        prompt_links.conversation_prompt,
        name="api-conversation-prompt",
    ),
    path(
        "conversations/<str:conversation_id>/prompt/drift/",
        prompt_links.conversation_drift,
        name="api-conversation-prompt-drift",
    ),
    # Anything else under /api/ answers in the JSON error shape, not an HTML page.
    path("<path:rest>", not_found),
]

urlpatterns = [
    path("", pages.home, name="home"),
    path("c/<str:conversation_id>/", pages.conversation_page, name="conversation"),
    path("c/<str:conversation_id>/grid/", grid_pages.new_grid_page, name="grid-new"),
    path("grids/<str:grid_id>/", grid_pages.grid_page, name="grid"),
    path("g/<str:token>/", grid_pages.shared_grid_page, name="grid-share"),
    path("x/<str:token>/", grid_pages.shared_experiment_page, name="experiment-share"),
    path(
        "x/<str:token>/experiment.json",
        grid_pages.shared_experiment_json,
        name="experiment-share-json",
    ),
    path(
        "x/<str:token>/export.<str:kind>",
        grid_pages.shared_experiment_export,
        name="experiment-share-export",
    ),
    path("g/<str:token>/grid.json", grid_pages.shared_grid_json, name="grid-share-json"),
    path(
        "g/<str:token>/export.<str:kind>",
        grid_pages.shared_grid_export,
        name="grid-share-export",
    ),
    path("prompts/", prompt_pages.prompt_list_page, name="prompts"),
    path("prompts/<str:name>/", prompt_pages.prompt_page, name="prompt"),
    path("p/<str:token>/", prompt_pages.shared_prompt_page, name="prompt-share"),
    path("p/<str:token>/prompt.json", prompt_pages.shared_prompt_json, name="prompt-share-json"),
    path("p/<str:token>/diff.json", prompt_pages.shared_prompt_diff, name="prompt-share-diff"),
    path(
        "p/<str:token>/export.<str:kind>",
        prompt_pages.shared_prompt_export,
        name="prompt-share-export",
    ),
    path("api/", include(api_patterns)),
    path("s/<str:token>/", share_views.share_page, name="share"),
    path("s/<str:token>/fork/", share_views.share_fork, name="share-fork"),
    path("s/<str:token>/files/<str:sha256>", share_files.share_file, name="share-file"),
    path("shares/", share_views.shares_page, name="shares"),
    path("tokens/", account_views.tokens_page, name="tokens"),
    path("usage/", usage_views.usage_page, name="usage"),
    path("usage/export.csv", usage_views.usage_export, name="usage-export"),
    path("audit/", audit_views.audit_page, name="audit"),
    path("audit/export.jsonl", audit_views.audit_export, name="audit-export"),
    path(
        "accounts/login/",
        auth_views.LoginView.as_view(extra_context={"oidc": settings.PLAYGROUND_OIDC}),
        name="login",
    ),
    path(
        "accounts/logout/",
        # With OpenID Connect on, a provider's session ends too (playground.accounts.oidc).
        oidc.SignOutView.as_view() if settings.PLAYGROUND_OIDC else auth_views.LogoutView.as_view(),
        name="logout",
    ),
    path("simulator/", include("playground.simulator.urls")),
    path("admin/", admin.site.urls),
    path("metrics", metrics_view, name="metrics"),
    # Browsers ask for /favicon.ico on pages that name no icon (the admin, raw JSON).
    path("favicon.ico", RedirectView.as_view(url="/static/playground/favicon.svg", permanent=True)),
]

if settings.PLAYGROUND_OIDC:  # sign-in with OpenID Connect (playground.accounts.oidc)
    urlpatterns += [
        path("oidc/authenticate/", oidc.SignInView.as_view(), name="oidc_authentication_init"),
        path("oidc/callback/", oidc.SignedInView.as_view(), name="oidc_authentication_callback"),
    ]

# A database away answers 503 (JSON under /api/), never a 500 page (web.server_error).
handler500 = "playground.web.server_error.server_error"
