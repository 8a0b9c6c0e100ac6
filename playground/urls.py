from __future__ import annotations

from django.contrib import admin
from django.urls import include, path

from playground import views

urlpatterns = [
    path("", views.home, name="home"),
    path("simulator/", include("playground.simulator.urls")),
    path("admin/", admin.site.urls),
]
