"""The audit log: who did what, when, and how it went (``log.record``); read, filtered and
exported by staff (``views``). Never prompt text, answers or keys."""
