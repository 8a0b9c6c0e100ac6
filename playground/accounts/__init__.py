"""People's accounts beyond Django's: personal API tokens (``tokens``, ``bearer``) and
sign-in through OpenID Connect (``oidc``)."""
