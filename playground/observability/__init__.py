"""What an operator sees: Prometheus metrics (``metrics``, ``metrics_view``) and OpenTelemetry
traces (``traces``), each off unless configured."""
