from __future__ import annotations

from django.urls import path

from playground.simulator import views

urlpatterns = [
    path("v1/messages", views.messages, name="simulator-messages"),
    path("v1/messages/count_tokens", views.count_tokens, name="simulator-count-tokens"),
    path("v1/models", views.models, name="simulator-models"),
    path("v1/chat/render", views.chat_render, name="simulator-chat-render"),
]
