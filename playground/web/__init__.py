"""Web: what every HTTP request and WebSocket passes through, whatever the feature.

Inside: ``endpoint`` (the JSON endpoint decorator, the body reader and the one mapping from the
error tree to an HTTP answer), ``ownership`` (the acting user and finding a row through its
owner), ``csp`` (the Content-Security-Policy middleware), ``origin`` (the WebSocket Origin
check), ``session_check`` (a socket lives no longer than its login) and ``log_privacy`` (share
tokens cut to their hint in logs). Callers import the modules by name.
"""
