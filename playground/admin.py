from __future__ import annotations

from django.contrib import admin

from playground.models import Conversation, Message, Run


class MessageInline(admin.TabularInline):
    model = Message
    extra = 0
    fields = ("position", "on_path", "parent", "role", "content", "run")
    # The tree is the services' (conversations.branches): shown, not edited here.
    readonly_fields = ("run", "parent", "on_path")


@admin.register(Conversation)
class ConversationAdmin(admin.ModelAdmin):
    list_display = ("title", "owner", "upstream", "updated_at")
    search_fields = ("title",)
    inlines = [MessageInline]

    @admin.display(description="Upstream · model")
    def upstream(self, conversation: Conversation) -> str:
        return f"{conversation.settings.profile} · {conversation.settings.model}"


@admin.register(Run)
class RunAdmin(admin.ModelAdmin):
    list_display = ("id", "conversation", "status", "stop_reason", "started_at", "finished_at")
    list_filter = ("status",)
    readonly_fields = [field.name for field in Run._meta.fields]
