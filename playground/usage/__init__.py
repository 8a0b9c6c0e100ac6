"""Who spent what: the price table (``prices``, pure), a run's cost (``costs``), the usage
ledger and budgets. The package module imports nothing: settings reads ``prices``."""
