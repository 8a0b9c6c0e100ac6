"""Development tools, outside the runtime package: the page bundle (``python -m
tools.page_bundle``), the vendored validator's bundle (``python -m tools.vendor_bundle``) and the
pinned JavaScript tools they and the tests use (``tools.npm_tools``). They run without Django
and read what they need of the environment themselves."""
