"""The catalog: what a page may pick from, per profile (the models an upstream lists).

Rule: only names reach a browser, never a key, a URL or an upstream's body; ``views`` is the
JSON endpoint, the fetching and caching is ``playground.upstream.model_list``.
"""
